import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { sql } from "../../src/db/client.js";
import { buildTestApp, expectStatus, seedMerchant, storedKey, type TestApp } from "../helpers/app.js";
import { cardCharge, createCharge } from "../helpers/charges.js";
import { idTime, newSeed } from "../../src/lib/ids.js";
import { advance, call, CARDS, createPlan, getSub, subscribe } from "./helpers.js";

// Issue 46 item 19: a renewal's charge was filed under its subscription's creation time (its id
// was derived from the subscription's and kept its time part), so newest-first lists, which page
// by id, showed a renewal made today below everything made since the subscription began.
let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => t.close());

const DAY = 86_400_000;
type Page = { data: { id: string; metadata: Record<string, string> | null }[]; hasMore: boolean };

test("a year-old subscription's renewal comes first in GET /v1/charges, and paging keeps the order", async () => {
  const m = await seedMerchant(t);
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  // A one-off charge made after the subscription, before its renewals.
  const oneOff = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  const moved = await advance(t, m.sandboxKey, 366);
  assert.equal(moved.actions.filter((a) => a.action === "renewed").length, 12);

  const res = await call(t, m.sandboxKey, "GET", "/v1/charges?limit=100");
  expectStatus(res, 200);
  const all = (res.json() as Page).data;
  assert.equal(all.length, 14);
  const renewals = (await getSub(t, m.sandboxKey, sub.id)).charges.filter((c) => c.periodStart !== sub.currentPeriodStart);
  const newest = renewals.reduce((a, b) => (Date.parse(a.periodStart) > Date.parse(b.periodStart) ? a : b));
  assert.equal(all[0]!.id, newest.chargeId, `the newest renewal first: ${JSON.stringify(all.map((c) => c.id))}`);
  // Every renewal above the one-off charge made before them, each filed at its own period.
  const oneOffAt = all.findIndex((c) => c.id === oneOff.id);
  assert.equal(oneOffAt, 12, "the one-off charge below the twelve renewals");
  for (const r of renewals) {
    assert.ok(Math.abs(idTime(r.chargeId) - Date.parse(r.periodStart)) < DAY, `${r.chargeId} filed at its period ${r.periodStart}`);
  }

  // Cursors walk the same order, both ways.
  const walked: string[] = [];
  let after: string | undefined;
  for (;;) {
    const page = (await call(t, m.sandboxKey, "GET", `/v1/charges?limit=5${after ? `&startingAfter=${after}` : ""}`)).json() as Page;
    walked.push(...page.data.map((c) => c.id));
    if (!page.hasMore) break;
    after = page.data.at(-1)!.id;
  }
  assert.deepEqual(walked, all.map((c) => c.id));
  const before = (await call(t, m.sandboxKey, "GET", `/v1/charges?limit=3&endingBefore=${all[5]!.id}`)).json() as Page;
  assert.deepEqual(before.data.map((c) => c.id), all.slice(2, 5).map((c) => c.id));
});

test("a retried renewal's charges are filed at their own attempts", async () => {
  const m = await seedMerchant(t);
  expectStatus(await call(t, m.sandboxKey, "PUT", "/v1/subscription-settings", { retryDays: [2], onExhausted: "cancel" }), 200);
  const plan = await createPlan(t, m.sandboxKey);
  const sub = await subscribe(t, m.sandboxKey, { planId: plan.id });
  // The vault card declines from now on: the renewal is refused, then retried 2 days later.
  const declining = (await call(t, m.sandboxKey, "POST", `/v1/customers/${sub.customerId}/cards`, {
    number: CARDS.declined, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035",
  })).json() as { id: string };
  const { subscriptions } = await import("../../src/db/schema.js");
  const { eq } = await import("drizzle-orm");
  await t.database.db.update(subscriptions).set({ paymentMethod: { type: "credit_card", cardId: declining.id } }).where(eq(subscriptions.id, sub.id));
  await advance(t, m.sandboxKey, 40);
  const refused = (await getSub(t, m.sandboxKey, sub.id)).charges.filter((c) => c.status === "refused").sort((a, b) => a.attempt - b.attempt);
  assert.equal(refused.length, 2);
  const [first, retry] = refused as [typeof refused[0], typeof refused[0]];
  assert.ok(Math.abs(idTime(first.chargeId) - Date.parse(first.periodStart)) < DAY, first.chargeId);
  assert.ok(Math.abs(idTime(retry.chargeId) - (Date.parse(first.periodStart) + 2 * DAY)) < DAY, `${retry.chargeId} filed at its retry`);
  const listed = ((await call(t, m.sandboxKey, "GET", "/v1/charges?limit=2")).json() as Page).data.map((c) => c.id);
  assert.deepEqual(listed, [retry.chargeId, first.chargeId]);
});

test("charges whose ids are older than their creation (renewals made before the fix) are listed by creation, and cursors walk through them", async () => {
  const m = await seedMerchant(t);
  const first = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  // A charge whose id carries a time a year old, as every renewal made before ids followed their
  // own creation: made here by a retry that takes over a claim whose seed is a year old.
  const key = randomUUID();
  const body = cardCharge(CARDS.visa, { amount: 12 });
  expectStatus(await call(t, m.sandboxKey, "POST", "/v1/charges", body, { "idempotency-key": key }), 201);
  await t.database.db.execute(sql`update idempotency_keys set state = 'processing', response_status = null, response_body = null,
    seed = ${newSeed(Date.now() - 365 * DAY)}, locked_until = now() - interval '1 millisecond' where key = ${storedKey(t, key)}`);
  const retried = await call(t, m.sandboxKey, "POST", "/v1/charges", body, { "idempotency-key": key });
  expectStatus(retried, 201);
  const old = retried.json() as { id: string };
  assert.ok(idTime(old.id) < Date.now() - 300 * DAY, "its id is a year old");
  const last = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));

  const ids = async (query: string) => ((await call(t, m.sandboxKey, "GET", `/v1/charges?${query}`)).json() as Page).data.map((c) => c.id);
  const inOrder = [last.id, old.id, first.id];
  const all = await ids("limit=100");
  // The first retry's charge is listed too (the takeover made a second one under the old seed).
  assert.deepEqual(all.filter((id) => inOrder.includes(id)), inOrder, JSON.stringify(all));
  assert.equal(all[0], last.id);
  assert.equal(all.indexOf(old.id) < all.indexOf(first.id), true, "the old-id charge above the one made before it");
  // One at a time with startingAfter, and back with endingBefore.
  const walked: string[] = [];
  for (let after: string | undefined; ;) {
    const page = (await call(t, m.sandboxKey, "GET", `/v1/charges?limit=1${after ? `&startingAfter=${after}` : ""}`)).json() as Page;
    walked.push(...page.data.map((c) => c.id));
    if (!page.hasMore) break;
    after = page.data.at(-1)!.id;
  }
  assert.deepEqual(walked, all);
  assert.deepEqual(await ids(`endingBefore=${first.id}`), all.slice(0, all.indexOf(first.id)));
  assert.deepEqual(await ids(`startingAfter=${old.id}`), all.slice(all.indexOf(old.id) + 1));
  // Its created date finds it, though its id says a year ago.
  const today = await ids(`createdGte=${new Date(Date.now() - DAY).toISOString()}&limit=100`);
  assert.ok(today.includes(old.id));
});

test("a cursor that names no charge pages from the time its text would carry, and never fails", async () => {
  const m = await seedMerchant(t);
  const made = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  for (const cursor of ["9W\\O,'", "zzzzzzzzzzzzzzzzzzzzzzzzzz", "ch_", "ch_0000000000aaaaaaaaaaaaaaaa", "ch_zzzzzzzzzzzzzzzzzzzzzzzzzz"]) {
    for (const param of ["startingAfter", "endingBefore"]) {
      const res = await call(t, m.sandboxKey, "GET", `/v1/charges?${param}=${encodeURIComponent(cursor)}`);
      expectStatus(res, 200);
    }
  }
  // An unknown id from the future lists everything older; one from 1970, everything newer.
  const older = ((await call(t, m.sandboxKey, "GET", "/v1/charges?startingAfter=ch_zzzzzzzzzzzzzzzzzzzzzzzzzz")).json() as Page).data;
  assert.deepEqual(older.map((c) => c.id), [made.id]);
  const newer = ((await call(t, m.sandboxKey, "GET", "/v1/charges?endingBefore=ch_0000000000aaaaaaaaaaaaaaaa")).json() as Page).data;
  assert.deepEqual(newer.map((c) => c.id), [made.id]);
});
