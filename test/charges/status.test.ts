import { test } from "node:test";
import assert from "node:assert/strict";
import { assertTransition, canTransition, CHARGE_STATUSES, type ChargeStatus } from "../../src/modules/charges/charge-status.js";

const ALLOWED = new Set([
  "pending>paid", "pending>refused", "pending>failed", "pending>in_analysis", "pending>authentication_required",
  "authentication_required>paid", "authentication_required>refused", "authentication_required>failed",
  "in_analysis>paid", "in_analysis>refused",
  "paid>refunded",
  // A live charge's provider reports a chargeback (charged_back is final).
  "paid>charged_back",
]);

test("the transition table allows exactly the API's charge moves and the sandbox flows", () => {
  for (const from of CHARGE_STATUSES) {
    for (const to of CHARGE_STATUSES) {
      const key = `${from}>${to}`;
      assert.equal(canTransition(from, to), ALLOWED.has(key), key);
    }
  }
});

test("a refused move throws invalid_state (409) naming both statuses", () => {
  const terminal: ChargeStatus[] = ["refused", "failed", "refunded", "charged_back"];
  for (const from of terminal) {
    assert.throws(() => assertTransition("ch_x", from, "paid"), (err: { code?: string; statusCode?: number; message?: string }) =>
      err.code === "invalid_state" && err.statusCode === 409 && err.message!.includes(from));
  }
  assert.throws(() => assertTransition("ch_x", "paid", "pending"), /cannot become pending/);
});
