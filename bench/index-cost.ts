// What the secondary indexes written by a card charge cost (issue 26, target 2): the same
// compiled server and scratch database, card charges measured with every index, then with the
// secondary indexes of charges, events and ledger_entries dropped (primary keys and unique
// indexes stay: correctness needs them), alternating, pair after pair. Per round: charges/s and
// CPU per charge of the server and of its PostgreSQL backends (the CPU moves far less than the
// rate when the host is noisy). The indexes are rebuilt at the end.
//
//   npm run build
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npx tsx bench/index-cost.ts
//   BENCH_PAIRS=4 BENCH_DURATION=10 BENCH_CONNECTIONS=16 RATE_LIMIT_PER_KEY=1000000 (the defaults)
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { cpuProbe, createScratchDatabase, freePort, measure, serverEnv, startServer, type Row } from "./harness.js";
import { scenarios } from "./scenarios.js";

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log("bench/index-cost.ts needs DATABASE_URL (a PostgreSQL server): skipped.");
  process.exit(0);
}
process.env.BENCH_COMPILED = "1";
const pairs = Number(process.env.BENCH_PAIRS ?? 4);
const seconds = Number(process.env.BENCH_DURATION ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 16);
const TABLES = ["charges", "events", "ledger_entries"];
const card = scenarios.find((s) => s.name === "charge-card")!;

const scratch = await createScratchDatabase(baseUrl, "feira_index_cost");
const dataDir = mkdtempSync(path.join(os.tmpdir(), "feira-bench-"));
const port = await freePort();
// The limits count every request and refuse none (RATE_LIMIT_PER_KEY=1000000), as in target 2.
const rateLimit = process.env.RATE_LIMIT_PER_KEY ?? "1000000";
const server = startServer(serverEnv({ port, dataDir, databaseUrl: scratch.url, extra: { RATE_LIMIT_PER_KEY: rateLimit } }));
const db = new pg.Client({ connectionString: scratch.url });
try {
  const bench = await server.ready();
  await db.connect();
  // Secondary indexes only: not a primary key, not unique (a unique index is a rule, not a speed-up).
  const { rows: indexes } = await db.query<{ table: string; name: string; def: string }>(
    `select t.relname as table, i.relname as name, pg_get_indexdef(x.indexrelid) as def
       from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid
      where t.relname = any($1) and not x.indisprimary and not x.indisunique order by 1, 2`, [TABLES]);
  console.log(`feira index-cost bench: PostgreSQL, compiled, RATE_LIMIT_PER_KEY=${rateLimit}, ${os.cpus().length} CPUs, node ${process.version}, ${connections} connections, ${seconds} s per round`);
  console.log(`secondary indexes a charge writes (${indexes.length}):`);
  for (const i of indexes) console.log(`  ${i.table}.${i.name}`);
  const cpu = cpuProbe(server.child.pid!, scratch.name);
  const round = (): Promise<Row> => measure(bench, card, { seconds, warmup: 2, connections, cpu });
  const results: { pair: number; withIndexes: Row; without: Row }[] = [];
  for (let pair = 1; pair <= pairs; pair++) {
    const withIndexes = await round();
    for (const i of indexes) await db.query(`drop index ${i.name}`);
    const without = await round();
    for (const i of indexes) await db.query(i.def);
    results.push({ pair, withIndexes, without });
    const f = (r: Row) => `${Math.round(r.requestsPerSecond)}/s, p99 ${r.p99} ms (${r.serverCpuMs} / ${r.dbCpuMs})`;
    console.log(`  pair ${pair}: with ${f(withIndexes)}; without ${f(without)}`);
  }
  const mean = (rows: Row[], k: keyof Row) => rows.reduce((a, r) => a + Number(r[k] ?? 0), 0) / rows.length;
  const w = results.map((r) => r.withIndexes);
  const wo = results.map((r) => r.without);
  console.log("\n| pair | with the indexes: charges/s (server / database CPU ms per charge) | without them | ratio |");
  console.log("|---|---|---|---:|");
  for (const r of results) {
    console.log(`| ${r.pair} | ${Math.round(r.withIndexes.requestsPerSecond)} (${r.withIndexes.serverCpuMs} / ${r.withIndexes.dbCpuMs}) | ${Math.round(r.without.requestsPerSecond)} (${r.without.serverCpuMs} / ${r.without.dbCpuMs}) | ${(r.without.requestsPerSecond / r.withIndexes.requestsPerSecond).toFixed(2)} |`);
  }
  console.log(`| mean | ${Math.round(mean(w, "requestsPerSecond"))} (${mean(w, "serverCpuMs").toFixed(2)} / ${mean(w, "dbCpuMs").toFixed(2)}) | ${Math.round(mean(wo, "requestsPerSecond"))} (${mean(wo, "serverCpuMs").toFixed(2)} / ${mean(wo, "dbCpuMs").toFixed(2)}) | ${(mean(wo, "requestsPerSecond") / mean(w, "requestsPerSecond")).toFixed(2)} |`);
  console.log(JSON.stringify({ indexes: indexes.map((i) => `${i.table}.${i.name}`), results }));
} finally {
  await db.end().catch(() => undefined);
  await server.stop();
  await scratch.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
