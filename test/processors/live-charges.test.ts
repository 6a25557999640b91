import { test } from "node:test";
import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS, type LiveProcessorConfig } from "../../src/config.js";
import { findCharge } from "../../src/modules/charges/charges.repo.js";
import type { RouteTable } from "../../src/processors/routing.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { cardCharge, createCharge, get, methodCharge, post } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "./live-shared.js";

// Production keys over HTTP against the local fakes of Pagar.me and Mercado Pago: the route
// table picks the adapter, the charge records which one served it, a method with no route is
// refused before any provider call, and a second processor is tried only when the first
// provably made nothing.

interface Live {
  t: TestApp;
  pagarme: FakePagarme;
  mercadopago: FakeMercadoPago;
  key: string;
  merchantId: string;
  close(): Promise<void>;
}

async function live(routes: RouteTable, over: Partial<LiveProcessorConfig> = {}): Promise<Live> {
  const [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes,
      processors: fakeAccounts(pagarme, mercadopago),
      timeoutMs: 5_000,
      ...over,
    },
  });
  const m = await seedMerchant(t);
  return {
    t, pagarme, mercadopago, key: m.productionKey, merchantId: m.id,
    async close() {
      await Promise.all([pagarme.setFault("none"), mercadopago.setFault("none")]);
      await t.close();
      await Promise.all([pagarme.close(), mercadopago.close()]);
    },
  };
}

const served = async (w: Live, id: string) => (await findCharge(w.t.database.db, { merchantId: w.merchantId, environment: "production" }, id))!;
const posts = (fake: { requests: { method: string }[] }) => fake.requests.filter((r) => r.method !== "GET").length;
const pixCustomer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" } };

test("a production card charge through Pagar.me: paid, or declined with the mapped reason and the provider's code", async () => {
  const w = await live({ credit_card: ["pagarme"], pix: ["mercadopago"] });
  try {
    const paid = await createCharge(w.t, w.key, cardCharge("4000000000000010"));
    assert.equal(paid.status, "paid");
    const row = await served(w, paid.id);
    assert.equal(row.processor, "pagarme");
    assert.equal((await get(w.t, w.key, `/v1/charges/${paid.id}`)).json().processor, "pagarme", "the charge view names the processor that served it");
    assert.ok(row.pspRefId?.startsWith("ch_"), "Pagar.me's charge id is the provider reference");
    assert.equal(w.pagarme.ordersCreated(paid.id), 1, "feira's charge id is the order code");
    assert.equal(posts(w.mercadopago), 0);

    const declined = await createCharge(w.t, w.key, cardCharge("4000000000000028"));
    assert.equal(declined.status, "refused");
    assert.equal(declined.reason, "card_declined");
    assert.equal(declined.paymentDetails?.providerCode, "05", "the acquirer's code is kept for support");
  } finally {
    await w.close();
  }
});

test("a production Pix through Mercado Pago carries the provider's BR Code and expiry", async () => {
  const w = await live({ credit_card: ["pagarme"], pix: ["mercadopago"] });
  try {
    const pix = await createCharge(w.t, w.key, methodCharge({ type: "pix" }, { customer: pixCustomer }));
    assert.equal(pix.status, "pending");
    const row = await served(w, pix.id);
    assert.equal(row.processor, "mercadopago");
    const payment = w.mercadopago.payment(row.pspRefId!) as { point_of_interaction: { transaction_data: { qr_code: string } }; date_of_expiration: string; external_reference: string };
    assert.equal(payment.external_reference, pix.id);
    assert.equal(pix.paymentDetails?.qrCode, payment.point_of_interaction.transaction_data.qr_code);
    assert.match(String(pix.paymentDetails?.qrCodeImage), /^data:image\/png;base64,/);
    assert.equal(new Date(String(pix.paymentDetails?.expiresAt)).getTime(), new Date(payment.date_of_expiration).getTime());
    assert.equal(posts(w.pagarme), 0);
  } finally {
    await w.close();
  }
});

test("a method with no route is 422 method_not_supported naming it, with no provider call", async () => {
  const w = await live({ pix: ["mercadopago"] });
  try {
    for (const body of [cardCharge("4000000000000010"), methodCharge({ type: "boleto" }, { customer: pixCustomer })]) {
      const res = await post(w.t, w.key, "/v1/charges", body);
      expectStatus(res, 422);
      assert.equal(res.json().code, "method_not_supported");
      assert.match(res.json().message, /paymentMethod\.type (credit_card|boleto)/);
    }
    assert.equal(w.pagarme.requests.length + w.mercadopago.requests.length, 0, "no provider was called");
  } finally {
    await w.close();
  }
});

test("failover: the first processor refuses connections, the second serves and is recorded", async () => {
  const w = await live({ credit_card: ["pagarme", "mercadopago"] });
  try {
    await w.pagarme.setFault("refuse");
    const charge = await createCharge(w.t, w.key, cardCharge("4000000000000010"));
    assert.equal(charge.status, "paid");
    const row = await served(w, charge.id);
    assert.equal(row.processor, "mercadopago");
    assert.equal(w.mercadopago.paymentsCreated(charge.id), 1);
    assert.equal(w.pagarme.ordersCreated(charge.id), 0);
  } finally {
    await w.close();
  }
});

test("a timeout answers 201 pending with the charge id and never fails over", async () => {
  const w = await live({ credit_card: ["pagarme", "mercadopago"] }, { timeoutMs: 300 });
  try {
    await w.pagarme.setFault({ mode: "hang", match: "POST /orders" });
    const charge = await createCharge(w.t, w.key, cardCharge("4000000000000010"));
    assert.equal(charge.status, "pending");
    assert.match(charge.id, /^ch_/);
    const row = await served(w, charge.id);
    assert.equal(row.processor, "pagarme", "the lookup and reconciliation go to the processor that may have it");
    assert.equal(w.mercadopago.requests.length, 0, "no failover after a timeout");
  } finally {
    await w.close();
  }
});
