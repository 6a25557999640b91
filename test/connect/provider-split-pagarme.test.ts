import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { insertProviderAccount } from "../../src/modules/connect/provider-accounts.repo.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "../processors/live-shared.js";
import { activate, assertLedgerInvariants, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";

// Provider settlement through Pagar.me (production keys against the fake, which validates the
// split as Pagar.me documents it): the charge carries payments[].split[] in flat cents, the
// seller's share and the operator's recipient's remainder adding up to the amount; the seller's
// share is its atProvider balance at pagarme, equal to what Pagar.me holds for the recipient;
// a seller with no recipient is refused before any call; Mercado Pago takes one seller only.

const OPERATOR_RECIPIENT = "rp_operator0000000000";
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let t: TestApp;
let master: SeededMerchant;
let a: { id: string };
let b: { id: string };

before(async () => {
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  const accounts = fakeAccounts(pagarme, mercadopago);
  t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"], pix: ["mercadopago"] },
      processors: { ...accounts, pagarme: { ...accounts.pagarme, recipientId: OPERATOR_RECIPIENT } },
      timeoutMs: 5_000,
    },
  });
  master = await seedMaster(t, FEES);
  a = await createSubmerchant(t, master.productionKey);
  b = await createSubmerchant(t, master.productionKey);
  for (const sm of [a, b]) await activate(t, master.productionKey, sm.id);
  pagarme.addRecipient(OPERATOR_RECIPIENT);
  pagarme.addRecipient(`rp_${a.id}`);
  for (const [processor, externalId] of [["pagarme", `rp_${a.id}`], ["mercadopago", "mp_user_1"]]) {
    await insertProviderAccount(t.database.db, { submerchantId: a.id, processor: processor!, parentId: master.id, environment: "production", status: "active", externalId });
  }
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.productionKey, { settlement: "provider" }), 200);
});
after(async () => {
  await t.close();
  await Promise.all([pagarme.close(), mercadopago.close()]);
});

test("a split card charge goes to Pagar.me with payments[].split[] in flat cents; the seller's share is its atProvider balance, as Pagar.me holds it", async () => {
  const res = await call(t, "POST", "/v1/charges", master.productionKey, cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 30 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "paid");
  const charge = [...pagarme.charges.values()].find((c) => c.code === res.json().id)!;
  // 100.00 BRL: net 8801; a: 30 % = 2640; the operator's recipient the rest of the 10000.
  assert.deepEqual(pagarme.splitOf(charge.id)!.map((r) => [r.type, r.recipientId, r.amount, r.liable, r.processingFee, r.remainderFee]), [
    ["flat", `rp_${a.id}`, 2640, false, false, false],
    ["flat", OPERATOR_RECIPIENT, 7360, true, true, true],
  ]);
  const bal = await call(t, "GET", `/v1/submerchants/${a.id}/balance`, master.productionKey);
  expectStatus(bal, 200);
  assert.deepEqual(bal.json().atProvider, [{ processor: "pagarme", currency: "BRL", amount: 2640 }]);
  const atPagarme = await fetch(`${pagarme.url}/recipients/rp_${a.id}/balance`, { headers: { authorization: `Basic ${Buffer.from(`${pagarme.secretKey}:`).toString("base64")}` } });
  assert.equal(((await atPagarme.json()) as { waiting_funds_amount: number }).waiting_funds_amount, 2640, "both books agree to the cent");
  await assertLedgerInvariants(t);
});

test("a seller without a recipient at Pagar.me: 422 submerchant_not_at_provider naming both, and Pagar.me is never called", async () => {
  const before = pagarme.orders.size;
  const res = await call(t, "POST", "/v1/charges", master.productionKey, cardCharge(CARDS.visa, { split: [{ merchantId: b.id, percentage: 10 }] }));
  expectStatus(res, 422);
  assert.equal(res.json().code, "submerchant_not_at_provider");
  assert.match(res.json().message, new RegExp(`${b.id} has no active account at pagarme`));
  assert.equal(pagarme.orders.size, before);
});

test("two sellers on a charge routed to Mercado Pago: 422 split_not_supported naming mercadopago", async () => {
  const res = await call(t, "POST", "/v1/charges", master.productionKey, {
    amount: 50, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "pix" }, split: [{ merchantId: a.id, percentage: 10 }, { merchantId: b.id, percentage: 10 }],
  });
  expectStatus(res, 422);
  assert.equal(res.json().code, "split_not_supported");
  // Mercado Pago makes the payment on the one seller's account (provider-split-mercadopago.test.ts).
  assert.match(res.json().message, /mercadopago, the processor of this charge, takes at most 1 seller per payment/);
});
