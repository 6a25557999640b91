// Renewal throughput: renewals billed per second by one and by two worker processes
// (`src/main.ts worker`) on PostgreSQL, for 100,000 subscriptions whose renewal is due.
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/subscriptions.ts
//
// Options (environment): BENCH_SUBSCRIPTIONS (default 100000), BENCH_WORKERS (default "1,2"),
// BENCH_SECONDS (default 60: how long each round measures; a full run of 100,000 renewals per
// round takes many minutes on a small machine, the rate is steady well before that).
// Each round seeds the due subscriptions in bulk with SQL into a scratch database next to
// DATABASE_URL's (dropped at the end), starts the workers, and counts renewals (periods whose
// charge was made) from the first one on. It then checks that no period was billed twice.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "../src/db/client.js";
import { createSealer } from "../src/lib/crypto.js";
import { createMerchantService } from "../src/modules/merchants/merchants.service.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log("bench/subscriptions.ts needs DATABASE_URL (a PostgreSQL server): skipped.");
  process.exit(0);
}
const SUBS = Number(process.env.BENCH_SUBSCRIPTIONS ?? 100_000);
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const CUSTOMERS = 1000;

const admin = new pg.Client({ connectionString: baseUrl });
await admin.connect();

async function scratch() {
  const name = `feira_bench_subs_${randomBytes(4).toString("hex")}`;
  await admin.query(`create database ${name}`);
  const url = new URL(baseUrl!);
  url.pathname = `/${name}`;
  return { name, url: url.toString() };
}

/** A merchant, a plan, 1,000 customers with a vault card each, and SUBS due subscriptions, in bulk. */
async function seed(url: string, encryptionKey: string) {
  const database = await openDatabase({ databaseUrl: url });
  await database.migrate();
  const sealer = createSealer(encryptionKey);
  const merchant = await createMerchantService({ db: database.db, sealer, adminApiKey: undefined })
    .createMerchant({ name: "Bench", email: "bench@example.com", password: "correct horse battery" });
  await database.close();
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  const sealed = sealer.seal("4111111111111111", `card:${merchant.id}`);
  await c.query(`insert into plans (id, merchant_id, environment, name, price, currency, interval)
                 values ('plan_bench', $1, 'sandbox', 'Bench monthly', 2990, 'BRL', 'month')`, [merchant.id]);
  await c.query(`insert into customers (id, merchant_id, environment, name, email)
                 select 'cus_bench' || lpad(i::text, 6, '0'), $1, 'sandbox', 'Customer ' || i, 'c' || i || '@example.com'
                 from generate_series(1, ${CUSTOMERS}) i`, [merchant.id]);
  await c.query(`insert into cards (id, merchant_id, environment, customer_id, brand, first_six, last_four, expiration_month, expiration_year, holder_name, number_sealed)
                 select 'card_bench' || lpad(i::text, 6, '0'), $1, 'sandbox', 'cus_bench' || lpad(i::text, 6, '0'), 'visa', '411111', '1111', '12', '2035', 'BENCH', $2
                 from generate_series(1, ${CUSTOMERS}) i`, [merchant.id, sealed]);
  await c.query(`insert into subscriptions (id, merchant_id, environment, plan_id, customer_id, payment_method, status, billing_day,
                   anchor_at, cycle, current_period_start, current_period_end, next_run_at, created_at)
                 select 'sub_' || lpad(i::text, 10, '0'), $1, 'sandbox', 'plan_bench', 'cus_bench' || lpad((1 + i % ${CUSTOMERS})::text, 6, '0'),
                   jsonb_build_object('type', 'credit_card', 'cardId', 'card_bench' || lpad((1 + i % ${CUSTOMERS})::text, 6, '0')),
                   'active', extract(day from now() - interval '31 days')::int, now() - interval '31 days', 0,
                   now() - interval '31 days', now() - interval '1 minute', now() - interval '1 minute', now() - interval '31 days'
                 from generate_series(1, ${SUBS}) i`, [merchant.id]);
  await c.query("analyze");
  return c;
}

function startWorker(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "src/main.ts", "worker"], {
    cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env },
  });
}

const results: { workers: number; renewals: number; seconds: number; perSecond: number }[] = [];
for (const workers of WORKERS) {
  const db = await scratch();
  const env = {
    DATABASE_URL: db.url, ENCRYPTION_KEY: randomBytes(32).toString("base64"), JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_API_KEY: `adm_${randomBytes(16).toString("hex")}`, LOG_LEVEL: "warn",
  };
  const c = await seed(db.url, env.ENCRYPTION_KEY);
  const billed = async () => Number((await c.query("select count(*)::int as n from subscription_invoices")).rows[0].n);
  const children = Array.from({ length: workers }, () => startWorker(env));
  try {
    while ((await billed()) === 0) await new Promise((r) => setTimeout(r, 100));
    const start = performance.now();
    const first = await billed();
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const renewals = (await billed()) - first;
    const seconds = (performance.now() - start) / 1000;
    for (const child of children) child.kill("SIGTERM");
    await Promise.all(children.map((child) => once(child, "exit")));
    const twice = (await c.query(`select count(*)::int as n from (select subscription_id, period_start from subscription_invoices
                                   group by 1, 2 having count(*) > 1) d`)).rows[0].n;
    const extra = (await c.query(`select count(*)::int as n from (select invoice_id from charges ch join subscription_charges sc on sc.charge_id = ch.id
                                   where ch.status = 'paid' group by 1 having count(*) > 1) d`)).rows[0].n;
    if (twice > 0 || extra > 0) throw new Error(`a period billed twice: ${twice} invoices, ${extra} paid twice`);
    results.push({ workers, renewals, seconds: Number(seconds.toFixed(1)), perSecond: Math.round(renewals / seconds) });
    console.log(`${workers} worker(s): ${renewals} renewals in ${seconds.toFixed(1)} s = ${Math.round(renewals / seconds)} renewals/s`);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
    await c.end();
    await admin.query(`drop database if exists ${db.name} with (force)`);
  }
}
console.log(JSON.stringify({ subscriptions: SUBS, cpus: os.cpus().length, node: process.version, results }));
await admin.end();
