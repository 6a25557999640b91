import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, expectStatus } from "../helpers/app.js";
import { cardCharge, createCharge } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakesApp } from "./live-shared.js";

// What a live card charge carries to Pagar.me and Mercado Pago beyond the card: the merchant's
// soft descriptor (their statement_descriptor, within each one's documented length, which the
// fakes enforce) and, for installments the buyer pays, the total with interest.

type Obj = Record<string, any>;
type World = Awaited<ReturnType<typeof fakesApp>>;
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let viaPagarme: World;
let viaMercadoPago: World;

before(async () => {
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  viaPagarme = await fakesApp(pagarme, mercadopago, { credit_card: ["pagarme"] });
  viaMercadoPago = await fakesApp(pagarme, mercadopago, { credit_card: ["mercadopago"] });
});
after(async () => {
  await Promise.all([viaPagarme.t.close(), viaMercadoPago.t.close()]);
  await Promise.all([pagarme.close(), mercadopago.close()]);
});

const sent = (fake: FakePagarme | FakeMercadoPago, route: string): Obj[] =>
  fake.requests.filter((r) => r.route === route).map((r) => JSON.parse(r.body) as Obj);
const order = (chargeId: string) => sent(pagarme, "POST /orders").find((o) => o.code === chargeId)!;
const payment = (chargeId: string) => sent(mercadopago, "POST /v1/payments").find((p) => p.external_reference === chargeId)!;

async function setDescriptor(w: World, softDescriptor: string | null): Promise<void> {
  const res = await w.t.app.inject({ method: "PATCH", url: "/v1/merchant", headers: { authorization: basic(w.key) }, payload: { softDescriptor } });
  expectStatus(res, 200);
}

test("the merchant's soft descriptor reaches Pagar.me's credit_card.statement_descriptor and Mercado Pago's statement_descriptor", async () => {
  await setDescriptor(viaPagarme, "PADARIA AUROR");
  const viaP = await createCharge(viaPagarme.t, viaPagarme.key, cardCharge("4000000000000010"));
  assert.equal(viaP.status, "paid", JSON.stringify(viaP));
  assert.equal(order(viaP.id).payments[0].credit_card.statement_descriptor, "PADARIA AUROR");

  await setDescriptor(viaMercadoPago, "LOJA EXEMPLO");
  const viaM = await createCharge(viaMercadoPago.t, viaMercadoPago.key, cardCharge("4000000000000010"));
  assert.equal(viaM.status, "paid", JSON.stringify(viaM));
  assert.equal(payment(viaM.id).statement_descriptor, "LOJA EXEMPLO");

  // None set: none sent (the provider then uses the account's own).
  await setDescriptor(viaPagarme, null);
  const none = await createCharge(viaPagarme.t, viaPagarme.key, cardCharge("4000000000000010"));
  assert.equal("statement_descriptor" in order(none.id).payments[0].credit_card, false);
});

test("the fakes refuse a statement_descriptor past each provider's documented length", async () => {
  const card = { number: "4000000000000010", holder_name: "MARIA SILVA", exp_month: 12, exp_year: 2030, cvv: "123" };
  const tooLongP = await fetch(`${pagarme.url}/orders`, {
    method: "POST", headers: { authorization: `Basic ${Buffer.from(`${pagarme.secretKey}:`).toString("base64")}`, "content-type": "application/json" },
    body: JSON.stringify({ items: [{ amount: 100, description: "x", quantity: 1 }], customer: { name: "Maria" }, payments: [{ payment_method: "credit_card", credit_card: { statement_descriptor: "A".repeat(14), card } }] }),
  });
  assert.equal(tooLongP.status, 422, await tooLongP.text());
  const tooLongM = await fetch(`${mercadopago.url}/v1/payments`, {
    method: "POST", headers: { authorization: `Bearer ${mercadopago.accessToken}`, "content-type": "application/json", "x-idempotency-key": "descriptor-too-long" },
    body: JSON.stringify({ transaction_amount: 1, payment_method_id: "visa", token: "t", installments: 1, statement_descriptor: "A".repeat(23), payer: { email: "maria@example.com" } }),
  });
  assert.equal(tooLongM.status, 400, await tooLongM.text());
});

test("installments the buyer pays: Pagar.me and Mercado Pago are asked for the total with interest, in the installments chosen", async () => {
  for (const [w, amountSent] of [
    [viaPagarme, (id: string) => order(id).items[0].amount / 100],
    [viaMercadoPago, (id: string) => payment(id).transaction_amount],
  ] as const) {
    const put = await w.t.app.inject({ method: "PUT", url: "/v1/settings/installments", headers: { authorization: basic(w.key) }, payload: { maxInstallments: 12, interestFreeInstallments: 1, monthlyInterestPercent: 2.5 } });
    expectStatus(put, 200);
    const made = await createCharge(w.t, w.key, cardCharge("4000000000000010", { amount: 200 }, { installments: 6 }));
    assert.equal(made.status, "paid", JSON.stringify(made));
    const c = (await w.t.app.inject({ method: "GET", url: `/v1/charges/${made.id}`, headers: { authorization: basic(w.key) } })).json();
    // R$ 200,00 at 2.5 % a month in 6: PMT 36.3099... (computed apart), 6 x PMT = 217.859...
    assert.deepEqual([c.amount, c.totalAmount, c.installmentAmount], [200, 217.86, 36.31]);
    assert.equal(amountSent(made.id), 217.86);
  }
  assert.equal(order((await createCharge(viaPagarme.t, viaPagarme.key, cardCharge("4000000000000010", { amount: 200 }, { installments: 6 }))).id).payments[0].credit_card.installments, 6);
});
