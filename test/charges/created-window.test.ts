import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { idTime, newSeed } from "../../src/lib/ids.js";
import { buildTestApp, expectStatus, seedMerchant, storedKey, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, get, post } from "../helpers/charges.js";

// The charge list is ordered and windowed by created_at, not by id. A charge whose id was made
// long before it was created (a retry that took over a claim its first attempt abandoned two days
// earlier) is listed by its created_at, and marked created_apart.

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const DAY = 86_400_000;
const ids = async (query: string) => {
  const res = await get(t, m.sandboxKey, `/v1/charges?limit=100&${query}`);
  expectStatus(res, 200);
  return (res.json().data as { id: string }[]).map((c) => c.id);
};
const iso = (ms: number) => new Date(ms).toISOString();

test("a charge created apart from its id's time is listed by its created date, not by its id", async () => {
  const key = randomUUID();
  const body = cardCharge(CARDS.visa, { amount: 41.5 });
  expectStatus(await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key }), 201);
  // The claim as a first attempt two days ago left it: its seed made then, nothing created with it.
  const twoDaysAgo = Date.now() - 2 * DAY;
  await t.database.db.execute(sql`update idempotency_keys set state = 'processing', response_status = null, response_body = null,
    seed = ${newSeed(twoDaysAgo)}, locked_until = now() - interval '1 millisecond' where key = ${storedKey(t, key)}`);
  const retry = await post(t, m.sandboxKey, "/v1/charges", body, { "idempotency-key": key });
  expectStatus(retry, 201);
  const late = retry.json() as { id: string };
  assert.ok(Math.abs(idTime(late.id) - twoDaysAgo) < 1000, "the retry's charge has the first attempt's id");
  const [row] = await queryRows<{ created_apart: boolean }>(t.database.db, sql`select created_apart from charges where id = ${late.id}`);
  assert.equal(row!.created_apart, true);

  // Another charge made now, its id and created_at together.
  const near = (await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa))).json() as { id: string };
  const now = Date.now();
  const lastHour = await ids(`createdGte=${iso(now - 3_600_000)}&createdLte=${iso(now + 60_000)}`);
  assert.ok(lastHour.includes(late.id) && lastHour.includes(near.id), `the last hour lists both: ${lastHour.join(", ")}`);
  // Newest created first, whatever the ids say (issue 46 item 19): the retry's charge was made after the first attempt's.
  assert.deepEqual(lastHour.slice(0, 2), [near.id, late.id], "newest created first");
  const then = await ids(`createdGte=${iso(twoDaysAgo - 3_600_000)}&createdLte=${iso(twoDaysAgo + 3_600_000)}`);
  assert.ok(!then.includes(late.id), "not listed on the day its id was made");
  const onlyBefore = await ids(`createdLte=${iso(now - 3_600_000)}`);
  assert.ok(!onlyBefore.includes(late.id) && !onlyBefore.includes(near.id));
  const onlyAfter = await ids(`createdGte=${iso(now - 3_600_000)}`);
  assert.ok(onlyAfter.includes(late.id) && onlyAfter.includes(near.id));
  // A page of one, then the next after it: the window pages like any other list.
  const first = (await get(t, m.sandboxKey, `/v1/charges?limit=1&createdGte=${iso(now - 3_600_000)}`)).json();
  const second = (await get(t, m.sandboxKey, `/v1/charges?limit=100&createdGte=${iso(now - 3_600_000)}&startingAfter=${first.data[0].id}`)).json();
  assert.deepEqual([first.data[0].id, ...second.data.map((c: { id: string }) => c.id)], onlyAfter);
});

test("charges made through the API are near their id's time", async () => {
  const made = await post(t, m.sandboxKey, "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": randomUUID() });
  const c = (await get(t, m.sandboxKey, `/v1/charges/${made.json().id}`)).json() as { id: string; createdAt: string };
  assert.ok(Math.abs(Date.parse(c.createdAt) - idTime(c.id)) < 60_000);
  const [row] = await queryRows<{ created_apart: boolean }>(t.database.db, sql`select created_apart from charges where id = ${c.id}`);
  assert.equal(row!.created_apart, false);
});
