import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import type { ReactedEvent } from "../../src/modules/webhooks/index.js";
import { buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, methodCharge } from "../helpers/charges.js";
import { until } from "../helpers/wait.js";
// topology: skip: its one app stays in-process: the test replaces a subscriber's handler and is the worker

// The seam for reacting to events (docs/architecture.md, "Reacting to events"): the reaction
// rows commit with the event, in its statement; the subscriber runs later, in the worker, never
// in the request that made the change; a subscriber that throws is retried and then done.

let t: TestApp;
before(async () => {
  t = await buildTestApp({}, { noWorkerProcesses: "the test is the worker: it runs the reactions by hand", inProcessOnly: "replaces a subscriber's handler" });
});
after(() => t.close());

test("a charge's events get their subscribers' reactions in the same statement; the subscriber runs in the worker, retried until it succeeds", async () => {
  const { sandboxKey } = await seedMerchant(t);
  const seen: ReactedEvent[] = [];
  let failures = 1;
  t.services.webhooks.reactions.subscribe("mail", async (events) => {
    seen.push(...events);
    if (failures-- > 0) throw new Error("the subscriber's own trouble");
  });
  const charge = await createCharge(t, sandboxKey, methodCharge({ type: "boleto" }));
  assert.equal(seen.length, 0, "nothing ran inside the request");
  const rows = await queryRows<{ type: string; subscriber: string; status: string }>(t.database.db, sql`
    select e.type, r.subscriber, r.status from event_reactions r join events e on e.id = r.event_id where e.object_id = ${charge.id} order by e.id`);
  // charge.created has no subscriber; charge.pending has the mail subscriber's.
  assert.deepEqual(rows, [{ type: "charge.pending", subscriber: "mail", status: "pending" }]);

  await t.services.webhooks.reactions.runOnce();
  assert.equal(seen.length, 1);
  const [failed] = await queryRows<{ status: string; attempts: number; last_error: string }>(t.database.db, sql`select status, attempts, last_error from event_reactions`);
  assert.deepEqual([failed!.status, Number(failed!.attempts), failed!.last_error], ["pending", 1, "the subscriber's own trouble"]);
  // The retry waits 5 s x WEBHOOK_RETRY_SCALE (0.001 in tests).
  await until("the reaction was retried", async () => (await t.services.webhooks.reactions.runOnce(), seen.length === 2));
  assert.equal(seen[1]!.objectId, charge.id);
  assert.equal(seen[1]!.type, "charge.pending");
  const [done] = await queryRows<{ status: string }>(t.database.db, sql`select status from event_reactions`);
  assert.equal(done!.status, "done");
});

test("a subscriber gets the claimed events as one batch; when the batch fails, each event is handed alone, and only the failing one waits for its retry", async () => {
  const { sandboxKey } = await seedMerchant(t);
  const charges = [];
  for (let i = 0; i < 3; i++) charges.push(await createCharge(t, sandboxKey, methodCharge({ type: "boleto" })));
  const bad = charges[1]!.id;
  const calls: string[][] = [];
  t.services.webhooks.reactions.subscribe("mail", async (events) => {
    calls.push(events.map((e) => e.objectId!));
    if (events.some((e) => e.objectId === bad)) throw new Error("this charge's trouble");
  });
  await t.services.webhooks.reactions.runOnce();
  const ours = new Set(charges.map((c) => c.id));
  const mine = calls.map((c) => c.filter((id) => ours.has(id))).filter((c) => c.length > 0);
  assert.deepEqual(mine[0]!.slice().sort(), [...ours].sort(), "the three events in one call");
  assert.deepEqual(mine.slice(1).map((c) => c.length), [1, 1, 1], "then each alone");
  const rows = await queryRows<{ object_id: string; status: string; last_error: string | null }>(t.database.db, sql`
    select e.object_id, r.status, r.last_error from event_reactions r join events e on e.id = r.event_id
    where e.object_id in (${sql.join(charges.map((c) => sql`${c.id}`), sql`, `)}) order by e.object_id`);
  assert.deepEqual(rows.map((r) => [r.object_id === bad, r.status, r.last_error]).sort(), [
    [false, "done", null], [false, "done", null], [true, "pending", "this charge's trouble"],
  ].sort());
});
