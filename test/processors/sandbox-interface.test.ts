import { test } from "node:test";
import assert from "node:assert/strict";
import { newId } from "../../src/lib/ids.js";
import { memoryRecords } from "../../src/processors/processor.js";
import { createSandboxProcessor } from "../../src/processors/sandbox/sandbox.processor.js";
import { authorization, card, check, pix } from "./adapter-inputs.js";

// The simulator behind the interface the real adapters share: lookup by feira's reference,
// cancel, refund status, and the method hooks the charge path calls before authorizing.

test("lookup finds the simulator's first answer by charge id, or not_found", async () => {
  const sandbox = createSandboxProcessor(memoryRecords());
  assert.deepEqual(await sandbox.lookup({ chargeId: newId("ch") }), { outcome: "not_found" });
  const paid = authorization(card("4111111111111111"));
  const r = await sandbox.authorize(paid);
  const found = await sandbox.lookup({ chargeId: paid.chargeId });
  assert.deepEqual(found, r);
  const pending = authorization(pix(), { merchant: { id: "mer_t", name: "Loja", city: "Sao Paulo", pixKey: "pix@example.com" } });
  const p = await sandbox.authorize(pending);
  const again = await sandbox.lookup({ chargeId: pending.chargeId });
  assert.ok(again.outcome === "pending" && p.outcome === "pending" && again.expiresAt instanceof Date && again.expiresAt.getTime() === p.expiresAt.getTime());
});

test("refundStatus answers the recorded refund; cancel is recorded once", async () => {
  const sandbox = createSandboxProcessor(memoryRecords());
  const base = { chargeId: "ch_x", pspRefId: "sbx_1", amountMinor: 100, refundId: "re_1" };
  assert.deepEqual(await sandbox.refundStatus({ ...base, refundRef: null }), { outcome: "not_found" });
  const refunded = await sandbox.refund(base);
  assert.deepEqual(await sandbox.refundStatus({ ...base, refundRef: null }), refunded);
  assert.deepEqual(await sandbox.cancel({ chargeId: "ch_x", pspRefId: "sbx_1" }), { outcome: "canceled" });
});

test("supports, checkInstrument and decodeWalletToken carry the simulator's method rules", () => {
  const sandbox = createSandboxProcessor();
  assert.equal(sandbox.supports("pix", "BRL"), true);
  assert.equal(sandbox.supports("pix", "USD"), false);
  assert.equal(sandbox.supports("oxxo", "MXN"), true);
  assert.match(sandbox.checkInstrument({ ...check("boleto", null, { dueDate: "2001-01-01" }) })!, /^paymentMethod\.dueDate must not be before today/);
  assert.match(sandbox.checkInstrument({ ...check("boleto", null, { dueDate: "2026-02-30" }) })!, /^paymentMethod\.dueDate must be a calendar date/);
  assert.equal(sandbox.checkInstrument(check("pix", null)), null);
  assert.equal(sandbox.decodeWalletToken("tok_sandbox_4111111111111111", new Date("2026-01-01"))?.number, "4111111111111111");
  assert.equal(sandbox.decodeWalletToken("tok_other", new Date()), null);
});
