import { test } from "node:test";
import assert from "node:assert/strict";
import { runCrash, violations } from "../../bench/crash.js";
// run-suite: waits: feira as processes under load, killed and restarted

// The smaller run of the crash test (npm run test:crash is the big one, bench/RESULTS.md):
// charges with Idempotency-Keys from retrying clients while the processes are killed with
// SIGKILL at random moments. On PostgreSQL the API and the worker are separate processes; on
// the embedded database one process is both.
test("crash run: SIGKILL at random moments loses, duplicates and leaves stuck nothing", { timeout: 300_000 }, async () => {
  const seed = Math.floor(Math.random() * 2 ** 31);
  const report = await runCrash({ charges: 300, kills: 3, clients: 8, seed });
  assert.deepEqual(violations(report), [], `seed ${seed}: ${JSON.stringify(report)}`);
  assert.equal(report.paidCharges, 300);
});
