import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { insertProviderAccount } from "../../src/modules/connect/provider-accounts.repo.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { startFakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "../processors/live-shared.js";
import { activate, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";

// Provider settlement's tests with the fake Pagar.me (reconciliation, the processor's transfers):
// a seller with an active recipient and a sale split to it.

/** An active seller of `master` with a recipient at the fake Pagar.me, and a 100.00 card sale giving it 30 % (2640 cents). */
export async function pagarmeSellerWithSale(t: TestApp, pagarme: FakePagarme, master: SeededMerchant): Promise<{ id: string; recipient: string }> {
  const sm = await createSubmerchant(t, master.productionKey);
  await activate(t, master.productionKey, sm.id);
  const recipient = `rp_${sm.id}`;
  pagarme.addRecipient(recipient);
  await insertProviderAccount(t.database.db, { submerchantId: sm.id, processor: "pagarme", parentId: master.id, environment: "production", status: "active", externalId: recipient });
  const res = await call(t, "POST", "/v1/charges", master.productionKey, cardCharge(CARDS.visa, { split: [{ merchantId: sm.id, percentage: 30 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "paid");
  return { id: sm.id, recipient };
}

const OPERATOR_RECIPIENT = "rp_operator0000000000";

/** An app whose cards go to the fake Pagar.me (the operator's recipient known there), and a master in provider settlement. */
export async function startPagarmeProvider(): Promise<{ t: TestApp; pagarme: FakePagarme; master: SeededMerchant; close(): Promise<void> }> {
  const [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  const accounts = fakeAccounts(pagarme, mercadopago);
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] },
      processors: { ...accounts, pagarme: { ...accounts.pagarme, recipientId: OPERATOR_RECIPIENT } },
      timeoutMs: 5_000,
    },
  });
  const master = await seedMaster(t, FEES);
  pagarme.addRecipient(OPERATOR_RECIPIENT);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.productionKey, { settlement: "provider" }), 200);
  return { t, pagarme, master, close: async () => { await t.close(); await Promise.all([pagarme.close(), mercadopago.close()]); } };
}
