import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { sql } from "../../src/db/client.js";
import { NEVER_MADE_AFTER_MS } from "../../src/modules/charges/provider-state/provider-sync.js";
import { cardCharge, createCharge } from "../helpers/charges.js";
import { chargeRow, eventCount, runTask, startLiveWorld, type LiveWorld } from "./live-shared.js";

// A live create that got a 5xx or no answer leaves its charge pending, settled by lookups. When
// the provider never made the payment, every lookup says not_found: once the charge is older than
// any provider's indexing delay, it is failed with processing_error instead of staying open.

let w: LiveWorld;
before(async () => { w = await startLiveWorld(); });
after(async () => { await w?.close(); });

const age = (id: string, ms: number) =>
  w.t.database.db.execute(sql`update charges set created_at = now() - make_interval(secs => ${ms / 1000}::float8) where id = ${id}`);

test("a live charge the provider never made fails with processing_error once it is old enough; one it made is applied whatever its age", async () => {
  await w.pagarme.setFault("500", { times: 1 });
  const never = await createCharge(w.t, w.key, cardCharge("4000000000000010", { amount: 12.3 }));
  assert.equal(never.status, "pending", "a 5xx is no answer to rely on");
  await w.pagarme.setFault("500-after-work", { times: 1 });
  const made = await createCharge(w.t, w.key, cardCharge("4000000000000010", { amount: 12.4 }));
  assert.equal(made.status, "pending");

  // Young: not_found may still be the provider's indexing delay.
  await runTask(w, "charges.reconcile-live");
  assert.equal((await chargeRow(w, never.id)).status, "pending");

  await age(never.id, NEVER_MADE_AFTER_MS + 60_000);
  await age(made.id, NEVER_MADE_AFTER_MS + 60_000);
  await runTask(w, "charges.reconcile-live");
  const failed = await chargeRow(w, never.id);
  assert.equal(failed.status, "failed");
  assert.equal(failed.reason, "processing_error");
  assert.equal((failed.paymentDetails as Record<string, unknown>).providerCode, "not_found_at_provider");
  assert.equal(await eventCount(w, never.id, "charge.failed"), 1);
  assert.equal((await chargeRow(w, made.id)).status, "paid", "the payment the provider made is applied");

  await runTask(w, "charges.reconcile-live");
  assert.equal(await eventCount(w, never.id, "charge.failed"), 1, "read again, nothing changes twice");
});
