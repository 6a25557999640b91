// How long the indexes of migration 0007 take to build on a large database, CONCURRENTLY (as
// docs/deploy.md tells an operator to build them before deploying) and with the plain CREATE INDEX
// the migration runs (which blocks writes to the table meanwhile).
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npx tsx bench/index-build.ts [charges, default 1000000]
//   npx tsx bench/index-build.ts postgres://.../feira_growth_xxxx      # a database bench/growth.ts left seeded
//
// Seeds a scratch database next to DATABASE_URL's with bench/growth-seed.ts (100 merchants, the
// first one holding half of the charges) and drops it at the end.
import { readFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";
import { openDatabase } from "../src/db/client.js";
import { createScratchDatabase, ROOT } from "./harness.js";
import { prepareSeed, seedLevel } from "./growth-seed.js";

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl && !process.argv[2]?.startsWith("postgres")) {
  console.log("bench/index-build.ts needs DATABASE_URL (a PostgreSQL server): skipped.");
  process.exit(0);
}
const existing = process.argv[2]?.startsWith("postgres") ? process.argv[2] : undefined;
const charges = existing ? 0 : Number(process.argv[2] ?? 1_000_000);
const DEMO = "mer_0indexbuild0000000000000";
const statements = readFileSync(path.join(ROOT, "src/db/migrations/0007_list_indexes.sql"), "utf8")
  .split("\n").filter((l) => l.startsWith("CREATE INDEX")).map((l) => l.replace(/;.*$/, ""));

const db = existing ? { url: existing, drop: async () => undefined } : await createScratchDatabase(baseUrl!, "feira_index_build");
try {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  let t = performance.now();
  if (!existing) {
    const database = await openDatabase({ databaseUrl: db.url });
    await database.migrate();
    await database.close();
    await c.query(`insert into merchants (id, name, email, password_hash, connect_enabled, pix_key) values ($1, 'Demo', 'demo@example.com', 'x', true, 'pix')`, [DEMO]);
    await prepareSeed(c, DEMO, 100);
    await seedLevel(c, { demo: DEMO, merchants: 100, demoShare: 50, from: 0, to: charges });
    console.log(`seeded ${charges} charges in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  console.log("| index | table rows | CONCURRENTLY, s | plain CREATE INDEX, s | size |");
  console.log("|---|---:|---:|---:|---:|");
  for (const stmt of statements) {
    const [, name, table] = /"(\w+)" ON "(\w+)"/.exec(stmt)!;
    const rows = (await c.query(`select reltuples::bigint as n from pg_class where relname = $1`, [table])).rows[0].n;
    await c.query(`drop index "${name}"`);
    t = performance.now();
    await c.query(stmt.replace("CREATE INDEX IF NOT EXISTS", "CREATE INDEX CONCURRENTLY"));
    const concurrently = (performance.now() - t) / 1000;
    await c.query(`drop index "${name}"`);
    t = performance.now();
    await c.query(stmt);
    const plain = (performance.now() - t) / 1000;
    const size = (await c.query(`select pg_size_pretty(pg_relation_size($1::regclass)) as s`, [name])).rows[0].s;
    console.log(`| ${name} | ${Number(rows).toLocaleString("en")} | ${concurrently.toFixed(1)} | ${plain.toFixed(1)} | ${size} |`);
  }
  await c.end();
} finally {
  await db.drop();
}
