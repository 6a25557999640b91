import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { inArray, sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { charges } from "../../src/db/schema.js";
import type { Environment } from "../../src/db/scope.js";
import { rollUpSales, totalSales } from "../../src/modules/connect/connect.repo.js";
import { salesRollupTask } from "../../src/modules/connect/connect.service.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, methodCharge } from "../helpers/charges.js";
import { call, createSubmerchant, FEES, keyOf, seedMaster } from "./helpers.js";

// A submerchant's totalSales (migration 0021): triggers on charges append +1/-1 to
// charge_sales_tail, connect.sales-rollup folds the tail into charge_sales_rollups, and a read is
// the rollup row plus the tail. Whatever the rollup has done, it must answer the plain count of
// the submerchant's paid and refunded charges in the environment (the query it replaced).

let t: TestApp;
let master: SeededMerchant;
/** Sandbox submerchants with their keys, and a production one (no live processor: SQL charges). */
let a: { id: string; key: string };
let b: { id: string; key: string };
let live: { id: string };
before(async () => {
  t = await buildTestApp({}, { noWorkerProcesses: "the tests run the sales rollup step by step and read the tail between steps" });
  master = await seedMaster(t, FEES);
  const made = [];
  for (let i = 0; i < 2; i++) {
    const sm = await createSubmerchant(t, master.sandboxKey);
    made.push({ id: sm.id, key: await keyOf(t, master.sandboxKey, sm.id) });
  }
  [a, b] = made as [typeof a, typeof b];
  live = await createSubmerchant(t, master.productionKey);
});
after(() => t.close());

const db = () => t.database.db;

/** The query totalSales ran before migration 0021: a count over the charges. */
async function plainSales(ids: string[], environment: Environment): Promise<Map<string, number>> {
  const rows = await queryRows<{ merchant_id: string; n: string | number }>(db(), sql`
    select merchant_id, count(*) as n from charges
    where ${inArray(charges.merchantId, ids)} and environment = ${environment} and status in ('paid', 'refunded')
    group by merchant_id`);
  return new Map(rows.map((r) => [r.merchant_id, Number(r.n)]));
}

const tailRows = async (where = sql`true`) =>
  Number((await queryRows<{ n: string | number }>(db(), sql`select count(*) as n from charge_sales_tail where ${where}`))[0]!.n);

/**
 * totalSales, the list and the detail route answer the plain count of each submerchant in the
 * environment it was registered in; in the other environment (where it does not exist, and a
 * charge of its id could only be written by hand), and for a merchant that is no submerchant, 0.
 */
async function assertExact(label: string) {
  const registered = [[a.id, "sandbox"], [b.id, "sandbox"], [live.id, "production"]] as const;
  const ids = [a.id, b.id, live.id, master.id];
  for (const environment of ["sandbox", "production"] as const) {
    const expected = await plainSales(ids, environment);
    const got = await totalSales(db(), ids, environment);
    for (const id of ids) {
      const counted = registered.some(([r, e]) => r === id && e === environment);
      assert.equal(got.get(id) ?? 0, counted ? expected.get(id) ?? 0 : 0, `${label}: totalSales of ${id} in ${environment}`);
    }
  }
  const list = await call(t, "GET", "/v1/submerchants?size=100", master.sandboxKey);
  expectStatus(list, 200);
  const sandbox = await plainSales([a.id, b.id], "sandbox");
  const listed = new Map((list.json().data as { id: string; totalSales: number }[]).map((s) => [s.id, s.totalSales]));
  assert.deepEqual([listed.get(a.id), listed.get(b.id)], [sandbox.get(a.id) ?? 0, sandbox.get(b.id) ?? 0], `${label}: GET /v1/submerchants: ${list.body}`);
  const one = await call(t, "GET", `/v1/submerchants/${live.id}`, master.productionKey);
  expectStatus(one, 200);
  assert.equal(one.json().totalSales, (await plainSales([live.id], "production")).get(live.id) ?? 0, `${label}: the production submerchant: ${one.body}`);
}

const charge = async (key: string, body: unknown) => {
  const res = await call(t, "POST", "/v1/charges", key, body);
  expectStatus(res, 201);
  return res.json() as { id: string; status: string };
};

/** A charge written as a live processor's answer would leave it (tests have no live processor). */
async function insertCharge(merchantId: string, environment: Environment, status: string): Promise<string> {
  const id = `ch_test_${Math.random().toString(36).slice(2)}`;
  await db().execute(sql`
    insert into charges (id, merchant_id, environment, amount, currency, status, payment_method_type, payment_method, processor)
    values (${id}, ${merchantId}, ${environment}, 1000, 'BRL', ${status}, 'pix', '{"type": "pix"}'::jsonb, 'test')`);
  return id;
}
const setStatus = (id: string, status: string) => db().execute(sql`update charges set status = ${status} where id = ${id}`);

test("totalSales is the plain count before, between and after rollups: paid, refunded, charged back, failed, pending, both environments", async () => {
  await assertExact("no charges yet");

  // Sandbox, through the API: paid cards, a refused one, a Pix paid later, a Pix left pending
  // and one expired (failed), a full refund (paid -> refunded stays a sale).
  const paid = [];
  for (let i = 0; i < 3; i++) paid.push(await charge(a.key, cardCharge(CARDS.visa)));
  assert.deepEqual(paid.map((c) => c.status), ["paid", "paid", "paid"]);
  assert.equal((await charge(a.key, cardCharge(CARDS.declined))).status, "refused");
  const pixLater = await charge(a.key, methodCharge({ type: "pix" }));
  await charge(a.key, methodCharge({ type: "pix" }));
  const pixExpired = await charge(a.key, methodCharge({ type: "pix" }));
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${pixExpired.id}/expire`, a.key), 200);
  await charge(b.key, cardCharge(CARDS.mastercard));
  await assertExact("sandbox charges, before any rollup");
  assert.equal(await tailRows(), 4, "one tail row per sale (a 3, b 1)");

  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${pixLater.id}/pay`, a.key), 200); // pending -> paid: +1
  expectStatus(await call(t, "POST", `/v1/charges/${paid[0]!.id}/refund`, a.key, { amount: 1 }), 201); // paid -> refunded: no change
  await assertExact("a Pix paid and a card refunded");
  assert.equal(await tailRows(), 5, "paid -> refunded writes nothing");

  assert.equal(await rollUpSales(db(), 2), 2);
  await assertExact("after a first batch of 2");

  // Production (SQL: no live processor here) and the transitions the API cannot make quickly.
  const livePaid = await insertCharge(live.id, "production", "paid");
  await insertCharge(live.id, "production", "refunded");
  await insertCharge(live.id, "production", "pending");
  await insertCharge(live.id, "production", "failed");
  await setStatus(paid[1]!.id, "charged_back"); // paid -> charged_back: -1
  await assertExact("production sales, a chargeback");
  assert.equal(await rollUpSales(db(), 3), 3);
  await assertExact("after a second batch of 3");

  await setStatus(livePaid, "charged_back");
  await db().execute(sql`delete from charges where id = ${paid[2]!.id}`); // a sale deleted: -1
  const moved = await insertCharge(b.id, "sandbox", "paid");
  await db().execute(sql`update charges set environment = 'production' where id = ${moved}`); // -1 for b in sandbox only
  await assertExact("a live chargeback, a deletion, a charge moved to the other environment");

  const task = salesRollupTask(db(), 2);
  assert.ok((await task.run()) > 2, "the task goes on while a batch is full");
  assert.equal(await tailRows(), 0, "the tail is empty after the task");
  await assertExact("everything rolled up");
  assert.equal(await task.run(), 0, "a second run finds nothing");
  await assertExact("rolled up twice");

  await charge(a.key, cardCharge(CARDS.visa));
  await assertExact("a sale after everything was rolled up");
  const rollups = await queryRows<{ merchant_id: string; environment: string; sales: string | number }>(db(), sql`
    select merchant_id, environment, sales from charge_sales_rollups order by 1, 2`);
  assert.deepEqual(rollups.map((r) => [r.merchant_id, r.environment, Number(r.sales)]).sort(), [
    [a.id, "sandbox", 2], [b.id, "sandbox", 1], [live.id, "production", 1],
  ].sort(), "the rollups hold the counts up to the last run");
});

test("an ordinary merchant's charges write nothing to the tail; a sandbox sale never counts for production", async () => {
  await salesRollupTask(db()).run();
  for (let i = 0; i < 3; i++) await charge(master.sandboxKey, cardCharge(CARDS.visa));
  await insertCharge(master.id, "production", "paid");
  const pix = await charge(master.sandboxKey, methodCharge({ type: "pix" }));
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${pix.id}/pay`, master.sandboxKey), 200);
  assert.equal(await tailRows(), 0, "the master is no submerchant: its sales are not in the tail");

  // The production submerchant's id with a sandbox charge, and a sandbox submerchant's sale:
  // neither is a sale of the other environment.
  await insertCharge(live.id, "sandbox", "paid");
  await charge(a.key, cardCharge(CARDS.visa));
  assert.equal(await tailRows(sql`environment = 'production'`), 0);
  assert.equal(await tailRows(sql`merchant_id = ${live.id}`), 0, "no submerchant row of that id in sandbox");
  assert.equal((await totalSales(db(), [a.id], "production")).get(a.id) ?? 0, 0);
  await assertExact("sandbox sales of every kind, production unchanged");
});

test("many charges with rollups running alongside: the count stays exact and the tail empties", async () => {
  const running = (async () => {
    for (let i = 0; i < 10; i++) await rollUpSales(db(), 3);
  })();
  await Promise.all(Array.from({ length: 12 }, (_, i) => charge(i % 2 ? a.key : b.key, cardCharge(CARDS.visa))));
  await running;
  await assertExact("during rollups");
  await salesRollupTask(db()).run();
  assert.equal(await tailRows(), 0);
  await assertExact("after the rollups");
});

test("the migration's backfill counts the sales that exist, and only submerchants' ones", async () => {
  // The last statement of 0021, rerun on emptied rollups: the count a deploy makes of the sales
  // charged before the triggers existed.
  const file = path.resolve(import.meta.dirname, "../../src/db/migrations/0021_submerchant_sales.sql");
  const backfill = readFileSync(file, "utf8").split("--> statement-breakpoint").at(-1)!;
  assert.match(backfill, /INSERT INTO charge_sales_rollups/);
  await db().execute(sql`delete from charge_sales_tail`);
  await db().execute(sql`delete from charge_sales_rollups`);
  await db().execute(sql.raw(backfill));
  assert.equal(await tailRows(), 0);
  await assertExact("backfilled");
  const owners = await queryRows<{ merchant_id: string }>(db(), sql`select merchant_id from charge_sales_rollups`);
  assert.ok(!owners.some((r) => r.merchant_id === master.id), "the master's sales are not counted");
});
