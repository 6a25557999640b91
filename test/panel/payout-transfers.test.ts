import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { admin, decidedTransfer, FEES, sandboxPayout, seedMaster } from "../connect/helpers.js";
import { advanceClock, sandboxSale, sandboxSeller } from "../connect/sandbox-sellers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// The master's payouts page and its submerchant's page show a payout's Pix transfer: "Sending"
// while the processor sends it, then "Sent" with the end-to-end id that paid it; and who pays it:
// feira, or the processor (provider settlement), whose transfer is a record nobody decides.

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
  const p = await sandboxPayout(t, m.sandboxKey, 5000);
  const sm = { id: p.smId };
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`), 202);

  for (const url of ["/panel/connect/payouts", `/panel/connect/${sm.id}`]) {
    const page = await c.get(url);
    expectStatus(page, 200);
    assert.match(page.body, /<th scope="col">Pix transfer<\/th>/, url);
    assert.match(page.body, /<span class="badge s-sending">Sending<\/span>/, url);
  }
  const done = await decidedTransfer(t, p.id, sm.id);
  for (const url of ["/panel/connect/payouts", `/panel/connect/${sm.id}`]) {
    const page = await c.get(url);
    assert.match(page.body, /<span class="badge s-sent">Sent<\/span> <code>E99999999/, url);
    assert.ok(page.body.includes(`<code>${String(done.endToEndId)}</code>`), url);
  }
});

test("payouts page and submerchant page: who pays, feira or the processor; a processor's transfer is a read-only record", async () => {
  const own = await sandboxPayout(t, m.sandboxKey, 5000);
  // Another master (the test clock is per master) in provider settlement: the simulator's transfer on the next day.
  const other = await seedMaster(t, FEES);
  const seller = await sandboxSeller(t, other, { interval: "daily" });
  await sandboxSale(t, seller);
  await advanceClock(t, other, 1);
  const oc = await signIn(t, other.email, other.password);

  for (const url of ["/panel/connect/payouts", `/panel/connect/${own.smId}`]) {
    const page = await c.get(url);
    expectStatus(page, 200);
    assert.match(page.body, /<span class="muted">Through feira<\/span>/, url);
    assert.doesNotMatch(page.body, /Made by the processor/, url);
  }
  for (const url of ["/panel/connect/payouts", `/panel/connect/${seller.id}`]) {
    const page = await oc.get(url);
    expectStatus(page, 200);
    assert.match(page.body, /<span class="badge s-approved">Approved<\/span><br><span class="muted">Made by the processor · read-only<\/span>/, url);
    assert.match(page.body, /<span class="badge s-sent">Sent<\/span>/, url);
    assert.doesNotMatch(page.body, /(action|formaction|href)="[^"]*\/(approve|reject)"/, `${url}: nothing to decide`);
  }
});
