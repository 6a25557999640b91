import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { signIn, type PanelClient } from "./panel-client.js";

// A charge in the panel as its reader needs it: the CSV says who paid, the timeline starts with
// charge.created, and what the API refuses is said in the page's language with its figures in
// the page's money format.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;

async function cardCharge(amount: number, customer: { name: string; email: string }, cpf = "529.982.247-25") {
  const res = await t.app.inject({
    method: "POST", url: "/v1/charges", headers: { authorization: basic(m.sandboxKey), "idempotency-key": `k-${Math.random()}` },
    payload: {
      amount, currency: "BRL", customer: { ...customer, document: { type: "cpf", id: cpf } },
      paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "ANA SOUZA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
    },
  });
  expectStatus(res, 201);
  return res.json() as { id: string };
}

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

test("the CSV export has the customer's name and e-mail on each charge", async () => {
  const ana = await cardCharge(42, { name: "Ana, \"Souza\"", email: "ana.csv@example.com" });
  const bia = await cardCharge(43, { name: "Beatriz Lima", email: "bia.csv@example.com" }, "111.444.777-35");
  const csv = await c.get("/panel/charges.csv");
  expectStatus(csv, 200);
  const [header, ...rows] = csv.body.trim().split("\r\n");
  assert.deepEqual(header!.split(",").slice(6, 9), ["customer_id", "customer_name", "customer_email"]);
  assert.ok(rows.some((r) => r.startsWith(`${ana.id},`) && /,cus_\w+,"Ana, ""Souza""",ana\.csv@example\.com,/.test(r)), csv.body);
  assert.ok(rows.some((r) => r.startsWith(`${bia.id},`) && /,cus_\w+,Beatriz Lima,bia\.csv@example\.com,/.test(r)), csv.body);
});

test("the timeline lists charge.created before charge.paid, recorded in the same statement", async () => {
  // Several charges: with one, the order of two events of one timestamp could be right by chance.
  for (let i = 0; i < 4; i++) {
    const ch = await cardCharge(10 + i, { name: "Ana Souza", email: "ana.timeline@example.com" });
    const page = await c.get(`/panel/charges/${ch.id}`);
    expectStatus(page, 200);
    const timeline = page.body.slice(page.body.indexOf('id="tl-title"'));
    const types = [...timeline.matchAll(/<code>(charge\.[a-z_.]+)<\/code>/g)].map((x) => x[1]);
    assert.deepEqual(types, ["charge.created", "charge.paid"], ch.id);
  }
});

test("a refund above what is left is refused in the page's language, with the amount in its money format", async () => {
  const ch = await cardCharge(100, { name: "Ana Souza", email: "ana.refund@example.com" });
  expectStatus(await c.post(`/panel/charges/${ch.id}/refund`, { mode: "partial", amount: "30" }), 303);
  // The API says it in English with its code; the panel says it from the code, not the message.
  const api = await t.app.inject({ method: "POST", url: `/v1/charges/${ch.id}/refund`, headers: { authorization: basic(m.sandboxKey) }, payload: { amount: 80 } });
  expectStatus(api, 422);
  assert.equal(api.json().code, "refund_exceeds_refundable");

  const english = await c.post(`/panel/charges/${ch.id}/refund`, { mode: "partial", amount: "80" });
  assert.equal(english.statusCode, 422);
  assert.match(english.body, /id="f-amount-error">The amount is more than is left to refund \(R\$70\.00\)\.</);

  await c.post("/panel/language", { lang: "pt-BR", back: `/panel/charges/${ch.id}` });
  await c.get(`/panel/charges/${ch.id}`);
  const portuguese = await c.post(`/panel/charges/${ch.id}/refund`, { mode: "partial", amount: "80,00" });
  assert.equal(portuguese.statusCode, 422);
  assert.match(portuguese.body, /id="f-amount-error">O valor é maior que o que resta para reembolsar \(R\$\u00a070,00\)\.</);
  assert.doesNotMatch(portuguese.body, /refundable rest|70\.00 BRL/);
  await c.post("/panel/language", { lang: "en", back: "/panel" });
  assert.equal((await t.app.inject({ url: `/v1/charges/${ch.id}`, headers: { authorization: basic(m.sandboxKey) } })).json().amountRefunded, 30);
});
