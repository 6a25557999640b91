import { after, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { activate, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";
import { appsOn, expectStatus, testConfig, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { START_LIMIT_MS, makeStore, postJson, startFeira, type Store } from "../helpers/feira-process.js";
import { until } from "../helpers/wait.js";
// run-suite: waits: feira as processes, killed at a fault point and restarted

// A scheduled payout across kill -9 (FEIRA_FAULT) of the feira process: the master's test clock
// passes a due day's 06:00, the run requests the day's payout and the process dies before the run
// is completed (payout.schedule.after-request). Restarted once the dead run's lease is over, the
// worker's first run takes the day over: with a sale made meanwhile on the balance, it finds the
// day's payout (its id is derived from the day) instead of making a second, and completes the
// run. One payout, the ledger at zero, the new sale left for the next due day.

const stores: Store[] = [];
after(async () => { for (const s of stores) await s.close(); });

// The schedules' lease is 4 x PROCESSOR_TIMEOUT_MS: 2 s here.
const ENV = { PROCESSOR_TIMEOUT_MS: "500" };

async function state(store: Store, smId: string) {
  const db = (await store.inspect()).db;
  const [row] = await queryRows<{ payouts: number; amount: number; due: string; claimed: string | null; clock: string; ledger: number; unbalanced: number }>(db, sql`select
    (select count(*)::int from payout_requests where merchant_id = ${smId}) as payouts,
    (select coalesce(sum(amount), 0)::int from payout_requests where merchant_id = ${smId}) as amount,
    (select payout_due_at from submerchants where id = ${smId}) as due,
    (select payout_claimed_until from submerchants where id = ${smId}) as claimed,
    (select now() + make_interval(secs => c.offset_ms / 1000.0) from sandbox_clocks c join submerchants s on s.parent_id = c.merchant_id where s.id = ${smId}) as clock,
    (select coalesce(sum(amount), 0)::int from ledger_entries) as ledger,
    (select count(*)::int from (select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0) u) as unbalanced`);
  await store.release();
  return { ...row!, due: new Date(row!.due), claimed: row!.claimed ? new Date(row!.claimed) : null, clock: new Date(row!.clock) };
}

/** feira in this process on the store's database (no worker), to set up and to read. */
async function inProcess(store: Store) {
  const apps = appsOn(await store.inspect());
  const t = await apps.start(testConfig({ adminApiKey: store.adminKey, encryptionKey: store.env.ENCRYPTION_KEY, jwtSecret: store.env.JWT_SECRET }));
  return { ...t, close: () => apps.close() };
}

/** A paid and settled sandbox Pix of `reais` (1 % fee). */
async function sell(t: TestApp, key: string, reais: number) {
  const charge = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount: reais }));
  expectStatus(charge, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${charge.json().id}/pay`, key), 200);
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
}

test("killed between a scheduled payout's request and its run's completion: restarted, exactly one payout for the day and the ledger at zero", { timeout: 4 * START_LIMIT_MS }, async () => {
  const store = await makeStore();
  stores.push(store);
  // The schema first (a process migrates it), then a master with a funded submerchant on a daily schedule.
  await (await startFeira(store, { env: ENV })).stop();
  let t = await inProcess(store);
  const master = await seedMaster(t, FEES);
  const sm = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, sm.id);
  const key = await keyOf(t, master.sandboxKey, sm.id);
  await sell(t, key, 100);
  assert.equal((await balanceOf(t, key)).available, 9900);
  expectStatus(await call(t, "PATCH", `/v1/submerchants/${sm.id}`, master.sandboxKey, { payoutSchedule: { interval: "daily" } }), 200);
  await t.close();
  await store.release();

  // A day later by the test clock: the advance runs the due schedule, which dies after its request.
  const dying = await startFeira(store, { env: { ...ENV, FEIRA_FAULT: "payout.schedule.after-request" } });
  assert.equal(await postJson(`${dying.url}/v1/sandbox/clock/advance`, master.sandboxKey, { days: 1 }), null, "no answer: the process died");
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");
  const dead = await state(store, sm.id);
  assert.deepEqual([dead.payouts, dead.amount], [1, 9900], "the day's payout was requested");
  assert.ok(dead.due <= dead.clock && dead.claimed, `the run was not completed: due ${dead.due.toISOString()}, clock ${dead.clock.toISOString()}`);

  // A sale meanwhile: the day's run taken over finds money again, and must still make no second payout.
  t = await inProcess(store);
  await sell(t, key, 20);
  await t.close();
  await store.release();

  // Restarted once the dead run's lease is over: the worker's first run (at its start) takes it over.
  await until("the dead run's lease to end", () => Date.now() > dead.claimed!.getTime(), 30_000);
  const p = await startFeira(store, { env: ENV });
  await p.stop(); // waits for the worker's run in flight
  const end = await state(store, sm.id);
  assert.deepEqual([end.payouts, end.amount, end.claimed], [1, 9900, null], "one payout for the day, the run completed");
  assert.ok(end.due > end.clock, `the next due time is ahead: ${end.due.toISOString()} > ${end.clock.toISOString()}`);
  assert.deepEqual([end.ledger, end.unbalanced], [0, 0], "the ledger sums to zero");
  t = await inProcess(store);
  assert.equal((await balanceOf(t, key)).available, 1980, "the sale made after the day's request waits for the next due day");
  await t.close();
  await store.release();
});
