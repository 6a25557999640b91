// The subscription list's free-text search at scale: EXPLAIN (ANALYZE, BUFFERS) of the statements
// the server issues (listSubscriptions, as bench/growth-explain.ts runs it) next to the single
// join the search was before migration 0023, on one scratch PostgreSQL database seeded by
// bench/growth-seed.ts (the demo merchant owns half of the charges; a customer per 10 charges, a
// subscription per 10 customers). The database is dropped at the end, also on failure.
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/postgres npx tsx bench/subscription-search.ts --charges 2000000
import { parseArgs } from "node:util";
import { sql, type Logger } from "drizzle-orm";
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import type { Db } from "../src/db/client.js";
import { openDatabase } from "../src/db/client.js";
import * as schema from "../src/db/schema.js";
import { listSubscriptions } from "../src/modules/subscriptions/subscriptions.repo.js";
import { explainCalls, type PlanNode } from "./growth-explain.js";
import { prepareSeed, seedLevel } from "./growth-seed.js";
import { createScratchDatabase } from "./harness.js";

const { values } = parseArgs({ options: { charges: { type: "string", default: "2000000" }, merchants: { type: "string", default: "100" } } });
const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) throw new Error("DATABASE_URL (PostgreSQL) is required");
const DEMO = "mer_0searchbench000000000000";

// The search before migration 0023: every subscription of the scope joined to its plan and
// customer, then filtered.
const BEFORE = (pattern: string, part: "count" | "page") => `
  select ${part === "count" ? "count(*)::int as total" : "s.id"}
  from subscriptions s join plans p on p.id = s.plan_id join customers c on c.id = s.customer_id
  where s.merchant_id = '${DEMO}' and s.environment = 'sandbox'
    and (c.name ilike '${pattern}' escape '\\' or c.email ilike '${pattern}' escape '\\' or p.name ilike '${pattern}' escape '\\')
  ${part === "page" ? "order by s.id desc limit 10" : ""}`;

const buffers = (p: PlanNode) => (p["Shared Hit Blocks"] ?? 0) + (p["Shared Read Blocks"] ?? 0);

const db = await createScratchDatabase(baseUrl, "feira_search");
try {
  const database = await openDatabase({ databaseUrl: db.url });
  await database.migrate();
  await database.close();
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  const run = (text: string, params: unknown[] = []) => pool.query(text, params) as Promise<{ rows: unknown[] }>;
  try {
    await run(`insert into merchants (id, name, email, password_hash, connect_enabled, pix_key) values ($1, 'Demo', 'demo@example.com', 'x', true, 'pix')`, [DEMO]);
    await prepareSeed({ query: (text) => run(text) }, DEMO, Number(values.merchants));
    const started = performance.now();
    await seedLevel({ query: (text) => run(text) }, { demo: DEMO, merchants: Number(values.merchants), demoShare: 50, from: 0, to: Number(values.charges) });
    await run("vacuum analyze");
    const counts = (await run(`select (select count(*) from customers where merchant_id = $1 and environment = 'sandbox')::int as customers,
      (select count(*) from subscriptions where merchant_id = $1 and environment = 'sandbox')::int as subscriptions`, [DEMO])).rows[0];
    console.log(`seeded ${values.charges} charges in ${Math.round((performance.now() - started) / 1000)} s; the demo merchant's sandbox:`, counts);
    const makeDb = (logger: Logger) => drizzle(pool, { schema, logger }) as unknown as Db;
    const [{ customer }] = (await run(`select customer_id as customer from subscriptions where merchant_id = $1 and environment = 'sandbox'
      order by id desc limit 1`, [DEMO])).rows as [{ customer: string }];
    const texts: [string, string][] = [
      ["a piece of a subscriber's id (in its name and e-mail)", customer.slice(-9).toLowerCase()],
      ["a piece of a subscriber's e-mail, in capitals", `${customer.slice(-6)}@EXAMPLE`.toUpperCase()],
      ["nobody's name", "fernanda"],
      ["a plan's name, every subscription's plan", "plan 0"],
      ["every customer's name", "customer"],
      ["two letters (no trigram)", "zz"],
    ];
    console.log("| search | matches | before: buffers, ms (count + page) | after: buffers, ms (count + page) | after: scans |");
    console.log("|---|---:|---:|---:|---|");
    for (const [label, text] of texts) {
      const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const before = await explainCalls(run, makeDb, [["before", async (d) => {
        await d.execute(sql.raw(BEFORE(pattern, "count")));
        await d.execute(sql.raw(BEFORE(pattern, "page")));
      }]]);
      const { total } = await listSubscriptions(makeDb({ logQuery: () => undefined }), { merchantId: DEMO, environment: "sandbox", search: text, page: 1, limit: 10 });
      const after = await explainCalls(run, makeDb, [["after", (d) => listSubscriptions(d, { merchantId: DEMO, environment: "sandbox", search: text, page: 1, limit: 10 })]]);
      const sum = (ps: typeof after) => `${ps.map((p) => buffers(p.plan)).join(" + ")}, ${ps.map((p) => p.ms.toFixed(2)).join(" + ")}`;
      console.log(`| ${label}: \`${text}\` | ${total} | ${sum(before)} | ${sum(after)} | ${[...new Set(after.flatMap((p) => p.scans))].join("; ")} |`);
    }
  } finally {
    await pool.end();
  }
} finally {
  await db.drop();
}
