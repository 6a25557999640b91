import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { expectStatus } from "../helpers/app.js";
import { startEfiPayoutsWorld, type EfiPayoutsWorld } from "../helpers/efi-payouts-world.js";
import { activeSubmerchants, call } from "./helpers.js";

// Payout schedules in provider settlement (issue 47 item 6): the submerchant's payoutSchedule is
// its Pagar.me recipient's transfer_settings, sent when the recipient is made and again on each
// change; what Pagar.me's transfer settings cannot say (a weekend day, a minimum) is a 422
// naming the field, before anything is saved or sent.

let w: EfiPayoutsWorld;
before(async () => { w = await startEfiPayoutsWorld(); });
after(async () => { await w.close(); });

const BANK = { holderName: "Aurora Alimentos LTDA", holderDocument: "11222333000181", bank: "341", branch: "1234", account: "123456789", accountDigit: "0", type: "checking" };
const schedule = (key: string, id: string, payoutSchedule: unknown) => call(w.t, "PATCH", `/v1/submerchants/${id}`, key, { payoutSchedule });
const settingsAtPagarme = (id: string) => [...w.pagarme.recipients.values()].find((r) => r.code === id)?.transfer_settings;
const activeSubmerchant = async (key: string) => (await activeSubmerchants(w.t, key, 1))[0]!.id;

test("pagarme: the schedule set before the recipient is made is its transfer_settings; each change is sent again", async () => {
  const key = w.master.productionKey;
  const id = await activeSubmerchant(key);
  expectStatus(await schedule(key, id, { interval: "weekly", weekDay: 3 }), 200);
  expectStatus(await call(w.t, "POST", `/v1/submerchants/${id}/provider-accounts`, key, { processor: "pagarme", bankAccount: BANK }), 201);
  assert.deepEqual(settingsAtPagarme(id), { transfer_enabled: true, transfer_interval: "Weekly", transfer_day: 3 });

  expectStatus(await schedule(key, id, { interval: "monthly", monthDay: 15 }), 200);
  assert.deepEqual(settingsAtPagarme(id), { transfer_enabled: true, transfer_interval: "Monthly", transfer_day: 15 });
  expectStatus(await schedule(key, id, { interval: "daily" }), 200);
  assert.deepEqual(settingsAtPagarme(id), { transfer_enabled: true, transfer_interval: "Daily", transfer_day: 0 });
  const manual = await schedule(key, id, { interval: "manual" });
  expectStatus(manual, 200);
  assert.equal(manual.json().payoutSchedule.interval, "manual");
  assert.deepEqual(settingsAtPagarme(id), { transfer_enabled: false, transfer_interval: "Daily", transfer_day: 0 }, "manual: no automatic transfers");
});

test("pagarme: a weekend day or a minimum is a 422 naming the field; nothing saved, nothing sent", async () => {
  const key = w.master.productionKey;
  const id = await activeSubmerchant(key);
  expectStatus(await call(w.t, "POST", `/v1/submerchants/${id}/provider-accounts`, key, { processor: "pagarme", bankAccount: BANK }), 201);
  expectStatus(await schedule(key, id, { interval: "weekly", weekDay: 5 }), 200);
  const sent = () => w.pagarme.core.requests.filter((r) => /transfer-settings/.test(r.route)).length;
  const before = sent();
  for (const [body, field] of [
    [{ interval: "weekly", weekDay: 6 }, /payoutSchedule\.weekDay must be 1 \(Monday\) to 5 \(Friday\)/],
    [{ interval: "daily", minimumAmount: 1000 }, /payoutSchedule\.minimumAmount/],
  ] as const) {
    const res = await schedule(key, id, body);
    expectStatus(res, 422);
    assert.match(res.json().message, field);
  }
  assert.equal(sent(), before, "Pagar.me never called");
  const sm = await call(w.t, "GET", `/v1/submerchants/${id}`, key);
  assert.deepEqual([sm.json().payoutSchedule.interval, sm.json().payoutSchedule.weekDay], ["weekly", 5], "the schedule kept");
  assert.deepEqual(settingsAtPagarme(id), { transfer_enabled: true, transfer_interval: "Weekly", transfer_day: 5 });
});

test("sandbox: a seller with the simulator's account takes any schedule, weekends and minimums included", async () => {
  const key = w.master.sandboxKey;
  const id = await activeSubmerchant(key);
  expectStatus(await call(w.t, "POST", `/v1/submerchants/${id}/provider-accounts`, key, { processor: "sandbox" }), 201);
  expectStatus(await schedule(key, id, { interval: "weekly", weekDay: 7, minimumAmount: 500 }), 200);
});
