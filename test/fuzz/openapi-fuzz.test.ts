import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildTestApp, type TestApp } from "../helpers/app.js";
import { hostileRequestArb, type FuzzContext, type Operation } from "./generators.js";
import { describeFailure, fire, installChangeCounters, prepareFuzz, readChangeCounters } from "./harness.js";

// Property: whatever arrives (generated from /openapi.json, then made hostile), the answer is
// never a 5xx, every error has the one error shape {statusCode, message, error, code}, and a
// 4xx has written no row. FUZZ_RUNS and FUZZ_SEED override the run; a failure prints its seed
// and the request. The long run is `npm run fuzz` (bench/fuzz.ts).
const RUNS = Number(process.env.FUZZ_RUNS ?? 1500);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

let t: TestApp;
let ops: Operation[];
let ctx: FuzzContext;
before(async () => {
  t = await buildTestApp();
  ({ ops, ctx } = await prepareFuzz(t));
  await installChangeCounters(t.database.db);
});
after(async () => { await t.close(); });

test(`every operation of /openapi.json survives hostile requests (${RUNS} runs, seed ${SEED})`, { timeout: 300_000 }, async (tc) => {
  tc.diagnostic(`FUZZ_SEED=${SEED} FUZZ_RUNS=${RUNS}`);
  assert.ok(ops.length >= 30, `the document lists the operations (${ops.length})`);
  const byId = new Map(ops.map((op) => [op.id, op]));
  const counters = { last: await readChangeCounters(t.database.db) };
  const seen = new Set<string>();
  await fc.assert(
    fc.asyncProperty(hostileRequestArb(ops, ctx), async (req) => {
      seen.add(req.op);
      const outcome = await fire(t, byId, req, counters);
      if (outcome.problems.length > 0) throw new Error(describeFailure(req, outcome));
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true, includeErrorInReport: true },
  );
  // A bounded run still reaches nearly every operation (uniform choice among ~40).
  if (RUNS >= 500) assert.ok(seen.size >= ops.length - 2, `operations reached: ${seen.size} of ${ops.length}`);
});
