import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import type { RouteTable } from "../../src/processors/routing.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { cardCharge, createCharge, methodCharge, post } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "./live-shared.js";

// Production charges over HTTP against the fakes, which check documents as the providers do:
// a document reaches a provider as stored (an alphanumeric CNPJ keeps its letters, a passport
// too), under the provider's type for it; a type the provider does not take (an RG) is left out
// of a card charge, and a method that needs a document is refused first, naming it.

type Obj = Record<string, any>;
interface World { t: TestApp; key: string }
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
// Every method through one provider, in two apps that share the fakes.
let viaPagarme: World;
let viaMercadoPago: World;

async function world(routes: RouteTable): Promise<World> {
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes, timeoutMs: 5_000,
      processors: fakeAccounts(pagarme, mercadopago),
    },
  });
  return { t, key: (await seedMerchant(t)).productionKey };
}

before(async () => {
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  viaPagarme = await world({ credit_card: ["pagarme"], pix: ["pagarme"], boleto: ["pagarme"] });
  viaMercadoPago = await world({ credit_card: ["mercadopago"], pix: ["mercadopago"], boleto: ["mercadopago"] });
});
after(async () => {
  await Promise.all([viaPagarme.t.close(), viaMercadoPago.t.close()]);
  await Promise.all([pagarme.close(), mercadopago.close()]);
});

const address = { country: "BR", postalCode: "01310-100", street: "Avenida Paulista", number: "1000", neighborhood: "Bela Vista", city: "São Paulo", state: "SP" };
const buyer = (document: { type: string; id: string }) => ({ name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document, address });
// The Receita Federal's example of an alphanumeric CNPJ, typed with its mask and in lower case.
const ALPHANUMERIC_CNPJ = { type: "cnpj", id: "12.abc.345/01de-35" };
const RG = { type: "rg", id: "12.345.678-9" };

/** The bodies a fake received since `from` on a route ("POST /orders", "POST /v1/payments"). */
const sent = (fake: FakePagarme | FakeMercadoPago, route: string, from = 0): Obj[] =>
  fake.requests.slice(from).filter((r) => r.route === route).map((r) => JSON.parse(r.body) as Obj);
const orderCustomer = (chargeId: string) => sent(pagarme, "POST /orders").find((o) => o.code === chargeId)?.customer as Obj;
const mpPayer = (chargeId: string) => sent(mercadopago, "POST /v1/payments").find((p) => p.external_reference === chargeId)?.payer as Obj;

/** A card charge through Mercado Pago with a document it does not take: paid, no identification in the token or the payment. */
async function paidAtMercadoPagoWithout(document: { type: string; id: string }): Promise<void> {
  const from = mercadopago.requests.length;
  const charge = await createCharge(viaMercadoPago.t, viaMercadoPago.key, cardCharge("4000000000000010", { customer: buyer(document) }));
  assert.equal(charge.status, "paid", JSON.stringify(charge));
  assert.equal(mpPayer(charge.id).identification, undefined);
  assert.equal(sent(mercadopago, "POST /v1/card_tokens", from)[0]?.cardholder.identification, undefined);
}

test("an alphanumeric CNPJ reaches Pagar.me and Mercado Pago with its letters, as a company's CNPJ", async () => {
  const boleto = await createCharge(viaPagarme.t, viaPagarme.key, methodCharge({ type: "boleto" }, { customer: buyer(ALPHANUMERIC_CNPJ) }));
  assert.equal(boleto.status, "pending", JSON.stringify(boleto));
  const customer = orderCustomer(boleto.id);
  assert.deepEqual([customer.document, customer.document_type, customer.type], ["12ABC34501DE35", "CNPJ", "company"]);

  // A stored customer's document goes the same way.
  const stored = await post(viaPagarme.t, viaPagarme.key, "/v1/customers", { name: "Padaria Alfa", email: "alfa@example.com", documentId: ALPHANUMERIC_CNPJ.id, documentType: "cnpj" });
  expectStatus(stored, 201);
  const byId = await createCharge(viaPagarme.t, viaPagarme.key, methodCharge({ type: "boleto" }, { customer: { id: stored.json().id } }));
  assert.equal(orderCustomer(byId.id).document, "12ABC34501DE35");

  const mp = await createCharge(viaMercadoPago.t, viaMercadoPago.key, methodCharge({ type: "boleto" }, { customer: buyer(ALPHANUMERIC_CNPJ) }));
  assert.equal(mp.status, "pending", JSON.stringify(mp));
  assert.deepEqual(mpPayer(mp.id).identification, { type: "CNPJ", number: "12ABC34501DE35" });
});

test("a passport keeps its letters at Pagar.me; Mercado Pago, which takes none, gets the card payment without it", async () => {
  const passport = { type: "passport", id: "ab1234567" };
  const card = await createCharge(viaPagarme.t, viaPagarme.key, cardCharge("4000000000000010", { customer: buyer(passport) }));
  assert.equal(card.status, "paid", JSON.stringify(card));
  const customer = orderCustomer(card.id);
  assert.deepEqual([customer.document, customer.document_type, customer.type], ["AB1234567", "PASSPORT", "individual"]);
  const pix = await createCharge(viaPagarme.t, viaPagarme.key, methodCharge({ type: "pix" }, { customer: buyer(passport) }));
  assert.equal(orderCustomer(pix.id).document, "AB1234567");

  await paidAtMercadoPagoWithout(passport);
});

test("an RG on a boleto (or a Pix through Pagar.me) is a 422 naming customer.document, before any provider call", async () => {
  const cases: [World, string][] = [[viaPagarme, "boleto"], [viaPagarme, "pix"], [viaMercadoPago, "boleto"]];
  for (const [w, type] of cases) {
    const before = pagarme.requests.length + mercadopago.requests.length;
    const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type }, { customer: buyer(RG) }));
    expectStatus(res, 422);
    assert.match(res.json().message, /^customer\.document of type rg cannot pay a (boleto|pix)/, res.body);
    assert.equal(pagarme.requests.length + mercadopago.requests.length, before, `${type}: no provider was called`);
  }
});

test("an RG on a card charge is sent without a document, and the charge is paid", async () => {
  const viaP = await createCharge(viaPagarme.t, viaPagarme.key, cardCharge("4000000000000010", { customer: buyer(RG) }));
  assert.equal(viaP.status, "paid", JSON.stringify(viaP));
  const customer = orderCustomer(viaP.id);
  assert.deepEqual([customer.document, customer.document_type, customer.type], [undefined, undefined, "individual"]);

  await paidAtMercadoPagoWithout(RG);
});

test("the buyer's address reaches the provider: a Mercado Pago boleto, which needs it, is made over HTTP", async () => {
  const mp = await createCharge(viaMercadoPago.t, viaMercadoPago.key, methodCharge({ type: "boleto" }, { customer: buyer({ type: "cpf", id: "529.982.247-25" }) }));
  assert.equal(mp.status, "pending", JSON.stringify(mp));
  const payer = mpPayer(mp.id);
  assert.deepEqual(payer.identification, { type: "CPF", number: "52998224725" });
  assert.deepEqual(payer.address, { zip_code: "01310100", street_name: "Avenida Paulista", street_number: "1000", neighborhood: "Bela Vista", city: "São Paulo", federal_unit: "SP" });
});
