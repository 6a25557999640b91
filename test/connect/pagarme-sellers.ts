import assert from "node:assert/strict";
import { insertProviderAccount } from "../../src/modules/connect/provider-accounts.repo.js";
import { expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import type { FakePagarme } from "../helpers/fake-pagarme.js";
import { activate, call, createSubmerchant } from "./helpers.js";

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
