import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, methodCharge } from "../helpers/charges.js";
import { activate, admin, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";

// Splits only to accredited submerchants: the spec lets a submerchant transact once its KYC is
// approved, so a share named for one that is not active (pending, blocked) is a 422 naming the
// rule and the submerchant, in the sandbox as in production, before the processor is called:
// no charge, no ledger entry, no event, no customer. The charge's own split, a subscription's and
// the merchant's default split (which a payment link's checkout takes) are held to it alike.

let t: TestApp;
let master: SeededMerchant;
let active: string;
let pending: string;
let blocked: string;

const setStatus = async (id: string, status: string) => expectStatus(await admin(t, "POST", `/v1/admin/submerchants/${id}/status`, { status }), 200);

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  active = (await createSubmerchant(t, master.sandboxKey)).id;
  await activate(t, master.sandboxKey, active);
  pending = (await createSubmerchant(t, master.sandboxKey)).id;
  blocked = (await createSubmerchant(t, master.sandboxKey)).id;
  await activate(t, master.sandboxKey, blocked);
  await setStatus(blocked, "blocked");
});
after(async () => { await t?.close(); });

const charge = (body: unknown) => call(t, "POST", "/v1/charges", master.sandboxKey, body);
const written = async () => (await queryRows<Record<string, string>>(t.database.db, sql`select
  (select count(*) from charges)::text as charges, (select count(*) from ledger_entries)::text as ledger,
  (select count(*) from events)::text as events, (select count(*) from customers)::text as customers,
  (select count(*) from subscriptions)::text as subscriptions, (select count(*) from sandbox_processor_records)::text as records`))[0]!;

/** A 422 naming the rule's field and the submerchant with its status. */
function refused(res: Awaited<ReturnType<typeof charge>>, field: string, id: string, status: string) {
  expectStatus(res, 422);
  assert.match(res.json().message, new RegExp(`^${field.replace(/\./g, "\\.")} ${id} is not an active submerchant \\(${status}\\)`), res.body);
}

test("a charge's split naming a pending or blocked submerchant is a 422 naming it; nothing is written", async () => {
  const before = await written();
  const buyer = { name: "Nova Compradora", email: "nova@example.com" };
  for (const [id, status] of [[pending, "pending"], [blocked, "blocked"]] as const) {
    const split = [{ merchantId: active, percentage: 10 }, { merchantId: id, percentage: 10 }];
    refused(await charge(cardCharge(CARDS.visa, { customer: buyer, split })), "split.1.merchantId", id, status);
    refused(await charge(methodCharge({ type: "pix" }, { customer: buyer, split })), "split.1.merchantId", id, status);
  }
  assert.deepEqual(await written(), before, "no charge, ledger entry, event, customer or processor record");
  // The same charge to accredited submerchants only is taken.
  expectStatus(await charge(cardCharge(CARDS.visa, { split: [{ merchantId: active, percentage: 10 }] })), 201);
});

test("a subscription's split and the default split are held to the same rule; accredited again, the submerchant is paid again", async () => {
  const plan = await call(t, "POST", "/v1/plans", master.sandboxKey, { name: "Mensal", price: 30, currency: "BRL", interval: "month" });
  expectStatus(plan, 201);
  const before = await written();
  const subscription = await call(t, "POST", "/v1/subscriptions", master.sandboxKey, {
    planId: plan.json().id, customer: { name: "Assinante", email: "assinante@example.com" },
    paymentMethod: { type: "credit_card", number: CARDS.visa, holderName: "ASSINANTE", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
    split: [{ merchantId: pending, percentage: 20 }],
  });
  refused(subscription, "split.0.merchantId", pending, "pending");
  refused(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: blocked, percentage: 5 }] }), "defaultSplit.0.merchantId", blocked, "blocked");

  // A default split saved while its submerchant was active stops applying when it is blocked.
  const later = (await createSubmerchant(t, master.sandboxKey)).id;
  await activate(t, master.sandboxKey, later);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: later, percentage: 5 }] }), 200);
  await setStatus(later, "blocked");
  const link = await call(t, "POST", "/v1/payment-links", master.sandboxKey, {
    title: "Caneca", currency: "BRL", freightMode: "pickup", products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 1, physical: false }],
  });
  expectStatus(link, 201);
  const mid = await written();
  refused(await charge(cardCharge(CARDS.visa)), "defaultSplit.0.merchantId", later, "blocked");
  const checkout = await t.app.inject({
    method: "POST", url: `/v1/payment-links/${link.json().id}/charge`,
    payload: { customer: { name: "Comprador", email: "comprador@example.com", document: { type: "cpf", id: "529.982.247-25" } }, paymentMethod: { type: "pix" } },
  });
  refused(checkout, "defaultSplit.0.merchantId", later, "blocked");
  assert.deepEqual(await written(), mid, "nothing written by the refused charges");
  assert.equal(before.subscriptions, mid.subscriptions, "no subscription");

  await setStatus(later, "active");
  const paid = await charge(cardCharge(CARDS.visa));
  expectStatus(paid, 201);
  assert.deepEqual((await call(t, "GET", `/v1/charges/${paid.json().id}`, master.sandboxKey)).json().split, [{ merchantId: later, percentage: 5 }]);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [] }), 200);
});
