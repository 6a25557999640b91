import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { LIVE_PROCESSORS } from "../../bench/crash-live-fake.js";
import { liveViolations, runLiveCrash } from "../../bench/crash-live.js";
// run-suite: waits: a fake processor and feira as processes, killed and restarted

// The smaller run of the live crash test (`npm run test:crash -- --live <processor>` is the big
// one, bench/RESULTS.md): production charges (cards and Pix) with Idempotency-Keys from retrying
// clients, feira killed with SIGKILL at random moments, against a fake of the processor running
// as its own process that drops answers, answers 500 before or after the work and answers late.
// The fake forgets its idempotency keys at every kill (as after days), so only feira's lookup by
// reference stands between a retry and a second payment; 55 Pix older than the load stay open,
// more than one reconciliation batch. Then: 0 duplicate provider payments, 0 lost, 0 stuck.
// The processors' runs share nothing (each its own fake, database and ports) and mostly wait on
// their processes: they run at once.
describe("live crash runs", { concurrency: true }, () => {
  for (const processor of LIVE_PROCESSORS) {
    test(`live crash run against the ${processor} fake: no duplicate, lost or stuck payment`, { timeout: 300_000 }, async () => {
      const seed = Math.floor(Math.random() * 2 ** 31);
      const report = await runLiveCrash({ processor, charges: 80, kills: 2, clients: 8, seed, backlog: 55, expireProviderKeys: true, faultRate: 0.08 });
      const context = `seed ${seed}: ${JSON.stringify(report)}`;
      assert.deepEqual(liveViolations(report), [], context);
      assert.ok(report.providerPayments >= report.charges / 2, `the fake took the payments: ${context}`);
      assert.ok(Object.values(report.faults).reduce((a, b) => a + b, 0) > 0, `faults were applied: ${context}`);
    });
  }
});
