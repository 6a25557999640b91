// The long fuzz run: the generators of test/fuzz (hostile requests made from /openapi.json)
// against an in-process app, on PGlite, or on PostgreSQL when DATABASE_URL is set (a scratch
// database is created and dropped). Prints the figures; exits 1 on any 5xx, any error body off
// the error shape {statusCode, message, error, code}, or any row written by a 4xx.
//
//   npm run fuzz                                       # 100,000 requests on PGlite
//   npm run fuzz -- --requests 5000 --seed 42
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npm run fuzz
import { parseArgs } from "node:util";
import fc from "fast-check";
import { buildTestApp } from "../test/helpers/app.js";
import { hostileRequestArb } from "../test/fuzz/generators.js";
import { describeFailure, fire, installChangeCounters, prepareFuzz, readChangeCounters } from "../test/fuzz/harness.js";

const { values: opts } = parseArgs({
  options: {
    requests: { type: "string", default: process.env.FUZZ_REQUESTS ?? "100000" },
    seed: { type: "string", default: process.env.FUZZ_SEED ?? String(Date.now() % 2 ** 31) },
  },
});
const total = Number(opts.requests);
const seed = Number(opts.seed);
const BATCH = 200;

const t = await buildTestApp();
const { ops, ctx } = await prepareFuzz(t);
await installChangeCounters(t.database.db);
const byId = new Map(ops.map((op) => [op.id, op]));
const counters = { last: await readChangeCounters(t.database.db) };
const arb = hostileRequestArb(ops, ctx);

const byClass: Record<string, number> = {};
const byStatus: Record<string, number> = {};
const opsSeen = new Set<string>();
let serverErrors = 0;
let shapeViolations = 0;
let rowsChangedBy4xx = 0;
const failures: string[] = [];
const started = performance.now();
console.log(`fuzz: ${total} requests, seed ${seed}, ${t.database.kind}, ${ops.length} operations`);

for (let done = 0, batch = 0; done < total; batch++) {
  // One sample per batch keeps memory flat (some requests carry ~1 MiB); each batch has its
  // own seed derived from the run's, so a run is reproducible from its seed.
  for (const req of fc.sample(arb, { numRuns: Math.min(BATCH, total - done), seed: seed + batch })) {
    const outcome = await fire(t, byId, req, counters);
    done++;
    opsSeen.add(req.op);
    const cls = `${Math.floor(outcome.status / 100)}xx`;
    byClass[cls] = (byClass[cls] ?? 0) + 1;
    byStatus[outcome.status] = (byStatus[outcome.status] ?? 0) + 1;
    if (outcome.status >= 500) serverErrors++;
    if (outcome.shape.length > 0) shapeViolations++;
    if (outcome.changed.length > 0) rowsChangedBy4xx++;
    if (outcome.problems.length > 0 && failures.length < 10) failures.push(`#${done} (batch seed ${seed + batch})\n${describeFailure(req, outcome)}`);
  }
  if (batch % 50 === 49) console.log(`  ${done} requests, ${Math.round((performance.now() - started) / 1000)} s`);
}
const seconds = (performance.now() - started) / 1000;
await t.close();

for (const f of failures) console.log(`\n${f}`);
console.log(`
requests            ${total}
operations reached  ${opsSeen.size} of ${ops.length}
by status class     ${Object.entries(byClass).sort().map(([k, v]) => `${k} ${v}`).join(", ")}
by status           ${Object.entries(byStatus).map(([k, v]) => `${k}: ${v}`).join(", ")}
5xx                 ${serverErrors}
shape violations    ${shapeViolations}
4xx that wrote rows ${rowsChangedBy4xx}
duration            ${seconds.toFixed(1)} s (${Math.round(total / seconds)} requests/s)
seed                ${seed}`);
process.exit(serverErrors + shapeViolations + rowsChangedBy4xx > 0 ? 1 : 0);
