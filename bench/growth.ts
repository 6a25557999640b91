// How cost grows (issue 12, target 6): card charges/s and p99, and every list route of the
// OpenAPI document with its filters and cursor pages, as the database fills up, next to the
// HTTP ceiling of the same server in the same round; then EXPLAIN (ANALYZE, BUFFERS) of each
// list query as the server issues it, at the largest level.
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npx tsx bench/growth.ts
//   ... bench/growth.ts --levels 10000,1000000,5000000 --merchants 1,100,10000 --merchant-charges 1000000
//   ... bench/growth.ts --levels 10000 --merchants "" --duration 2 --warmup 1     # a quick try
//   ... bench/growth.ts --levels 1000000 --merchants "" --only balance               # one scenario (and the ceiling)
//
// Two series, each in scratch databases next to DATABASE_URL's (dropped at the end, also on failure):
// - charges: one database that grows through --levels; 100 merchants, the demo merchant (whose key
//   the benchmark uses) owns half of the charges, the others share the rest.
// - merchants: for each of --merchants, a fresh database with --merchant-charges charges spread
//   evenly over that many merchants (the other merchants are the demo merchant's submerchants).
// Existing data is written by set-based SQL (INSERT ... SELECT generate_series) and ANALYZEd; its
// ledger entries are then rolled into the running balances by the worker's job (timed). The
// server is started per level as an operator starts it (`src/main.ts api`, rate limits off). Only
// the API role runs: a worker would settle, expire and purge the seeded rows while we measure.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { drizzle } from "drizzle-orm/node-postgres";
import * as schema from "../src/db/schema.js";
import type { Db } from "../src/db/client.js";
import { createScratchDatabase, freePort, measure, serverEnv, startServer, type Row, type ScratchDatabase } from "./harness.js";
import { basicAuth, scenarios, type BenchServer, type Scenario } from "./scenarios.js";
import { createLedgerService } from "../src/modules/ledger/ledger.service.js";
import { salesRollupTask } from "../src/modules/connect/connect.service.js";
import { explainListQueries, type PlanSummary } from "./growth-explain.js";
import { seedLevel, prepareSeed, type SeedIds } from "./growth-seed.js";

const { values: opts } = parseArgs({
  options: {
    levels: { type: "string", default: "10000,1000000,5000000" },
    merchants: { type: "string", default: "1,100,10000" },
    "merchant-charges": { type: "string", default: "1000000" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    connections: { type: "string", default: "10" },
    // Scenario names to measure (the ceiling is always measured), e.g. --only balance,charge-card.
    only: { type: "string", default: "" },
  },
});
const list = (s: string) => s.split(",").map((x) => x.trim()).filter(Boolean).map(Number);
const levels = list(opts.levels!);
const merchantCounts = list(opts.merchants!);
const merchantCharges = Number(opts["merchant-charges"]);
const only = new Set(opts.only!.split(",").map((x) => x.trim()).filter(Boolean));
const timing = { seconds: Number(opts.duration), warmup: Number(opts.warmup), connections: Number(opts.connections) };
const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log("bench/growth.ts needs DATABASE_URL (a PostgreSQL server): skipped.");
  process.exit(0);
}

const json = { "content-type": "application/json" };
const get = (name: string, description: string, path: (s: BenchServer) => string): Scenario => ({
  name, description, expectStatus: 200,
  request: (s) => ({ method: "GET", path: path(s), headers: { authorization: basicAuth(s.sandboxKey) } }),
});
const byName = (name: string) => scenarios.find((s) => s.name === name)!;

/** The scenarios of one level; ids come from the seeded data (a customer of the demo merchant, a cursor...). */
function levelScenarios(ids: SeedIds): Scenario[] {
  const q = encodeURIComponent;
  return [
    byName("ceiling"),
    byName("charge-card"),
    get("charges", "GET /v1/charges: the newest page", () => "/v1/charges"),
    get("charges-page", "GET /v1/charges?startingAfter=<an id in the middle>&limit=100: a cursor page deep in the list", () => `/v1/charges?limit=100&startingAfter=${ids.middleChargeId}`),
    get("charges-before", "GET /v1/charges?endingBefore=<an id in the middle>: a cursor page backwards", () => `/v1/charges?endingBefore=${ids.middleChargeId}`),
    get("charges-status", "GET /v1/charges?status=refunded (5 % of charges)", () => "/v1/charges?status=refunded"),
    get("charges-status-rare", "GET /v1/charges?status=in_analysis (2 %)", () => "/v1/charges?status=in_analysis"),
    get("charges-method", "GET /v1/charges?paymentMethod=boleto (8 %)", () => "/v1/charges?paymentMethod=boleto"),
    get("charges-customer", "GET /v1/charges?customerId=<a customer>", () => `/v1/charges?customerId=${ids.customerId}`),
    get("charges-created", "GET /v1/charges?createdGte=<30 days ago>&createdLte=<29 days ago>", () => `/v1/charges?createdGte=${q(ids.dayStart)}&createdLte=${q(ids.dayEnd)}`),
    get("link-payments", "GET /v1/payment-links/:id/payments", () => `/v1/payment-links/${ids.linkId}/payments`),
    get("customers", "GET /v1/customers", () => "/v1/customers"),
    get("customers-email", "GET /v1/customers?email=<one>", () => `/v1/customers?email=${q(ids.customerEmail)}`),
    get("cards", "GET /v1/customers/:id/cards", () => `/v1/customers/${ids.customerId}/cards`),
    get("events", "GET /v1/events", () => "/v1/events"),
    get("events-type", "GET /v1/events?type=charge.refunded", () => "/v1/events?type=charge.refunded"),
    get("events-family", "GET /v1/events?type=charge.*", () => "/v1/events?type=charge.*"),
    get("deliveries", "GET /v1/webhook-endpoints/:id/deliveries", () => `/v1/webhook-endpoints/${ids.endpointId}/deliveries`),
    get("webhook-endpoints", "GET /v1/webhook-endpoints", () => "/v1/webhook-endpoints"),
    get("balance-transactions", "GET /v1/balance-transactions", () => "/v1/balance-transactions"),
    get("balance", "GET /v1/balance (not a list: the running balances of the merchant plus its entries not rolled up yet)", () => "/v1/balance"),
    get("payment-links", "GET /v1/payment-links", () => "/v1/payment-links"),
    get("plans", "GET /v1/plans", () => "/v1/plans"),
    get("subscriptions", "GET /v1/subscriptions (page 1, with its total)", () => "/v1/subscriptions"),
    get("subscriptions-status", "GET /v1/subscriptions?status=paused", () => "/v1/subscriptions?status=paused"),
    get("submerchants", "GET /v1/submerchants (page 1, with its total and sales)", () => "/v1/submerchants"),
    get("payout-requests", "GET /v1/payout-requests (page 1, with its total)", () => "/v1/payout-requests"),
  ];
}

interface LevelResult {
  series: string; charges: number; merchants: number; seedSeconds: number; rollupSeconds: number; load: string; rows: Row[];
  /** Buffers and time of each list query at this level: unlike req/s, not moved by the other work on the machine. */
  explained: { name: string; buffers: number; ms: number; scans: string[] }[];
}
const results: LevelResult[] = [];
let plans: PlanSummary[] = [];
let largest: PlanSummary[] = [];
const dataDir = mkdtempSync(path.join(os.tmpdir(), "feira-growth-"));
const scratches: ScratchDatabase[] = [];

async function round(series: string, db: ScratchDatabase, spec: { charges: number[]; merchants: number; demoShare: number; explain: boolean }) {
  const port = await freePort();
  const env = serverEnv({ port, dataDir, databaseUrl: db.url, extra: { RATE_LIMIT_PER_KEY: "0" } });
  // The first start migrates and makes the demo merchant, whose key the scenarios use.
  let server = startServer(env, { args: ["api"] });
  let keys: BenchServer;
  try {
    keys = await server.ready();
  } finally {
    await server.stop();
  }
  const client = new pg.Client({ connectionString: db.url });
  await client.connect();
  try {
    await prepareSeed(client, keys.merchantId, spec.merchants);
    let have = 0;
    for (const target of spec.charges) {
      const started = performance.now();
      const ids = await seedLevel(client, { demo: keys.merchantId, merchants: spec.merchants, demoShare: spec.demoShare, from: have, to: target });
      have = target;
      const seedSeconds = Math.round((performance.now() - started) / 100) / 10;
      console.log(`${series}: ${target} charges, ${spec.merchants} merchants seeded in ${seedSeconds} s`);
      const rollup = await rollUpSeed(db.url);
      console.log(`${series}: ${rollup.entries} ledger entries rolled up in ${rollup.seconds} s (the worker's job, as after migration 0009), then VACUUM ANALYZE`);
      server = startServer(env, { args: ["api"] });
      const rows: Row[] = [];
      try {
        const bench = await server.ready(keys);
        for (const scenario of levelScenarios(ids).filter((x) => only.size === 0 || only.has(x.name) || x.name === "ceiling")) {
          rows.push(await measure(bench, scenario, timing));
        }
      } finally {
        await server.stop();
      }
      // Every level is explained: the buffers a query touches show how its cost grows; the largest
      // level's plans are printed in full.
      const pool = new pg.Pool({ connectionString: db.url, max: 2 });
      try {
        plans = await explainListQueries((text, params) => pool.query(text, params), (logger) => drizzle(pool, { schema, logger }) as unknown as Db, keys.merchantId, ids);
      } finally {
        await pool.end();
      }
      if (spec.explain) largest = plans;
      const explained = plans.map((p) => ({ name: p.name, buffers: p.hit + p.read, ms: Number(p.ms.toFixed(2)), scans: p.scans }));
      results.push({ series, charges: target, merchants: spec.merchants, seedSeconds, rollupSeconds: rollup.seconds, load: os.loadavg().map((x) => x.toFixed(1)).join(" "), rows, explained });
      printLevel(results.at(-1)!);
    }
  } finally {
    await client.end();
  }
}

/**
 * Rolls the seeded ledger entries into the running balances with the worker's own job, as it
 * works through the entries that exist when migration 0009 is deployed; then VACUUM ANALYZE, as
 * autovacuum does after a table's rows were all updated, so that the balances are read as in
 * the steady state (rollups plus a short tail). The same for the submerchants' sales, which the
 * seed's charges put in charge_sales_tail through the triggers of migration 0021.
 */
async function rollUpSeed(url: string): Promise<{ entries: number; seconds: number }> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  try {
    const started = performance.now();
    const db = drizzle(pool, { schema }) as unknown as Db;
    const entries = await createLedgerService({ db }).rollUp();
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const salesStarted = performance.now();
    const sales = await salesRollupTask(db).run();
    console.log(`${sales} submerchant sales rolled up in ${Math.round((performance.now() - salesStarted) / 100) / 10} s (connect.sales-rollup)`);
    await pool.query("vacuum analyze ledger_entries, ledger_rollups, charge_sales_tail, charge_sales_rollups");
    return { entries, seconds };
  } finally {
    await pool.end();
  }
}

function printLevel(r: LevelResult) {
  const ceiling = r.rows.find((x) => x.scenario === "ceiling")!;
  console.log(`\n${r.series}: ${r.charges.toLocaleString("en")} charges, ${r.merchants.toLocaleString("en")} merchants (load average ${r.load})`);
  console.log("| scenario | req/s | p50 ms | p99 ms | vs ceiling |");
  console.log("|---|---:|---:|---:|---:|");
  for (const x of r.rows) {
    console.log(`| ${x.scenario} | ${Math.round(x.requestsPerSecond)} | ${x.p50} | ${x.p99} | ${((x.requestsPerSecond / ceiling.requestsPerSecond) * 100).toFixed(1)} % |`);
  }
  // This level's plans now, so that a run stopped at a later level still has them.
  for (const x of r.explained) console.log(`explain | ${x.name} | ${x.scans.join("; ")} | ${x.buffers} buffers | ${x.ms} ms |`);
}

/** One table per series: a column per level, a row per scenario, "req/s / p99 ms". */
function printSeries(series: string) {
  const rs = results.filter((r) => r.series === series);
  if (rs.length === 0) return;
  console.log(`\n${series}`);
  console.log(`| scenario | ${rs.map((r) => `${r.charges.toLocaleString("en")} charges, ${r.merchants.toLocaleString("en")} merchants`).join(" | ")} |`);
  console.log(`|---|${rs.map(() => "---:").join("|")}|`);
  for (const name of rs[0]!.rows.map((x) => x.scenario)) {
    console.log(`| ${name} | ${rs.map((r) => { const x = r.rows.find((y) => y.scenario === name)!; return `${Math.round(x.requestsPerSecond)} / ${x.p99}`; }).join(" | ")} |`);
  }
  console.log(`| load average (1, 5, 15 min) | ${rs.map((r) => r.load).join(" | ")} |`);
  console.log(`| seeding, s | ${rs.map((r) => r.seedSeconds).join(" | ")} |`);
  console.log(`| ledger rollup of the seeded entries, s | ${rs.map((r) => r.rollupSeconds).join(" | ")} |`);
}

/** Buffers / ms of each list query at each level, one column per level. */
function printExplained() {
  if (results.length === 0) return;
  console.log("\nEXPLAIN (ANALYZE, BUFFERS) of each list query at each level: buffers touched / execution ms");
  console.log(`| query | ${results.map((r) => `${r.series}: ${r.charges.toLocaleString("en")} charges, ${r.merchants.toLocaleString("en")} merchants`).join(" | ")} |`);
  console.log(`|---|${results.map(() => "---:").join("|")}|`);
  for (const name of results[0]!.explained.map((x) => x.name)) {
    console.log(`| ${name} | ${results.map((r) => { const x = r.explained.find((y) => y.name === name); return x ? `${x.buffers} / ${x.ms}` : "-"; }).join(" | ")} |`);
  }
}

// Ctrl-C still drops the scratch databases (the finally below does not run on a signal).
process.once("SIGINT", () => {
  void Promise.all(scratches.map((db) => db.drop().catch(() => undefined))).then(() => process.exit(130));
});

try {
  console.log(`feira growth: ${os.cpus().length} CPUs, node ${process.version}, ${timing.connections} connections, ` +
    `${timing.warmup} s warm-up + ${timing.seconds} s per scenario; autocannon, the server and PostgreSQL share the CPUs`);
  if (levels.length > 0) {
    const db = await createScratchDatabase(baseUrl, "feira_growth");
    scratches.push(db);
    await round("charges", db, { charges: levels, merchants: 100, demoShare: 50, explain: true });
    await db.drop();
    scratches.splice(scratches.indexOf(db), 1);
  }
  for (const merchants of merchantCounts) {
    const db = await createScratchDatabase(baseUrl, "feira_growth");
    scratches.push(db);
    await round("merchants", db, { charges: [merchantCharges], merchants, demoShare: 0, explain: levels.length === 0 });
    await db.drop();
    scratches.splice(scratches.indexOf(db), 1);
  }
  printSeries("charges");
  printSeries("merchants");
  printExplained();
  if (largest.length > 0) {
    console.log("\nEXPLAIN (ANALYZE, BUFFERS) at the largest level");
    console.log("| query | plan (scans) | rows | buffers hit/read | ms | seq scan on a big table |");
    console.log("|---|---|---:|---:|---:|---|");
    for (const p of largest) {
      console.log(`| ${p.name} | ${p.scans.join("; ")} | ${p.rows} | ${p.hit}/${p.read} | ${p.ms.toFixed(2)} | ${p.bigSeqScans.join(", ") || "none"} |`);
    }
  }
  console.log("");
  console.log(JSON.stringify({ cpus: os.cpus().length, node: process.version, timing, results }));
} finally {
  for (const db of scratches) await db.drop().catch((e: unknown) => console.error(`could not drop ${db.name}:`, e));
  rmSync(dataDir, { recursive: true, force: true });
}
