import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { events } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, post } from "../helpers/charges.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

async function eventTypes(chargeId: string) {
  const rows = await t.database.db.select().from(events).where(eq(events.objectId, chargeId)).orderBy(events.id);
  return rows;
}

describe("the sandbox card table decides the outcome", () => {
  const table: [string, string, string | null][] = [
    [CARDS.visa, "paid", null],
    [CARDS.mastercard, "paid", null],
    [CARDS.declined, "refused", "card_declined"],
    [CARDS.insufficientFunds, "refused", "insufficient_funds"],
    [CARDS.processingError, "failed", "processing_error"],
    [CARDS.inAnalysis, "in_analysis", null],
    [CARDS.threeDS, "paid", null],
    ["4242424242424242", "paid", null],
  ];
  for (const [number, status, reason] of table) {
    test(`${number} -> ${status}`, async () => {
      const c = await createCharge(t, m.sandboxKey, cardCharge(number));
      assert.equal(c.status, status);
      assert.equal(c.reason, reason);
      assert.equal(c.paymentDetails?.firstSix, number.slice(0, 6));
      assert.equal(c.paymentDetails?.lastFour, number.slice(-4));
      assert.equal(c.paymentDetails?.holderName, "MARIA SILVA");
      assert.equal(c.paymentDetails?.installments, 1);
    });
  }
});

test("a paid card charge records charge.created then charge.paid with snake_case data in cents", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { postbackUrl: "http://127.0.0.1:9/hook" }, { installments: 3 }));
  const rows = await eventTypes(c.id);
  assert.deepEqual(rows.map((r) => r.type), ["charge.created", "charge.paid"]);
  const created = rows[0]!.data;
  assert.equal(created.status, "pending");
  assert.equal(created.psp_ref_id, null);
  const paid = rows[1]!.data as Record<string, unknown>;
  assert.equal(paid.status, "paid");
  assert.equal(paid.amount, 10000);
  assert.equal(paid.is_test, true);
  assert.ok(typeof paid.paid_at === "string");
  assert.ok(typeof paid.psp_ref_id === "string");
  assert.deepEqual(paid.payment_method, { type: "credit_card", installments: 3, first_six_digits: "411111", last_four_digits: "1111", holder_name: "MARIA SILVA" });
  assert.equal(paid.merchant_id, m.id);
  assert.equal((paid.customer as { email: string }).email, "maria@example.com");
});

test("3DS managed: authentication_required, then authenticate succeeded -> paid, failed -> refused with charge.updated", async () => {
  const a = await createCharge(t, m.sandboxKey, cardCharge(CARDS.threeDS, {}, { threeDSMode: "managed" }));
  assert.equal(a.status, "authentication_required");
  assert.match(String(a.paymentDetails?.authenticationUrl), /\/v1\/sandbox\/charges\/ch_.*\/authenticate$/);
  const ok = await post(t, m.sandboxKey, `/v1/sandbox/charges/${a.id}/authenticate`, { result: "succeeded" });
  expectStatus(ok, 200);
  assert.equal(ok.json().status, "paid");
  const again = await post(t, m.sandboxKey, `/v1/sandbox/charges/${a.id}/authenticate`, { result: "succeeded" });
  expectStatus(again, 409);

  const b = await createCharge(t, m.sandboxKey, cardCharge(CARDS.threeDS, { postbackUrl: "http://127.0.0.1:9/pb" }, { threeDSMode: "managed" }));
  const failed = await post(t, m.sandboxKey, `/v1/sandbox/charges/${b.id}/authenticate`, { result: "failed" });
  expectStatus(failed, 200);
  assert.equal(failed.json().status, "refused");
  assert.equal(failed.json().reason, "authentication_failed");
  const rows = await eventTypes(b.id);
  assert.deepEqual(rows.map((r) => r.type), ["charge.created", "charge.updated"]);
  assert.equal(rows[1]!.envelope, "legacy");
  assert.equal(rows[1]!.data.status, "refused");
  assert.equal(rows[1]!.data.isTest, true);
});

test("in_analysis is finished by the sandbox review", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.inAnalysis));
  const approved = await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/review`, { result: "approved" });
  expectStatus(approved, 200);
  assert.equal(approved.json().status, "paid");
  const d = await createCharge(t, m.sandboxKey, cardCharge(CARDS.inAnalysis));
  const rejected = await post(t, m.sandboxKey, `/v1/sandbox/charges/${d.id}/review`, { result: "rejected" });
  assert.equal(rejected.json().status, "refused");
});

test("the block flow refuses with isBlocked and a legacy charge.updated to the postback URL only", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.blocked, { postbackUrl: "http://127.0.0.1:9/pb" }));
  assert.equal(c.status, "refused");
  const got = await get(t, m.sandboxKey, `/v1/charges/${c.id}`);
  assert.equal(got.json().isBlocked, true);
  const rows = await eventTypes(c.id);
  const legacy = rows.find((r) => r.type === "charge.updated")!;
  assert.equal(legacy.data.isBlocked, true);
  assert.equal(legacy.data.status, "refused");
  assert.ok(!("anticipation_fee_estimated" in legacy.data));
  assert.deepEqual(legacy.data.paymentMethod, { type: "credit_card", installments: 1, firstSixDigits: "400000", lastFourDigits: "0101", holderName: "MARIA SILVA" });
});

test("card input errors are 422 naming the field and charge nothing", async () => {
  const cases: [unknown, RegExp][] = [
    [cardCharge("4111111111111112"), /paymentMethod\.number/],
    [cardCharge(CARDS.visa, {}, { expirationYear: "2020" }), /paymentMethod\.expiration/],
    [cardCharge(CARDS.visa, {}, { installments: 13 }), /paymentMethod\.installments/],
    [cardCharge(CARDS.visa, {}, { installments: "2" }), /paymentMethod\.installments/],
    [cardCharge(CARDS.visa, {}, { cvv: undefined }), /paymentMethod\.cvv/],
    [cardCharge(CARDS.visa, {}, { cardId: "card_x" }), /exactly one of number, cardId or wallet/],
    [cardCharge(CARDS.visa, {}, { type: "bitcoin" }), /paymentMethod\.type/],
    [cardCharge(CARDS.visa, { items: [{ title: "x", unit_price: 1, quantity: "two" }] }), /items\.0\.quantity/],
    [cardCharge(CARDS.visa, { freight_amount: 10 }), /freight_amount is set by the server/],
    [cardCharge(CARDS.visa, { freight_details: {} }), /freight_details is set by the server/],
    [cardCharge(CARDS.visa, { customer: { name: "No Contact" } }), /customer\.email or customer\.phone/],
    [cardCharge(CARDS.visa, { customer: { name: "X", email: "x@example.com", document: { type: "cpf", id: "111.111.111-11" } } }), /CPF/],
    [cardCharge(CARDS.visa, { split: [{ merchantId: "mer_a", percentage: 60 }, { merchantId: "mer_b", percentage: 50 }] }), /split percentages/],
    [cardCharge(CARDS.visa, { currency: "XYZ" }), /currency XYZ/],
    [cardCharge(CARDS.visa, { unknownField: 1 }), /unknownField is not a recognized field/],
  ];
  for (const [body, message] of cases) {
    const res = await post(t, m.sandboxKey, "/v1/charges", body);
    expectStatus(res, 422);
    assert.equal(res.json().error, "Unprocessable Entity");
    assert.match(res.json().message, message, res.body);
    assert.ok(!res.body.includes("4111111111111112"), "the card number is never echoed");
  }
  const list = await get(t, m.sandboxKey, "/v1/charges?limit=100");
  assert.ok(list.json().data.every((c: { status: string }) => c.status), "no half-made charges");
});

test("a production key is refused without a configured processor, never served by the simulator", async () => {
  const res = await post(t, m.productionKey, "/v1/charges", cardCharge(CARDS.visa));
  expectStatus(res, 422);
  assert.match(res.json().message, /No payment processor is configured/);
  const sandboxOnly = await post(t, m.productionKey, "/v1/sandbox/settle");
  expectStatus(sandboxOnly, 403);
});

test("tenancy: another merchant or the other environment sees 404", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  const other = await seedMerchant(t);
  expectStatus(await get(t, other.sandboxKey, `/v1/charges/${c.id}`), 404);
  expectStatus(await get(t, m.productionKey, `/v1/charges/${c.id}`), 404);
  expectStatus(await post(t, other.sandboxKey, `/v1/charges/${c.id}/refund`, {}), 404);
  expectStatus(await post(t, other.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 404);
  const list = await get(t, other.sandboxKey, "/v1/charges");
  assert.equal(list.json().data.length, 0);
});

test("GET /v1/charges filters by status, payment method, customer and date, with cursors", async () => {
  const other = await seedMerchant(t);
  const a = await createCharge(t, other.sandboxKey, cardCharge(CARDS.visa));
  const b = await createCharge(t, other.sandboxKey, cardCharge(CARDS.declined));
  const c = await createCharge(t, other.sandboxKey, { ...cardCharge(CARDS.visa), paymentMethod: { type: "pix" } });
  const ids = (res: { json(): { data: { id: string }[] } }) => res.json().data.map((x) => x.id);
  assert.deepEqual(ids(await get(t, other.sandboxKey, "/v1/charges")), [c.id, b.id, a.id]);
  assert.deepEqual(ids(await get(t, other.sandboxKey, "/v1/charges?status=refused")), [b.id]);
  assert.deepEqual(ids(await get(t, other.sandboxKey, "/v1/charges?paymentMethod=pix")), [c.id]);
  const page1 = await get(t, other.sandboxKey, "/v1/charges?limit=2");
  assert.equal(page1.json().hasMore, true);
  assert.deepEqual(ids(await get(t, other.sandboxKey, `/v1/charges?limit=2&startingAfter=${b.id}`)), [a.id]);
  assert.deepEqual(ids(await get(t, other.sandboxKey, `/v1/charges?endingBefore=${a.id}`)), [c.id, b.id]);
  const full = await get(t, other.sandboxKey, `/v1/charges/${a.id}`);
  const customerId = full.json().customerId;
  assert.equal(ids(await get(t, other.sandboxKey, `/v1/charges?customerId=${customerId}`)).length, 3, "the inline customer is found again by e-mail");
  assert.deepEqual(ids(await get(t, other.sandboxKey, "/v1/charges?createdGte=2999-01-01T00:00:00Z")), []);
  expectStatus(await get(t, other.sandboxKey, "/v1/charges?status=nope"), 422);
});
