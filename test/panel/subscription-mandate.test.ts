import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { call, createPlan, subscribe } from "../subscriptions/helpers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// A Pix Automático subscription's page in the panel shows its mandate: the status, the journey,
// the maximum per period and the retry policy, and while the payer has not approved it, the QR
// code to send them; approved, the QR is gone; cancelled in the bank app, it says by whom. A card
// subscription has no such section.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

const section = (body: string) => /<section class="card" aria-labelledby="md">[\s\S]*?<\/section>/.exec(body)?.[0] ?? "";

test("the subscription page shows the mandate, its QR code while pending, and who cancelled it", async () => {
  const plan = await createPlan(t, m.sandboxKey, { price: 49.9 });
  const sub = (await subscribe(t, m.sandboxKey, { planId: plan.id, paymentMethod: { type: "pix_automatico", retryPolicy: "none" } })) as unknown as { id: string; mandate: { id: string; qrCode: string } };

  const pending = await c.get(`/panel/subscriptions/${sub.id}`);
  expectStatus(pending, 200);
  const shown = section(pending.body);
  assert.match(shown, /Pix Automático mandate/);
  assert.match(shown, /class="badge s-pending">Awaiting the payer</);
  assert.ok(shown.includes(sub.mandate.id));
  assert.match(shown, /journey 3/);
  assert.match(shown, /49[.,]90/);
  assert.match(shown, /Not retried/);
  assert.match(shown, /<figure class="qr"><div role="img" aria-label="QR code for the payer[^"]*"><svg /);
  assert.ok(shown.includes(`value="${sub.mandate.qrCode}"`), "the copy-and-paste code");

  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${sub.mandate.id}/approve`), 200);
  const active = section((await c.get(`/panel/subscriptions/${sub.id}`)).body);
  assert.match(active, /class="badge s-active">Active</);
  assert.doesNotMatch(active, /<svg|mandate-qr/);

  // The next period's debit is issued 5 days before its due date: the charges list finds it by its method (shown under its amount).
  await call(t, m.sandboxKey, "POST", "/v1/sandbox/clock/advance", { days: 28 });
  const listed = await c.get("/panel/charges?paymentMethod=pix_automatico");
  expectStatus(listed, 200);
  assert.match(listed.body, /<option value="pix_automatico" selected>Pix Automático<\/option>/);
  assert.equal([...listed.body.matchAll(/<td data-label="Amount">[^<]+<br><span class="muted">Pix Automático<\/span><\/td>/g)].length, 1, "the period's debit, and only it");

  expectStatus(await call(t, m.sandboxKey, "POST", `/v1/sandbox/mandates/${sub.mandate.id}/cancel`), 200);
  const cancelled = section((await c.get(`/panel/subscriptions/${sub.id}`, { "accept-language": "pt-BR" })).body);
  assert.match(cancelled, /Autorização do Pix Automático/);
  assert.match(cancelled, /Cancelada por/);
  assert.match(cancelled, /O pagador, no app do banco/);

  const card = await subscribe(t, m.sandboxKey, { planId: plan.id });
  assert.equal(section((await c.get(`/panel/subscriptions/${card.id}`)).body), "", "a card subscription has no mandate");
});

