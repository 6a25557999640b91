// Every list query reads the big tables through an index chosen by the planner itself: enough
// rows (40,000 charges over 40 merchants, with their customers, events, ledger entries...) and
// ANALYZE, never enable_seqscan = off. The queries are the ones the server issues: the repo
// functions of the list routes, run with a logger that records each statement and its parameters
// (bench/growth-explain.ts), then EXPLAIN (ANALYZE, FORMAT JSON) of each. Dropping one of the
// indexes named below makes this test fail.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { Logger } from "drizzle-orm";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import * as schema from "../../src/db/schema.js";
import type { Database, Db } from "../../src/db/client.js";
import { explainCalls, explainListQueries, scansOf, type MakeDb, type PlanSummary, type Run } from "../../bench/growth-explain.js";
import { listSubscriptions } from "../../src/modules/subscriptions/subscriptions.repo.js";
import { prepareSeed, seedLevel } from "../../bench/growth-seed.js";
import { freshDatabase } from "../helpers/db.js";

const DEMO = "mer_0listindexes000000000000";
let database: Database;
let plans: PlanSummary[];
let run: Run;
let makeDb: MakeDb;

before(async () => {
  database = await freshDatabase();
  const client = (database.db as unknown as { $client: pg.Pool | PGlite }).$client;
  // pg's Pool and PGlite both answer query(text, params) with { rows }.
  run = (text: string, params: unknown[] = []) => (client as pg.Pool).query(text, params) as Promise<{ rows: unknown[] }>;
  await run(`insert into merchants (id, name, email, password_hash, connect_enabled, pix_key) values ($1, 'Demo', 'demo@example.com', 'x', true, 'pix')`, [DEMO]);
  await prepareSeed({ query: (text) => run(text, []) }, DEMO, 40);
  const ids = await seedLevel({ query: (text) => run(text, []) }, { demo: DEMO, merchants: 40, demoShare: 0, from: 0, to: 40_000 });
  makeDb = (logger: Logger) => (database.kind === "postgres"
    ? drizzlePg(client as pg.Pool, { schema, logger })
    : drizzlePglite(client as PGlite, { schema, logger })) as unknown as Db;
  plans = await explainListQueries(run, makeDb, DEMO, ids);
});
after(async () => { await database?.close(); });

const show = (p: PlanSummary) => `${p.name}: ${p.scans.join("; ")}\n${p.sql}`;

/** The index (or one of them) each main list reads its big table through: the planner's own choice at this size. */
const EXPECTED: Record<string, string | string[]> = {
  // Newest first by creation (created_at, id), whatever the ids say; a cursor's created_at is
  // read by its primary key inside the statement.
  "charges": "charges_scope_created_idx",
  "charges startingAfter limit 100": "charges_scope_created_idx",
  "charges endingBefore": "charges_scope_created_idx",
  "charges status=refunded": "charges_status_created_idx",
  "charges status=in_analysis": "charges_status_created_idx",
  "charges paymentMethod=boleto": "charges_method_created_idx",
  "charges customerId": "charges_customer_created_idx",
  // A created-date window is a range of the same index.
  "charges created one day": "charges_scope_created_idx",
  "charges status + cursor": "charges_status_created_idx",
  "payment link payments": "charges_link_created_idx",
  "expiry janitor": "charges_pending_expiry_idx",
  "provider webhook reference": "charges_live_psp_ref_idx",
  // Reconciliation's rounds (worker tasks, every few seconds whatever the size).
  "reconcile open live charges": "charges_live_open_idx",
  "reconcile open live charges, cursor": "charges_live_open_idx",
  "reconcile settled sweep": "charges_live_sweep_idx",
  "late refunds pending": "charges_late_refund_idx",
  // Either partial index holds only open charges: each planner takes one.
  "live expiry": ["charges_pending_expiry_idx", "charges_live_open_idx"],
  // The whole scope in its index's order (inScopeOrdered): no other index gives that order.
  "customers": "customers_scope_idx",
  "customers cursor": "customers_scope_idx",
  "customers endingBefore": "customers_scope_idx",
  "customers both cursors": "customers_scope_idx",
  "customers email": "customers_email_id_idx",
  // The exact total from the small deduplicated index, then the page's ids from one index.
  "subscriptions (1/2)": "subscriptions_count_idx",
  "subscriptions (2/2)": "subscriptions_scope_idx",
  "subscriptions status=paused (1/2)": "subscriptions_count_idx",
  "subscriptions status=paused (2/2)": "subscriptions_status_idx",
  // A merchant's hundred customers here: its scope index is the cheaper way to them (the trigram
  // indexes' turn comes with thousands, the search test below).
  "subscriptions search (1/2)": ["customers_scope_idx", "customers_name_trgm_idx", "customers_email_trgm_idx"],
  "subscriptions search (2/2)": ["customers_scope_idx", "customers_name_trgm_idx", "customers_email_trgm_idx"],
  "events": "events_scope_idx",
  "endpoint deliveries": "webhook_deliveries_endpoint_idx",
  "balance transactions": "ledger_entries_owner_idx",
};

// The tables that are big at this size (10,000 rows and more, or thousands of the demo merchant's
// own). Cards, subscriptions, submerchants and payout requests are a few hundred rows here, where a
// Seq Scan is the right plan; bench/growth.ts checks them at millions of charges.
const BIG_HERE = new Set(["charges", "customers", "events", "webhook_deliveries", "ledger_entries", "ledger_transactions", "settlements"]);

test("no list query reads a big table by Seq Scan", () => {
  const seq = plans.filter((p) => scansOf(p.plan, BIG_HERE).bigSeqScans.length > 0);
  assert.deepEqual(seq.map(show), []);
});

test("each main list uses its index", () => {
  const wrong = Object.entries(EXPECTED).flatMap(([name, expected]) => {
    const p = plans.find((x) => x.name === name);
    if (!p) return [`${name}: not explained`];
    const indexes = [expected].flat();
    return p.scans.some((s) => s.split(" ").some((word) => indexes.includes(word))) ? [] : [`${name}: expected ${indexes.join(" or ")}; ${show(p)}`];
  });
  assert.deepEqual(wrong, []);
});

test("subscriptions search: at 20,000 customers of one merchant, the matching ones through their trigram indexes, then their subscriptions", async () => {
  const owner = "mer_0listsearch00000000000000";
  await run(`insert into merchants (id, name, email, password_hash, connect_enabled, pix_key) values ($1, 'Search', 'search@example.com', 'x', false, 'pix')`, [owner]);
  await run(`insert into plans (id, merchant_id, environment, name, price, currency, interval)
    values ('plan_0listsearch', $1, 'sandbox', 'Mensal', 1000, 'BRL', 'month')`, [owner]);
  await run(`insert into customers (id, merchant_id, environment, name, email)
    select 'cus_0listsearch' || lpad(g::text, 8, '0'), $1, 'sandbox', 'Cliente ' || md5('name' || g), md5('email' || g) || '@loja.example'
    from generate_series(1, 20000) g`, [owner]);
  await run(`insert into subscriptions (id, merchant_id, environment, plan_id, customer_id, payment_method, status, billing_day, anchor_at,
      current_period_start, current_period_end, next_run_at)
    select 'sub_0listsearch' || lpad(g::text, 8, '0'), $1, 'sandbox', 'plan_0listsearch', 'cus_0listsearch' || lpad(g::text, 8, '0'),
      '{"type":"credit_card"}', 'active', 1, now(), now(), now() + interval '1 month', now() + interval '1 month'
    from generate_series(1, 20000) g`, [owner]);
  // VACUUM as autovacuum would: rows inserted after a GIN index wait in its pending list, read
  // whole by every search until a vacuum (or 4 MB of them) moves them into the index.
  await run("vacuum analyze customers", []);
  await run("analyze subscriptions", []);
  const filter = { merchantId: owner, environment: "sandbox" as const, page: 1, limit: 10 };
  // Names and e-mails as varied as real ones (hex digests): a piece of one is one customer's.
  const [{ email }] = await run(`select md5('email' || 12345) as email`, []).then((r) => r.rows as [{ email: string }]);
  const piece = email.slice(3, 15);
  const found = await listSubscriptions(database.db, { ...filter, search: piece.toUpperCase() });
  assert.deepEqual(found.rows.map((r) => r.id), ["sub_0listsearch00012345"]);
  assert.equal(found.total, 1);
  const explained = await explainCalls(run, makeDb, [["search", (db) => listSubscriptions(db, { ...filter, search: piece })]]);
  assert.equal(explained.length, 2);
  for (const p of explained) {
    assert.ok(p.scans.some((x) => /customers_(name|email)_trgm_idx/.test(x)), show(p));
    assert.ok(p.scans.some((x) => /subscriptions_customer_idx/.test(x)), show(p));
    assert.ok(!p.scans.some((x) => /subscriptions_(scope|count|status)_idx|Seq Scan/.test(x)), show(p));
  }
});
