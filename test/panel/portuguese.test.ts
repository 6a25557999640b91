import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectStatus, type SeededMerchant } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { buildWebhookTestApp, settle, type WebhookTestApp } from "../webhooks/harness.js";
import { activate, admin, call, createSubmerchant, FEES, seedMaster } from "../connect/helpers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// The panel in Portuguese says everything in Portuguese: the codes a person meets as "why"
// (a refused card, a dispute's reason, a payout's rejection) in words, counts in singular or
// plural, no "Subseller"; lists name the buyer; a submerchant's page has its name and the status
// notifications that reached its postback URL.

let t: WebhookTestApp;
let m: SeededMerchant;
let c: PanelClient;
let receiver: Receiver;
const PT = { "accept-language": "pt-BR" };

/** English that leaked into Portuguese pages before: codes shown raw, "(s)" plurals, the English "Subseller". */
const LEAKS = [
  "insufficient_funds", "card_declined", "product_not_received", "fraudulent", "balance_reversed", "Subseller", "subseller",
  "(s)", "No deliveries yet", "Submerchant", "Customer", "Reason", "Disputes", "Status notifications",
];

/** The page's visible text: no tags, attributes, scripts, nor code spans (ids and event types are code). */
const visibleText = (body: string) => body.replace(/<(script|style|code)[^>]*>[\s\S]*?<\/\1>/g, " ").replace(/<[^>]+>/g, " ").replace(/&[a-z#0-9]+;/g, " ");

async function charge(card: string, customer = { name: "Beatriz Nogueira", email: "beatriz.nogueira@example.com" }) {
  const res = await call(t, "POST", "/v1/charges", m.sandboxKey, {
    amount: 80, currency: "BRL", customer: { ...customer, document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: card, holderName: "BEATRIZ NOGUEIRA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
  });
  expectStatus(res, 201);
  return res.json() as { id: string; status: string };
}

let refused: { id: string };
let disputeId: string;
let smId: string;

before(async () => {
  receiver = await startReceiver();
  t = await buildWebhookTestApp({ noWorkerProcesses: "the test runs the delivery task to see the notification delivered" });
  m = await seedMaster(t, FEES);
  c = await signIn(t, m.email, m.password);
  refused = await charge("4000000000009995");
  assert.equal((await call(t, "GET", `/v1/charges/${refused.id}`, m.sandboxKey)).json().failureReason, "insufficient_funds");
  const paid = await charge("4111111111111111", { name: "Rafael Antunes", email: "rafael.antunes@example.com" });
  const dispute = await call(t, "POST", `/v1/sandbox/charges/${paid.id}/dispute`, m.sandboxKey, { reason: "product_not_received" });
  expectStatus(dispute, 201);
  disputeId = dispute.json().id;
  const sm = await createSubmerchant(t, m.sandboxKey, { tradeName: "Empório Vale Verde", postbackUrl: `${receiver.url}/status` });
  smId = sm.id;
  await activate(t, m.sandboxKey, smId);
  await settle(t);
  await receiver.waitFor(1);
});
after(async () => {
  await t?.close();
  await receiver?.close();
});

test("a submerchant's page shows its name and the status notification delivered to its postback URL", async () => {
  assert.equal(receiver.requests[0]!.path, "/status");
  assert.equal(JSON.parse(receiver.requests[0]!.body).status, "active");
  const page = await c.get(`/panel/connect/${smId}`, PT);
  expectStatus(page, 200);
  assert.match(page.body, /<h1>Empório Vale Verde<\/h1>/);
  const notices = /<h2 id="notif">[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? "";
  assert.match(notices, /submerchant\.status_changed/, notices);
  assert.match(notices, /<span class="badge s-delivered">Entregue<\/span>/, notices);
  assert.match(notices, /HTTP 200/);
  assert.doesNotMatch(notices, /Nenhuma entrega ainda/);
});

test("lists name the buyer: charges, disputes, subscriptions", async () => {
  const charges = await c.get("/panel/charges", PT);
  assert.match(charges.body, /<td data-label="Cliente">Beatriz Nogueira<br><span class="muted">beatriz\.nogueira@example\.com<\/span><\/td>/);
  const disputes = await c.get("/panel/disputes", PT);
  assert.ok(disputes.body.includes(`<a href="/panel/disputes/${disputeId}">Rafael Antunes</a><br><span class="muted">rafael.antunes@example.com</span>`), "the dispute is named by its buyer");
});

test("pt-BR pages: reasons in words, singular and plural, no English left", async () => {
  const pages: Record<string, string> = {};
  for (const url of ["/panel", "/panel/charges", `/panel/charges/${refused.id}`, "/panel/disputes", `/panel/disputes/${disputeId}`, "/panel/connect", `/panel/connect/${smId}`, "/panel/connect/payouts", "/panel/developers", "/panel/settings"]) {
    const res = await c.get(url, PT);
    expectStatus(res, 200);
    pages[url] = visibleText(res.body);
    const found = LEAKS.filter((w) => pages[url]!.includes(w));
    assert.deepEqual(found, [], `${url} in Portuguese shows English: ${found.join(", ")}`);
  }
  assert.match(pages[`/panel/charges/${refused.id}`]!, /Saldo insuficiente/);
  assert.match(pages[`/panel/disputes/${disputeId}`]!, /Produto não recebido/);
  assert.match(pages["/panel/disputes"]!, /Faltam 6 dias/);
  assert.match(pages["/panel"]!, /1 disputa aguarda resposta/);
  assert.match(pages["/panel"]!, /1 cobrança paga/, "one paid charge today, in the singular");
  assert.match(pages["/panel/developers"]!, /0 endpoints neste ambiente/, "zero takes the plural");
  assert.match(pages["/panel/connect"]!, /Vendedores \(1\)/);

  // The same in English, singular too.
  const home = visibleText((await c.get("/panel")).body);
  assert.match(home, /1 dispute needs a response/);
  assert.match(home, /1 paid charge\b/);
  const detail = visibleText((await c.get(`/panel/charges/${refused.id}`)).body);
  assert.match(detail, /Insufficient funds/);
});

test("a payout rejected for a reversed balance says so in words", async () => {
  // A second active submerchant with a settled sale, whose payout the operator rejects with the code.
  const sm = await createSubmerchant(t, m.sandboxKey, { tradeName: "Casa Aurora" });
  await activate(t, m.sandboxKey, sm.id);
  const keys = await call(t, "GET", `/v1/submerchants/${sm.id}/api-keys`, m.sandboxKey);
  const key = keys.json().keys[0].key as string;
  const sale = await call(t, "POST", "/v1/charges", key, { amount: 200, currency: "BRL", customer: { name: "Ana", email: "ana@example.com", document: { type: "cpf", id: "529.982.247-25" } }, paymentMethod: { type: "pix" } });
  expectStatus(sale, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${sale.json().id}/pay`, key), 200);
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  const payout = await call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, key, { amount: 1000 });
  expectStatus(payout, 201);
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${payout.json().id}/reject`, { reason: "balance_reversed" }), 200);
  const page = visibleText((await c.get("/panel/connect/payouts", PT)).body);
  assert.match(page, /Recusado\s+O saldo foi retomado \(reembolso ou disputa\)/);
  assert.match(page, /Casa Aurora/, "the payout names its submerchant");
  assert.doesNotMatch(page, /balance_reversed/);
});
