import { after, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { appsOn, testConfig } from "../helpers/app.js";
import { START_LIMIT_MS, makeStore, postJson, startFeira, type Store } from "../helpers/feira-process.js";
import { basicAuth } from "../helpers/process.js";
import { until } from "../helpers/wait.js";
import { FEES, seedMaster } from "./helpers.js";
import { sandboxSale, sandboxSeller } from "./sandbox-sellers.js";
// run-suite: waits: feira as processes, killed at a fault point and restarted

// A scheduled payout in provider settlement across kill -9 (FEIRA_FAULT=provider-transfer.after-read):
// the master's test clock passes the seller's due day, the simulator makes the day's transfer of
// the seller's balance at the provider, and the process dies after that answer and before feira
// committed its record. Restarted, the worker's first run reads the same transfer back (its id is
// derived from the account and the day) and records it: one read-only payout, one booking out
// of atProvider, one payout.paid, the ledger at zero.

let store: Store | undefined;
after(async () => { await store?.close(); });

async function state(s: Store, smId: string) {
  const db = (await s.inspect()).db;
  const [row] = await queryRows<{ payouts: number; transfer: string | null; made: number; bookings: number; paid: number; ledger: number; unbalanced: number; atProvider: number }>(db, sql`select
    (select count(*)::int from payout_requests where merchant_id = ${smId}) as payouts,
    (select max(transfer_id) from payout_requests where merchant_id = ${smId} and source = 'provider') as transfer,
    (select count(*)::int from sandbox_processor_records where operation = 'provider_transfer' and key like ${`%${smId}%`} and (result->>'amountMinor')::int > 0) as made,
    (select count(*)::int from ledger_transactions where type = 'provider_transfer' and source_id in (select id from payout_requests where merchant_id = ${smId})) as bookings,
    (select count(*)::int from events where type = 'payout.paid' and object_id in (select id from payout_requests where merchant_id = ${smId})) as paid,
    (select coalesce(sum(amount), 0)::int from ledger_entries) as ledger,
    (select count(*)::int from (select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0) u) as unbalanced,
    (select coalesce(sum(amount), 0)::int from ledger_entries where owner = ${smId} and account = 'at_provider:sandbox') as "atProvider"`);
  await s.release();
  return row!;
}

test("killed between the simulator's transfer and feira's record: restarted, one provider payout, one booking, one payout.paid", { timeout: 4 * START_LIMIT_MS }, async () => {
  store = await makeStore();
  // The schema first (a process migrates it), then, in this process, a seller in provider
  // settlement with the simulator's account, a daily schedule and 2640 cents at the provider.
  await (await startFeira(store)).stop();
  const apps = appsOn(await store.inspect());
  const t = await apps.start(testConfig({ adminApiKey: store.adminKey, encryptionKey: store.env.ENCRYPTION_KEY, jwtSecret: store.env.JWT_SECRET }));
  const master = await seedMaster(t, FEES);
  const sm = await sandboxSeller(t, master, { interval: "daily" });
  await sandboxSale(t, sm);
  await apps.close();
  await store.release();
  assert.equal((await state(store, sm.id)).atProvider, 2640);

  // A day later by the test clock: the advance reads the simulator's transfer and dies before the record.
  const dying = await startFeira(store, { env: { FEIRA_FAULT: "provider-transfer.after-read" } });
  assert.equal(await postJson(`${dying.url}/v1/sandbox/clock/advance`, master.sandboxKey, { days: 1 }), null, "no answer: the process died");
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");
  const dead = await state(store, sm.id);
  assert.deepEqual([dead.made, dead.payouts, dead.bookings, dead.atProvider], [1, 0, 0, 2640], "the simulator made the transfer; feira recorded nothing");

  // Restarted: the worker's first runs read the transfer again and record it, once.
  const next = await startFeira(store);
  // Asked over HTTP: the embedded database admits one process at a time.
  const listed = async () => {
    const res = await fetch(`${next.url}/v1/payout-requests?merchantId=${sm.id}`, { headers: { authorization: basicAuth(master.sandboxKey) } });
    return res.ok ? ((await res.json()) as { data: unknown[] }).data.length : 0;
  };
  await until("the transfer to be recorded", async () => (await listed()) > 0, 60_000);
  await next.stop();
  const end = await state(store, sm.id);
  assert.deepEqual(
    [end.made, end.payouts, end.bookings, end.paid, end.atProvider],
    [1, 1, 1, 1, 0],
    "one transfer at the simulator, one payout record, one booking out of atProvider, one payout.paid",
  );
  assert.match(end.transfer ?? "", new RegExp(`^tr_acct_sandbox_${sm.id}_\\d{8}$`), "the id the simulator derived from the account and the day");
  assert.deepEqual([end.ledger, end.unbalanced], [0, 0], "the ledger sums to zero");
});
