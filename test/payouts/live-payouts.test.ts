import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { queryRows } from "../../src/db/client.js";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { drainTasks } from "../../src/jobs/runner.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { cardCharge, createCharge } from "../helpers/charges.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { activate, assertLedgerInvariants, decidedTransfer, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";

// Payouts in production, over HTTP: no live processor sends Pix payouts, so a live payout is
// reserved and stays pending until the operator transfers at its own bank and approves it with
// that transfer's Pix end-to-end id, which is checked for shape, recorded once and shown. The
// live charges that fund the submerchants go through the local Pagar.me fake; the payouts never
// reach it.

let t: TestApp;
let pagarme: FakePagarme;
let receiver: Receiver;
let master: SeededMerchant;
before(async () => {
  pagarme = await startFakePagarme();
  t = await buildTestApp({
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url } }, timeoutMs: 5_000 },
  });
  master = await seedMaster(t, FEES);
  receiver = await startReceiver();
});
after(async () => {
  await receiver.close();
  await t.close();
  await pagarme.close();
});

const admin = (method: "GET" | "POST", url: string, payload?: unknown) => call(t, method, url, t.admin, payload);
const approve = (id: string, endToEndId?: unknown) => admin("POST", `/v1/admin/payout-requests/${id}/approve`, endToEndId === undefined ? undefined : { endToEndId });
// Writes only: the live reconciliation may read the funding charges again at any moment.
const providerCalls = () => pagarme.requests.filter((r) => r.method !== "GET").length;

/** A Pix end-to-end id: E + ISPB + yyyyMMddHHmm (UTC) + 11 letters or digits, written out here independently of feira's code. */
let seq = 0;
function e2e(at = new Date(), ispb = "18236120"): string {
  const stamp = at.toISOString().replace(/\D/g, "").slice(0, 12);
  const suffix = `t${process.pid.toString(36)}${(seq++).toString(36)}${Math.random().toString(36).slice(2)}`.replace(/[^a-z0-9]/g, "").padEnd(11, "0").slice(0, 11);
  return `E${ispb}${stamp}${suffix}`;
}

/** An active production submerchant of `m` with a paid live card charge (Pagar.me fake) of R$ reais, settled. */
async function liveSubmerchant(reais = 500, m: SeededMerchant = master) {
  const sm = await createSubmerchant(t, m.productionKey);
  await activate(t, m.productionKey, sm.id);
  const key = await keyOf(t, m.productionKey, sm.id);
  const paid = await createCharge(t, key, cardCharge("4000000000000010", { amount: reais }));
  assert.equal(paid.status, "paid", "the fake pays this card");
  // Live money settles on its dates; the test moves them to now (the settlement job's own call).
  await t.services.ledger.settle({ dueBy: new Date(Date.now() + 400 * 86_400_000), environment: "production", owner: sm.id });
  const { available, pending } = await balanceOf(t, key);
  assert.ok(available > reais * 80 && pending === 0, `funded: ${available} available, ${pending} pending`);
  return { id: sm.id, key, cnpj: sm.companyTaxId, available };
}

async function livePayout(key: string, smId: string, amount = 10000) {
  const res = await call(t, "POST", `/v1/submerchants/${smId}/payout-requests`, key, { amount });
  expectStatus(res, 201);
  return res.json() as { id: string; status: string; netAmount: number; payoutFee: number; endToEndId: string | null; createdAt: string };
}

async function payoutAs(key: string, id: string) {
  const res = await call(t, "GET", `/v1/payout-requests/${id}`, key);
  expectStatus(res, 200);
  return res.json() as { status: string; endToEndId: string | null; processedAt: string | null };
}

test("a production payout is reserved and awaits the operator's transfer: no provider call, approval without an endToEndId is a 422 naming it, the admin list shows it with the CNPJ to pay", async () => {
  const sm = await liveSubmerchant(500);
  const calls = providerCalls();
  const p = await livePayout(sm.key, sm.id, 10000);
  assert.equal(p.status, "pending");
  assert.equal(p.endToEndId, null);
  assert.deepEqual(await balanceOf(t, sm.key), { available: sm.available - 10000, pending: 0 }, "reserved at once, as in the sandbox");

  for (const body of [undefined, {}]) {
    const res = await admin("POST", `/v1/admin/payout-requests/${p.id}/approve`, body);
    expectStatus(res, 422);
    assert.match(res.json().message, /^endToEndId is required/);
    // The CNPJ written as people read it (11.222.333/0001-81): 14 bare digits that pass Luhn would be masked as a card number.
    const cnpj = sm.cnpj.replace(/^(\d{2})(\d{3})(\d{3})(\d{4})(\d{2})$/, "$1.$2.$3/$4-$5");
    assert.ok(res.json().message.includes(`${p.netAmount} cents by Pix to CNPJ ${cnpj}`), res.json().message);
  }
  assert.equal((await payoutAs(sm.key, p.id)).status, "pending", "nothing was decided");
  assert.equal(providerCalls(), calls, "a payout never reaches the live provider");

  const listed = await admin("GET", "/v1/admin/payout-requests?status=pending&environment=production&size=100");
  expectStatus(listed, 200);
  const row = (listed.json().data as Record<string, unknown>[]).find((d) => d.id === p.id);
  assert.deepEqual(
    row && { environment: row.environment, masterId: row.masterId, pixKey: row.pixKey, pixKeyType: row.pixKeyType, netAmount: row.netAmount, status: row.status },
    { environment: "production", masterId: master.id, pixKey: sm.cnpj, pixKeyType: "cnpj", netAmount: 9700, status: "pending" },
  );
  const sandboxOnly = await admin("GET", "/v1/admin/payout-requests?environment=sandbox&size=100");
  expectStatus(sandboxOnly, 200);
  assert.ok(!sandboxOnly.body.includes(p.id), "the environment filter holds");
  const paged = await admin("GET", `/v1/admin/payout-requests?merchantId=${sm.id}&size=1&page=1`);
  expectStatus(paged, 200);
  assert.deepEqual({ total: paged.json().total, pages: paged.json().pages, size: paged.json().size, n: paged.json().data.length }, { total: 1, pages: 1, size: 1, n: 1 });
  for (const bad of ["?status=paid", "?environment=live", "?size=101", "?page=0", "?limit=5"]) {
    expectStatus(await admin("GET", `/v1/admin/payout-requests${bad}`), 422);
  }
});

test("the admin approves with the transfer's endToEndId: paid once (ledger, one payout.approved with the id to the submerchant), shown to merchant and admin; replays answer the same payout, another id or a reused one is 409", async () => {
  const sm = await liveSubmerchant(500);
  const endpoint = await call(t, "POST", "/v1/webhook-endpoints", sm.key, { url: `${receiver.url}/live-sub`, events: ["payout.approved", "payout.rejected"] });
  expectStatus(endpoint, 201);
  const p = await livePayout(sm.key, sm.id, 10000);
  const id = e2e();
  const calls = providerCalls();

  const approved = await approve(p.id, id);
  expectStatus(approved, 200);
  assert.equal(approved.json().status, "approved");
  assert.equal(approved.json().endToEndId, id);
  assert.ok(approved.json().processedAt);
  assert.equal(providerCalls(), calls, "the operator transferred: no provider call");

  // Replays: the same id answers the same payout and moves nothing again.
  for (let i = 0; i < 2; i++) {
    const again = await approve(p.id, id);
    expectStatus(again, 200);
    assert.deepEqual(again.json(), approved.json());
  }
  const other = await approve(p.id, e2e());
  expectStatus(other, 409);
  assert.match(other.json().message, new RegExp(`already approved with endToEndId ${id}`));
  expectStatus(await approve(p.id), 409);
  expectStatus(await admin("POST", `/v1/admin/payout-requests/${p.id}/reject`, { reason: "too late" }), 409);

  // One transfer pays one payout.
  const second = await livePayout(sm.key, sm.id, 5000);
  const reused = await approve(second.id, id);
  expectStatus(reused, 409);
  assert.match(reused.json().message, new RegExp(`endToEndId ${id} is already recorded on payout request ${p.id}`));
  assert.equal((await payoutAs(sm.key, second.id)).status, "pending");

  // Shown to the submerchant, its master, and the operator.
  assert.equal((await payoutAs(sm.key, p.id)).endToEndId, id);
  assert.equal((await payoutAs(master.productionKey, p.id)).endToEndId, id);
  const listed = await admin("GET", `/v1/admin/payout-requests?merchantId=${sm.id}&status=approved`);
  assert.deepEqual(listed.json().data.map((d: { id: string; endToEndId: string }) => [d.id, d.endToEndId]), [[p.id, id]]);

  // The ledger: the reserve left once (net paid out, fee to revenue); the second payout is still reserved.
  const moves = await queryRows<{ owner: string; account: string; n: string }>(t.database.db, sql`
    select owner, account, sum(amount)::text as n from ledger_entries where source_id = ${p.id} group by owner, account order by owner, account`);
  assert.deepEqual(moves.map((m) => [m.owner, m.account, Number(m.n)]), [
    ["platform", "fee_revenue", 300], ["platform", "paid_out", 9700], [sm.id, "available", -10000], [sm.id, "payout_reserved", 0],
  ]);
  assert.equal((await balanceOf(t, sm.key)).available, sm.available - 10000 - 5000);
  await assertLedgerInvariants(t);

  // One event, delivered once to the submerchant's endpoint, with the transfer's id.
  const events = await call(t, "GET", "/v1/events?type=payout.approved", sm.key);
  expectStatus(events, 200);
  assert.deepEqual(events.json().data.map((e: { objectId: string }) => e.objectId), [p.id]);
  await drainTasks(t.services.webhooks.tasks);
  const got = (await receiver.waitFor(1, 5_000)).filter((r) => r.path === "/live-sub");
  assert.equal(got.length, 1);
  const body = new Webhook(endpoint.json().secret).verify(got[0]!.body, got[0]!.headers as Record<string, string>) as { event: string; data: Record<string, unknown> };
  assert.equal(body.event, "payout.approved");
  assert.deepEqual(body.data, {
    id: p.id, merchantId: sm.id, amount: 10000, currency: "BRL", status: "approved", payoutFee: 300, netAmount: 9700,
    processedAt: approved.json().processedAt, endToEndId: id, reason: null,
  });
});

test("concurrent approvals: one id sent five times decides once; two payouts raced with one id, one wins and the other is 409", async () => {
  const sm = await liveSubmerchant(500);
  const p = await livePayout(sm.key, sm.id, 4000);
  const id = e2e();
  const same = await Promise.all(Array.from({ length: 5 }, () => approve(p.id, id)));
  assert.deepEqual(same.map((r) => r.statusCode), [200, 200, 200, 200, 200], same.map((r) => r.body).join("\n"));
  assert.equal(new Set(same.map((r) => r.json().processedAt)).size, 1, "one decision");
  const [count] = await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from events where object_id = ${p.id} and type = 'payout.approved'`);
  assert.equal(count!.n, "1");

  const a = await livePayout(sm.key, sm.id, 3000);
  const b = await livePayout(sm.key, sm.id, 3000);
  const shared = e2e();
  const raced = await Promise.all([approve(a.id, shared), approve(b.id, shared)]);
  assert.deepEqual(raced.map((r) => r.statusCode).sort(), [200, 409], raced.map((r) => r.body).join("\n"));
  const states = [(await payoutAs(sm.key, a.id)).status, (await payoutAs(sm.key, b.id)).status].sort();
  assert.deepEqual(states, ["approved", "pending"]);
  assert.equal((await balanceOf(t, sm.key)).available, sm.available - 4000 - 3000 - 3000);
  await assertLedgerInvariants(t);
});

test("an endToEndId not of the Pix shape is a 422 naming the field and the rule it breaks; the payout stays pending and reserved", async () => {
  const sm = await liveSubmerchant(200);
  const p = await livePayout(sm.key, sm.id, 5000);
  const before = await balanceOf(t, sm.key);
  const good = e2e();
  const at = (s: string) => good.slice(0, 9) + s + good.slice(21);
  const hours = (h: number) => new Date(Date.now() + h * 3_600_000);
  const cases: [unknown, RegExp][] = [
    ["", /endToEndId must be 32 characters .*got 0/],
    [good.slice(0, 31), /endToEndId must be 32 characters .*got 31/],
    [`${good}X`, /endToEndId must be 32 characters .*got 33/],
    [`e${good.slice(1)}`, /endToEndId must start with the letter E/],
    [`D${good.slice(1)}`, /endToEndId must start with the letter E/],
    [`E1823612A${good.slice(9)}`, /endToEndId characters 2 to 9 must be the 8-digit ISPB/],
    [at("202613011200"), /endToEndId characters 10 to 21 .*yyyyMMddHHmm; 202613011200 is not a real date and time/],
    [at("202602301200"), /endToEndId characters 10 to 21 .*202602301200 is not/],
    [at("202511252400"), /endToEndId characters 10 to 21 .*202511252400 is not/],
    [at("202511251260"), /endToEndId characters 10 to 21 .*202511251260 is not/],
    [at("2025112512a0"), /endToEndId characters 10 to 21/],
    [`${good.slice(0, 21)}abc-def_ghi`, /endToEndId characters 22 to 32 must be 11 letters or digits/],
    [`${good.slice(0, 21)}abcdéfghijk`, /endToEndId characters 22 to 32/],
    [e2e(hours(13)), /endToEndId is dated .* later than now/],
    [e2e(hours(-13)), /endToEndId is dated .* before the payout was requested/],
    [12345678901234567890, /endToEndId must be string/],
    ["E".repeat(65), /endToEndId must NOT have more than 64 characters/],
  ];
  for (const [value, message] of cases) {
    const res = await approve(p.id, value);
    expectStatus(res, 422);
    assert.match(res.json().message, message, `${JSON.stringify(value)}: ${res.body}`);
    assert.equal(res.json().code, "validation_failed");
  }
  const extra = await admin("POST", `/v1/admin/payout-requests/${p.id}/approve`, { endToEndId: good, amount: 1 });
  expectStatus(extra, 422);
  assert.match(extra.json().message, /amount is not a recognized field/);
  const misspelled = await admin("POST", `/v1/admin/payout-requests/${p.id}/approve`, { endToEndID: good });
  expectStatus(misspelled, 422);
  assert.match(misspelled.json().message, /endToEndID is not a recognized field/);
  // A leap day is a real date (the rule it breaks is the time one); 11 hours ahead is within the slack.
  const leap = await approve(p.id, at("202402291200"));
  expectStatus(leap, 422);
  assert.match(leap.json().message, /is dated 2024-02-29 12:00 UTC, before the payout was requested/);
  assert.equal((await payoutAs(sm.key, p.id)).status, "pending");
  assert.deepEqual(await balanceOf(t, sm.key), before);
  expectStatus(await approve(p.id, e2e(hours(11))), 200);
});

test("rejecting a live payout returns the money to the available balance; a rejected payout cannot then be approved", async () => {
  const sm = await liveSubmerchant(200);
  const p = await livePayout(sm.key, sm.id, 5000);
  assert.equal((await balanceOf(t, sm.key)).available, sm.available - 5000);
  const rejected = await admin("POST", `/v1/admin/payout-requests/${p.id}/reject`, { reason: "CNPJ has no Pix key at the bank" });
  expectStatus(rejected, 200);
  assert.deepEqual([rejected.json().status, rejected.json().endToEndId], ["rejected", null]);
  assert.equal((await balanceOf(t, sm.key)).available, sm.available);
  const late = await approve(p.id, e2e());
  expectStatus(late, 409);
  assert.match(late.json().message, /is rejected; only pending requests/);
  assert.equal((await balanceOf(t, sm.key)).available, sm.available);
  await assertLedgerInvariants(t);
});

test("a chargeback of the master's split charge first draws on the submerchant's pending live payout: rejected (balance_reversed, the reserve released) before the balance may go below zero; the operator's approval is then a 409", async () => {
  const sm = await liveSubmerchant(100);
  const shared = await createCharge(t, master.productionKey, cardCharge("4000000000000010", { amount: 200, split: [{ merchantId: sm.id, percentage: 50 }] }));
  assert.equal(shared.status, "paid");
  await t.services.ledger.settle({ dueBy: new Date(Date.now() + 400 * 86_400_000), environment: "production", owner: sm.id });
  const funded = (await balanceOf(t, sm.key)).available;
  const p = await livePayout(sm.key, sm.id, funded - 100);

  const [charge] = await queryRows<{ psp_ref_id: string }>(t.database.db, sql`select psp_ref_id from charges where id = ${shared.id}`);
  assert.equal(typeof pagarme.chargeback(charge!.psp_ref_id), "object");
  const notice = await t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { type: "charge.chargedback", data: { id: charge!.psp_ref_id } } });
  assert.equal(notice.statusCode, 200, notice.body);
  const [status] = await queryRows<{ status: string }>(t.database.db, sql`select status from charges where id = ${shared.id}`);
  assert.equal(status!.status, "charged_back");

  const read = (await call(t, "GET", `/v1/payout-requests/${p.id}`, sm.key)).json();
  assert.deepEqual([read.status, read.reason], ["rejected", "balance_reversed"]);
  // The share went back; the payout's reserve covered it, so the submerchant keeps its own sale.
  assert.equal((await balanceOf(t, sm.key)).available, sm.available);
  const late = await approve(p.id, e2e());
  expectStatus(late, 409);
  await assertLedgerInvariants(t);
});

test("a live payout and its endToEndId are seen only by its submerchant and master with production keys: other merchants, siblings and the sandbox get 404", async () => {
  const sm = await liveSubmerchant(200);
  const sibling = await liveSubmerchant(100);
  const p = await livePayout(sm.key, sm.id, 5000);
  const id = e2e();
  expectStatus(await approve(p.id, id), 200);
  const stranger = await seedMerchant(t, { connectEnabled: true });
  for (const key of [master.sandboxKey, sibling.key, stranger.productionKey, stranger.sandboxKey]) {
    expectStatus(await call(t, "GET", `/v1/payout-requests/${p.id}`, key), 404);
    const list = await call(t, "GET", "/v1/payout-requests?size=100", key);
    if (list.statusCode === 200) assert.ok(!list.body.includes(p.id) && !list.body.includes(id), `listed to another: ${list.body.slice(0, 200)}`);
  }
  const own = await call(t, "GET", `/v1/payout-requests?status=approved&size=100`, sm.key);
  assert.deepEqual(own.json().data.map((d: { endToEndId: string }) => d.endToEndId), [id]);
});

test("only the operator's admin key approves or lists: merchant keys, submerchant keys and no key get 401, and nothing changes", async () => {
  const sm = await liveSubmerchant(200);
  const p = await livePayout(sm.key, sm.id, 5000);
  for (const key of [master.productionKey, sm.key, master.sandboxKey, null]) {
    expectStatus(await call(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`, key, { endToEndId: e2e() }), 401);
    expectStatus(await call(t, "GET", "/v1/admin/payout-requests", key), 401);
  }
  const read = await payoutAs(sm.key, p.id);
  assert.deepEqual([read.status, read.endToEndId], ["pending", null]);
});

test("sandbox: without a body the simulator transfers (202 sending) and gives its own endToEndId; with one the admin's transfer is recorded instead (no simulator call); ids are unique per environment", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, sm.id);
  const key = await keyOf(t, master.sandboxKey, sm.id);
  assert.equal((await createCharge(t, key, cardCharge("4111111111111111", { amount: 300 }))).status, "paid");
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  const simulated = await livePayout(key, sm.id, 5000);
  // approve and reject share the body {reason?}: an approval takes it and does not store it.
  const bySimulator = await admin("POST", `/v1/admin/payout-requests/${simulated.id}/approve`, { reason: "weekly payout" });
  expectStatus(bySimulator, 202);
  const sent = await decidedTransfer(t, simulated.id, sm.id);
  assert.equal(sent.reason, null);
  assert.match(String(sent.endToEndId), /^E99999999\d{12}[A-Za-z0-9]{11}$/);

  const manual = await livePayout(key, sm.id, 5000);
  const id = e2e();
  const recorded = await approve(manual.id, id);
  expectStatus(recorded, 200);
  assert.equal(recorded.json().endToEndId, id);
  const [record] = await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from sandbox_processor_records where key = ${`payout:${manual.id.replace("_", "")}`}`);
  assert.equal(record!.n, "0", "the simulator was not asked");
  // The same id in production is another world's transfer.
  const live = await liveSubmerchant(200);
  const lp = await livePayout(live.key, live.id, 5000);
  expectStatus(await approve(lp.id, id), 200);
});
