import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { activate, admin, call, createSubmerchant, decidedTransfer, FEES, keyOf, seedMaster } from "../connect/helpers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// The master's payouts page and its submerchant's page show a payout's Pix transfer: "Sending"
// while the processor sends it, then "Sent" with the end-to-end id that paid it.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
before(async () => {
  t = await buildTestApp();
  m = await seedMaster(t, FEES);
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

test("payouts page and submerchant page: transfer Sending, then Sent with its end-to-end id", async () => {
  const sm = await createSubmerchant(t, m.sandboxKey);
  await activate(t, m.sandboxKey, sm.id);
  const key = await keyOf(t, m.sandboxKey, sm.id);
  const charge = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount: 200 }));
  expectStatus(charge, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${charge.json().id}/pay`, key), 200);
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  const p = await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, key, { amount: 5000 });
  expectStatus(p, 201);
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${p.json().id}/approve`), 202);

  for (const url of ["/panel/connect/payouts", `/panel/connect/${sm.id}`]) {
    const page = await c.get(url);
    expectStatus(page, 200);
    assert.match(page.body, /<th scope="col">Pix transfer<\/th>/, url);
    assert.match(page.body, /<span class="badge s-sending">Sending<\/span>/, url);
  }
  const done = await decidedTransfer(t, p.json().id, sm.id);
  for (const url of ["/panel/connect/payouts", `/panel/connect/${sm.id}`]) {
    const page = await c.get(url);
    assert.match(page.body, /<span class="badge s-sent">Sent<\/span> <code>E99999999/, url);
    assert.ok(page.body.includes(`<code>${String(done.endToEndId)}</code>`), url);
  }
});
