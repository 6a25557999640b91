import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// The data layer's rule (src/db/scope.ts): a query of an environment-scoped table filters by
// merchant and environment together, through inScope / inScopeSql / inScopes, from one Scope
// value. A comparison of `environment` written by hand is how one half gets forgotten, so every
// such comparison in src/ must be one of the reviewed exceptions below, each with its reason.

const SRC = path.resolve(import.meta.dirname, "../../src");

const EXCEPTIONS: Record<string, string> = {
  "src/modules/charges/charges.repo.ts":
    "findSandboxCharge: the simulated bank's public page finds a charge by its unguessable id, and sandbox charges only",
  "src/modules/customers/customers.repo.ts":
    "the inline customer lookup is a prepared text statement of the hot path; its two parameters come from the Scope argument",
  "src/modules/ledger/ledger.repo.ts":
    "claimDueSettlements: the settlement job works across merchants, optionally one environment (sandbox settle)",
  "src/modules/shipping/shipping.repo.ts":
    "anyActive: whether a merchant has any live connection, in any environment (freight availability)",
  "src/modules/subscriptions/subscriptions.repo.ts":
    "the sandbox clock's billing runs: sandbox subscriptions of one merchant, by design never production",
  "src/modules/charges/provider-state/provider-sync.repo.ts":
    "a provider's webhook names no merchant: production charges that processor served are found by its reference; reconciliation reads every open live charge",
  "src/modules/connect/payouts.repo.ts":
    "the operator's payout routes work across merchants (the admin list, optionally one environment), and a Pix end-to-end id pays one payout per environment",
  "src/modules/subscriptions/mandates.repo.ts":
    "a recurrence notice names no merchant: production mandates are found by the processor's reference; reconciliation reads every open live mandate",
  "src/modules/disputes/disputes.repo.ts":
    "the deadline task works across merchants: a sandbox dispute's deadline is judged by its merchant's test clock, a production one's by real time",
  "src/modules/mail/mail.repo.ts":
    "the reminder task works across merchants: a sandbox charge's day is its merchant's test clock's, a production one's real time; the clock's advance narrows it to one merchant's sandbox",
  "src/modules/connect/payout-schedules.repo.ts":
    "the payout schedule task works across masters: a sandbox submerchant's due day is its master's test clock's, a production one's real time; the clock's advance narrows it to one master's sandbox",
  "src/modules/ledger/holds.ts":
    "the hold-days task works across merchants on real time; the sandbox clock's advance narrows it to one master's submerchants' sandbox rows",
  "src/http/idempotency.ts":
    "the idempotency claim's key is (scope, environment, route, key), both taken from the request's context",
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "migrations" ? [] : sourceFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

const HAND_WRITTEN = /eq\(\w+\.environment\b|\benvironment = \$\{|\benvironment = '(sandbox|production)'/;

test("no query compares environment by hand outside the reviewed exceptions", () => {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(SRC)) {
    const rel = path.relative(path.resolve(SRC, ".."), file).split(path.sep).join("/");
    if (rel === "src/db/scope.ts") continue;
    const lines = readFileSync(file, "utf8").split("\n").filter((l) => HAND_WRITTEN.test(l));
    if (lines.length > 0) found.set(rel, lines.map((l) => l.trim()));
  }
  const unexpected = [...found.keys()].filter((f) => !EXCEPTIONS[f]);
  assert.deepEqual(unexpected.map((f) => `${f}: ${found.get(f)!.join(" | ")}`), [], "use inScope / inScopeSql from src/db/scope.ts");
  // An exception that no longer compares by hand is removed from the list, so the list stays true.
  const stale = Object.keys(EXCEPTIONS).filter((f) => !found.has(f));
  assert.deepEqual(stale, [], "exceptions that no longer apply");
});

test("the rule sees a hand-written comparison (the check itself can fail)", () => {
  assert.ok(HAND_WRITTEN.test("  .where(and(eq(charges.merchantId, m), eq(charges.environment, e)))"));
  assert.ok(HAND_WRITTEN.test("select 1 from charges where merchant_id = ${m} and environment = ${e}"));
  assert.ok(!HAND_WRITTEN.test("  .where(inScope(charges, scope))"));
});
