import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { eq } from "drizzle-orm";
import { events, refunds } from "../../src/db/schema.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, post } from "../helpers/charges.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

test("partial then full refund: paid stays paid, then refunded; charge.refunded each time", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { amount: 100 }));
  const r1 = await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 30 });
  expectStatus(r1, 201);
  assert.equal(r1.json().amount, 30);
  assert.equal(r1.json().chargeStatus, "paid");
  const tooMuch = await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 70.01 });
  expectStatus(tooMuch, 422);
  assert.match(tooMuch.json().message, /refundable rest of 70.00 BRL/);
  const r2 = await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, {});
  expectStatus(r2, 201);
  assert.equal(r2.json().amount, 70);
  assert.equal(r2.json().chargeStatus, "refunded");
  const got = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(got.status, "refunded");
  assert.equal(got.amountRefunded, 100);
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, {}), 409);
  const evs = await t.database.db.select().from(events).where(eq(events.objectId, c.id)).orderBy(events.id);
  const refunded = evs.filter((e) => e.type === "charge.refunded");
  assert.equal(refunded.length, 2);
  assert.equal(refunded[1]!.data.status, "refunded");
  assert.equal(refunded[1]!.data.amount_refunded, 10000);
});

test("only paid charges can be refunded", async () => {
  const refused = await createCharge(t, m.sandboxKey, cardCharge(CARDS.declined));
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${refused.id}/refund`, {}), 409);
  const pix = await createCharge(t, m.sandboxKey, { ...cardCharge(CARDS.visa), paymentMethod: { type: "pix" } });
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${pix.id}/refund`, {}), 409);
  const bad = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${bad.id}/refund`, { amount: 0 }), 422);
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${bad.id}/refund`, { amount: 0.001 }), 422);
});

test("concurrent refunds never exceed the paid amount", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { amount: 100 }));
  const results = await Promise.all(
    Array.from({ length: 10 }, () => post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 30 })),
  );
  const ok = results.filter((r) => r.statusCode === 201);
  assert.equal(ok.length, 3, results.map((r) => `${r.statusCode}`).join(","));
  for (const r of results) assert.ok([201, 422].includes(r.statusCode), r.body);
  const got = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(got.amountRefunded, 90);
  const rows = await t.database.db.select().from(refunds).where(eq(refunds.chargeId, c.id));
  assert.equal(rows.filter((r) => r.status === "succeeded").length, 3);
  assert.equal(rows.reduce((s, r) => s + (r.status === "succeeded" ? r.amount : 0), 0), 9000);
});

test("the same Idempotency-Key refunds once", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { amount: 100 }));
  const send = () => post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 10 }, { "idempotency-key": "refund-once" });
  const [a, b] = await Promise.all([send(), send()]);
  expectStatus(a, 201);
  assert.equal(b.statusCode, 201);
  assert.equal(a.body, b.body);
  const got = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(got.amountRefunded, 10);
});

test("GET /v1/charges/{id}/refunds lists the charge's refunds newest first, and only the caller's", async () => {
  const c = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa, { amount: 100 }));
  const none = await get(t, m.sandboxKey, `/v1/charges/${c.id}/refunds`);
  expectStatus(none, 200);
  assert.deepEqual(none.json(), { data: [], hasMore: false });
  const r1 = (await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 30 })).json();
  const r2 = (await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, {})).json();
  const list = await get(t, m.sandboxKey, `/v1/charges/${c.id}/refunds`);
  expectStatus(list, 200);
  assert.equal(list.json().hasMore, false);
  // The same refunds the POSTs answered, the charge's status as it is now.
  assert.deepEqual(list.json().data, [{ ...r2, chargeStatus: "refunded" }, { ...r1, chargeStatus: "refunded" }]);

  const other = await seedMerchant(t);
  expectStatus(await get(t, other.sandboxKey, `/v1/charges/${c.id}/refunds`), 404);
  expectStatus(await get(t, m.productionKey, `/v1/charges/${c.id}/refunds`), 404);
  expectStatus(await get(t, m.sandboxKey, "/v1/charges/ch_01m89a4ev2mjeb2g0fad8yh4ge/refunds"), 404);
});
