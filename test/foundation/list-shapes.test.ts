// The shapes of the customers and subscriptions lists (issue 26). Customers read their whole scope
// in the order of customers_scope_idx, written as row comparisons so that no other index gives
// that order (src/db/scope.ts, inScopeOrdered): every pagination direction must still answer
// exactly the scope's rows, across the boundaries to a neighbouring merchant's ids and to the
// other environment. Subscriptions count by an index-only scan and join only the page's rows:
// the answers must be those of the plain query they replace.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Logger } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import * as schema from "../../src/db/schema.js";
import { customers } from "../../src/db/schema.js";
import type { Database, Db } from "../../src/db/client.js";
import type { RequestCtx } from "../../src/core/context.js";
import { listCustomers } from "../../src/modules/customers/customers.repo.js";
import { listSubscriptions, type ListFilter } from "../../src/modules/subscriptions/subscriptions.repo.js";
import { scansOf, type PlanNode } from "../../bench/growth-explain.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

type Run = (text: string, params?: unknown[]) => Promise<{ rows: unknown[] }>;

let t: TestApp;
let m: SeededMerchant;
/** The customer ids of each (merchant, environment), oldest first. */
const owned = new Map<string, string[]>();
let allIds: string[];
let database: Database;
let run: Run;

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  // The merchant's neighbours in id order (the scope index's first column), in both environments,
  // with customer ids interleaved with the merchant's own: a bound one column off reads theirs.
  const owners = [m.id.slice(0, -1), m.id, `${m.id}0`];
  const rows: (typeof customers.$inferInsert)[] = [];
  for (let i = 0; i < 60; i++) {
    const merchantId = owners[i % 3]!;
    const environment = Math.floor(i / 3) % 2 === 0 ? "sandbox" : "production";
    const id = `cus_${String(100 + i)}`;
    rows.push({ id, merchantId, environment, name: `C ${i}`, email: i % 4 === 0 ? "same@example.com" : `c${i}@example.com`, documentId: i % 5 === 0 ? "52998224725" : null });
    owned.set(`${merchantId} ${environment}`, [...(owned.get(`${merchantId} ${environment}`) ?? []), id]);
  }
  await t.database.db.insert(customers).values(rows);
  allIds = rows.map((r) => r.id);

  // The plans are read on the same database, from rows of other merchants (seedSkewed).
  database = t.database;
  const client = (database.db as unknown as { $client: pg.Pool | PGlite }).$client;
  run = (text, params = []) => (client as pg.Pool).query(text, params) as Promise<{ rows: unknown[] }>;
  await seedSkewed(run);
});
after(async () => { await t?.close(); });

/** What the list must answer, computed from the rows inserted (ids of one shape: JS and SQL order agree). */
function expected(scopeIds: string[], q: { limit: number; startingAfter?: string; endingBefore?: string; email?: string }) {
  let ids = scopeIds.filter((id) => (!q.startingAfter || id < q.startingAfter) && (!q.endingBefore || id > q.endingBefore));
  if (q.email) ids = ids.filter((id) => (Number(id.slice(4)) - 100) % 4 === 0);
  const reversed = Boolean(q.endingBefore && !q.startingAfter);
  const ordered = reversed ? ids.slice(0, q.limit + 1) : ids.slice().reverse().slice(0, q.limit + 1);
  const data = ordered.slice(0, q.limit);
  return { data: reversed ? data.reverse() : data, hasMore: ordered.length > q.limit };
}

async function check(key: string, scopeIds: string[], q: { limit: number; startingAfter?: string; endingBefore?: string; email?: string }) {
  const search = new URLSearchParams(Object.entries(q).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
  const res = await t.app.inject({ url: `/v1/customers?${search}`, headers: { authorization: basic(key) } });
  expectStatus(res, 200);
  const body = res.json() as { data: { id: string }[]; hasMore: boolean };
  assert.deepEqual({ data: body.data.map((c) => c.id), hasMore: body.hasMore }, expected(scopeIds, q), `${search}: ${res.body}`);
}

test("customers over HTTP: each direction stops at the scope's ends, not a neighbour's rows", async () => {
  for (const [key, environment] of [[m.sandboxKey, "sandbox"], [m.productionKey, "production"]] as const) {
    const mine = owned.get(`${m.id} ${environment}`)!;
    assert.equal(mine.length, 10);
    for (const limit of [1, 10, 11]) await check(key, mine, { limit });
    // The scope's first and last ids, the ids next to them (another owner's or environment's), and
    // strings before and after every id.
    const first = allIds.indexOf(mine[0]!);
    const last = allIds.indexOf(mine.at(-1)!);
    const cursors = [allIds[first - 1]!, mine[0]!, allIds[first + 1]!, allIds[last - 1]!, mine.at(-1)!, allIds[last + 1] ?? "cus_999", "cus_", "zzz"];
    for (const c of cursors) {
      await check(key, mine, { limit: 3, startingAfter: c });
      await check(key, mine, { limit: 3, endingBefore: c });
    }
    await check(key, mine, { limit: 3, startingAfter: mine.at(-1), endingBefore: mine[0] });
    await check(key, mine, { limit: 20, startingAfter: "zzz", endingBefore: "cus_" });
    for (const c of [undefined, mine[2], mine[7]]) {
      await check(key, mine, { limit: 2, email: "same@example.com", startingAfter: c });
      await check(key, mine, { limit: 2, email: "same@example.com", endingBefore: c });
    }
  }
});

test("customers: every cursor of every direction, for each of three neighbouring merchants in both environments", async () => {
  const cursors = [...allIds, "cus_", "cus_999", "a", "zzz"];
  const pairs = cursors.filter((_, i) => i % 8 === 0);
  for (const merchantId of [m.id.slice(0, -1), m.id, `${m.id}0`]) {
    for (const environment of ["sandbox", "production"] as const) {
      const ctx = { merchantId, environment, requestId: "t", actor: { type: "key" } } as unknown as RequestCtx;
      const mine = owned.get(`${merchantId} ${environment}`)!;
      const queries = [
        { limit: 100 }, { limit: 9 },
        ...cursors.flatMap((c) => [{ limit: 3, startingAfter: c }, { limit: 3, endingBefore: c }]),
        ...pairs.flatMap((s) => pairs.map((b) => ({ limit: 3, startingAfter: s, endingBefore: b }))),
      ];
      for (const q of queries) {
        const page = await listCustomers(t.database.db, ctx, q);
        assert.deepEqual({ data: page.data.map((c) => c.id), hasMore: page.hasMore }, expected(mine, q), `${merchantId} ${environment} ${JSON.stringify(q)}`);
      }
    }
  }
});

// A skewed table, as at 5,000,000 customers in bench/RESULTS.md: one merchant owns half of the
// customers, with the oldest ids; 40 others share the newer half. Subscriptions of mixed statuses.
const DEMO = "mer_0shapes";
async function seedSkewed(q: Run) {
  await q(`insert into plans (id, merchant_id, environment, name, price, currency, interval)
    select 'plan_' || k || '_' || env, case when k = 0 then '${DEMO}' else 'mer_1other' || lpad(k::text, 3, '0') end, env, 'Plan ' || k, 1000, 'BRL', 'month'
    from generate_series(0, 40) k, (values ('sandbox'), ('production')) v(env)`);
  await q(`insert into customers (id, merchant_id, environment, name, email)
    select 'cus_' || case when i <= 6000 then '0' else '1' end || lpad(i::text, 8, '0'),
      case when i <= 6000 then '${DEMO}' else 'mer_1other' || lpad((i % 40 + 1)::text, 3, '0') end,
      case when i % 4 = 0 then 'production' else 'sandbox' end, 'Customer ' || i, 'c' || i || '@example.com'
    from generate_series(1, 12000) i`);
  await q(`insert into subscriptions (id, merchant_id, environment, plan_id, customer_id, payment_method, status, billing_day, anchor_at,
      current_period_start, current_period_end)
    select 'sub_' || substr(c.id, 5), c.merchant_id, c.environment, p.id, c.id, '{"type":"credit_card"}',
      (array['active', 'active', 'active', 'paused', 'cancelled', 'expired', 'pending_activation'])[1 + abs(hashtext(c.id)) % 7],
      1, now(), now(), now() + interval '1 month'
    from customers c join plans p on p.merchant_id = c.merchant_id and p.environment = c.environment where right(c.id, 1) in ('0', '3', '7')`);
  await q("vacuum analyze customers");
  await q("vacuum analyze subscriptions");
  await q("analyze plans");
}

/** The statements a repo call issues, with their parameters. */
async function statementsOf(call: (db: Db) => Promise<unknown>) {
  const statements: { sql: string; params: unknown[] }[] = [];
  const client = (database.db as unknown as { $client: pg.Pool | PGlite }).$client;
  const logger: Logger = { logQuery: (sql, params) => statements.push({ sql, params }) };
  const db = (database.kind === "postgres" ? drizzlePg(client as pg.Pool, { schema, logger }) : drizzlePglite(client as PGlite, { schema, logger })) as unknown as Db;
  await call(db);
  return statements;
}

async function planOf(q: Run, st: { sql: string; params: unknown[] }): Promise<PlanNode> {
  const r = await q(`explain (format json) ${st.sql}`, st.params);
  return ((r.rows[0] as Record<string, unknown>)["QUERY PLAN"] as { Plan: PlanNode }[])[0]!.Plan;
}

const nodeTypes = (n: PlanNode): string[] => [n["Node Type"], ...(n.Plans ?? []).flatMap(nodeTypes)];

/** Runs fn on one connection inside a transaction that is rolled back (DDL included). */
async function rolledBack(fn: (q: Run) => Promise<void>) {
  const client = (database.db as unknown as { $client: pg.Pool | PGlite }).$client;
  const conn = database.kind === "postgres" ? await (client as pg.Pool).connect() : undefined;
  const q: Run = (text, params = []) => (conn ?? (client as unknown as pg.Pool)).query(text, params) as Promise<{ rows: unknown[] }>;
  await q("begin");
  try {
    await fn(q);
  } finally {
    await q("rollback");
    conn?.release();
  }
}

test("customers: the whole-scope list reads customers_scope_idx, the only index that gives its order", async () => {
  const ctx = { merchantId: DEMO, environment: "sandbox", requestId: "t", actor: { type: "key" } } as unknown as RequestCtx;
  const modes = [{}, { startingAfter: "cus_000003000" }, { endingBefore: "cus_000003000" }, { startingAfter: "cus_000003000", endingBefore: "cus_000002000" }];
  const statements = await Promise.all(modes.map((q) => statementsOf((db) => listCustomers(db, ctx, q))));
  for (const [i, [st]] of statements.entries()) {
    const plan = await planOf(run, st!);
    assert.ok(scansOf(plan).scans.some((s) => s.includes("customers_scope_idx")), `${JSON.stringify(modes[i])}: ${scansOf(plan).scans}`);
    assert.ok(!nodeTypes(plan).includes("Sort"), `${JSON.stringify(modes[i])}: ${nodeTypes(plan)}`);
  }
  // Without that index the order must cost a sort: the primary key (ids in order) cannot stand in
  // for it, which is what let the planner walk every newer merchant's rows first.
  await rolledBack(async (q) => {
    await q("drop index customers_scope_idx");
    for (const [i, [st]] of statements.entries()) {
      const plan = await planOf(q, st!);
      assert.ok(nodeTypes(plan).includes("Sort"), `${JSON.stringify(modes[i])}: ${scansOf(plan).scans}`);
    }
  });
});

test("subscriptions: counts by index only, filters by status through subscriptions_status_idx", async () => {
  const f = { merchantId: DEMO, environment: "sandbox" as const, page: 1, limit: 10 };
  const [count, page] = await statementsOf((db) => listSubscriptions(db, { ...f, status: "paused" }));
  assert.deepEqual(scansOf(await planOf(run, count!)).scans, ["Index Only Scan subscriptions_count_idx (subscriptions)"]);
  const pageScans = scansOf(await planOf(run, page!)).scans;
  assert.ok(pageScans.includes("Index Only Scan Backward subscriptions_status_idx (subscriptions)"), pageScans.join("; "));
  const [all] = await statementsOf((db) => listSubscriptions(db, f));
  assert.deepEqual(scansOf(await planOf(run, all!)).scans, ["Index Only Scan subscriptions_count_idx (subscriptions)"]);
});

/** The list as it was answered before: one count and one page, both over the joins. */
async function reference(f: ListFilter) {
  const params: unknown[] = [f.merchantId, f.environment];
  const where = [`s.merchant_id = $1`, `s.environment = $2`];
  if (f.customerId) where.push(`s.customer_id = $${params.push(f.customerId)}`);
  if (f.status) where.push(`s.status = $${params.push(f.status)}`);
  const from = `from subscriptions s join plans p on p.id = s.plan_id join customers c on c.id = s.customer_id where ${where.join(" and ")}`;
  const total = ((await run(`select count(*)::int as total ${from}`, params)).rows[0] as { total: number }).total;
  const rows = (await run(`select s.id, s.status, p.name as plan_name, c.name as customer_name, c.email as customer_email ${from}
    order by s.id desc limit ${f.limit} offset ${(f.page - 1) * f.limit}`, params)).rows;
  return { total, rows };
}

test("subscriptions: every filter and page answers what the plain joined query answered", async () => {
  const customerId = ((await run(`select customer_id from subscriptions where merchant_id = $1 and environment = 'sandbox' limit 1`, [DEMO])).rows[0] as { customer_id: string }).customer_id;
  for (const merchantId of [DEMO, "mer_1other007"]) {
    for (const environment of ["sandbox", "production"] as const) {
      for (const filter of [{}, { status: "paused" }, { status: "active" }, { status: "expired" }, { customerId }, { customerId, status: "active" }]) {
        for (const [page, limit] of [[1, 10], [2, 10], [7, 3], [1, 100], [40, 100]] as const) {
          const f: ListFilter = { merchantId, environment, page, limit, ...filter };
          const got = await listSubscriptions(database.db, f);
          const want = await reference(f);
          const pick = (r: Record<string, unknown>) => ({ id: r.id, status: r.status, plan: r.plan_name, customer: r.customer_name, email: r.customer_email });
          assert.deepEqual({ total: got.total, rows: got.rows.map((r) => pick(r as unknown as Record<string, unknown>)) },
            { total: want.total, rows: want.rows.map((r) => pick(r as Record<string, unknown>)) }, JSON.stringify(f));
        }
      }
    }
  }
});
