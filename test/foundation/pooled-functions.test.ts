import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { openDatabase, type Database } from "../../src/db/client.js";
import { appsOn, seedMerchant, testConfig, type TestApp } from "../helpers/app.js";
import { cardCharge, CARDS, get, post } from "../helpers/charges.js";
import { freshDatabase } from "../helpers/db.js";
import { until } from "../helpers/wait.js";
// run-suite: postgres: PL/pgSQL functions of a PostgreSQL database

// With DATABASE_POOL_MODE=transaction (a transaction-mode pooler, where named prepared statements
// cannot be kept) the hot path's statements run through PL/pgSQL functions after their first run,
// so PostgreSQL plans them once per backend (src/db/pooled-functions.ts). Unnamed statements on a
// direct connection are what that mode sends, so no pooler is needed to test it.

const skip = process.env.DATABASE_URL ? false : "needs PostgreSQL (DATABASE_URL)";

let base: Database & { url?: string };
let pooled: Database;
let apps: ReturnType<typeof appsOn>;
let t: TestApp;
let direct: pg.Client;
let key: string;
const config = testConfig();

before(async () => {
  if (skip) return;
  base = await freshDatabase();
  direct = new pg.Client({ connectionString: base.url });
  await direct.connect();
  // Counted per function from here on, for the sessions the pooled app opens next.
  await direct.query(`alter database "${new URL(base.url!).pathname.slice(1)}" set track_functions = 'pl'`);
  await startPooled();
  key = (await seedMerchant(t)).sandboxKey;
});

async function startPooled(): Promise<void> {
  pooled = await openDatabase({ databaseUrl: base.url, poolMode: "transaction" });
  apps = appsOn({ ...pooled, url: base.url });
  t = await apps.start(config);
}

async function stopPooled(): Promise<void> {
  await apps.close();
  await pooled.close();
}

after(async () => {
  if (skip) return;
  await stopPooled();
  await direct.end();
  await base.close();
});

const functions = async () =>
  (await direct.query<{ n: number }>(`select count(*)::int as n from pg_proc where proname like 'feira\\_s\\_%'`)).rows[0]!.n;
const calls = async () =>
  (await direct.query<{ n: number }>(`select coalesce(sum(calls), 0)::int as n from pg_stat_user_functions where funcname like 'feira\\_s\\_%'`)).rows[0]!.n;

async function paidCharge(): Promise<Record<string, unknown>> {
  const res = await post(t, key, "/v1/charges", cardCharge(CARDS.visa));
  assert.equal(res.statusCode, 201, res.body);
  const charge = res.json() as Record<string, unknown>;
  assert.equal(charge.status, "paid");
  return charge;
}

test("a charge's statements run through functions after their first run, and answer the same", { skip }, async () => {
  const first = await paidCharge();
  await until("the charge path's functions are defined", async () => (await functions()) >= 2);
  const later = [];
  for (let i = 0; i < 5; i++) later.push(await paidCharge());

  // What the function wrote reads back as the unnamed statement's did, field for field.
  const shape = (c: Record<string, unknown>) => Object.fromEntries(Object.entries(c).map(([k, v]) => [k, v === null ? "null" : typeof v]));
  const [a, b] = await Promise.all([get(t, key, `/v1/charges/${String(first.id)}`), get(t, key, `/v1/charges/${String(later[4]!.id)}`)]);
  assert.equal(a.statusCode, 200, a.body);
  assert.deepEqual(shape(b.json()), shape(a.json()));
  assert.equal(b.json().amount, a.json().amount);
  assert.equal(b.json().customer?.id, a.json().customer?.id, "the same buyer found by both");
  const balance = await get(t, key, "/v1/balance");
  assert.equal(balance.statusCode, 200, balance.body);
});

test("those charges called the functions (PostgreSQL's own count)", { skip }, async () => {
  // A backend reports its counts when it ends (or after 10 s idle): end the app's connections.
  await stopPooled();
  await until("calls of the functions counted", async () => (await calls()) >= 5);
  await startPooled();
});

test("functions dropped under a running process: the next charge still succeeds, and they are defined again", { skip }, async () => {
  await paidCharge();
  await until("functions defined", async () => (await functions()) >= 2);
  const { rows } = await direct.query<{ sig: string; oid: number }>(`select oid::regprocedure::text as sig, oid::int as oid from pg_proc where proname like 'feira\\_s\\_%'`);
  for (const { sig } of rows) await direct.query(`drop function ${sig}`);
  // Every function that was defined is gone. (The process's worker may define one again at once,
  // for a statement of its own: so the old ones are looked for, not a count of zero.)
  const left = await direct.query(`select 1 from pg_proc where oid = any($1::oid[])`, [rows.map((r) => r.oid)]);
  assert.equal(left.rowCount, 0);
  await paidCharge();
  await until("functions defined again", async () => (await functions()) >= 2);
  await paidCharge();
});

