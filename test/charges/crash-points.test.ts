import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { cardCharge, CARDS } from "../helpers/charges.js";
import { START_LIMIT_MS, createMerchant, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { basicAuth } from "../helpers/process.js";
// run-suite: waits: feira as processes, killed at fault points and restarted

// The process is killed (SIGKILL, from inside, at a named point: FEIRA_FAULT) in the middle of
// a charge, a refund or a dispute's moves; then it is started again and the client retries with
// the same Idempotency-Key. Whatever the point, there is one charge, one authorization, one
// refund and one dispute hold and return per key, and the ledger balances. A short lease lets the retry take the dead claim over fast.

const stores: Store[] = [];
after(async () => { for (const s of stores) await s.close(); });
const LEASE = { IDEMPOTENCY_LEASE_MS: "1000" };

async function scenario() {
  const store = await makeStore();
  stores.push(store);
  const setup = await startFeira(store, { env: LEASE });
  const merchant = await createMerchant(setup, store);
  await setup.stop();
  return { store, merchant };
}

/** Retries like a client that has not had an answer: until one comes (409 means in flight). */
async function retryUntilAnswered(p: FeiraProcess, path: string, key: string, body: unknown, idempotencyKey: string) {
  for (let i = 0; i < 100; i++) {
    const answer = await postJson(`${p.url}${path}`, key, body, { "idempotency-key": idempotencyKey });
    if (answer && answer.status !== 409) return answer;
    await sleep(100);
  }
  throw new Error(`no answer for ${path}:\n${p.output()}`);
}

async function counts(store: Store): Promise<Record<"charges" | "customers" | "authorizations" | "processor_refunds" | "refunds" | "pending_refunds" | "open_keys" | "ledger_sum" | "refund_entries", number>> {
  const db = (await store.inspect()).db;
  const [row] = await queryRows<Awaited<ReturnType<typeof counts>>>(db, sql`select
    (select count(*)::int from charges) as charges,
    (select count(*)::int from customers) as customers,
    (select count(*)::int from sandbox_processor_records where operation = 'authorize') as authorizations,
    (select count(*)::int from sandbox_processor_records where operation = 'refund') as processor_refunds,
    (select count(*)::int from refunds) as refunds,
    (select count(*)::int from refunds where status = 'pending') as pending_refunds,
    (select count(*)::int from idempotency_keys where state <> 'done') as open_keys,
    (select coalesce(sum(amount), 0)::int from ledger_entries) as ledger_sum,
    (select count(*)::int from ledger_entries where type = 'refund') as refund_entries`);
  return row!;
}

// Each scenario has its own store, database and ports, and spends its time starting, killing and
// waiting on its processes: the scenarios run at once.
describe("fault points", { concurrency: true }, () => {
  for (const point of ["charge.after-authorize", "charge.after-commit"] as const) {
    test(`killed at ${point}: the retry answers with one charge and one authorization`, { timeout: 3 * START_LIMIT_MS }, async () => {
      const { store, merchant } = await scenario();
      const idem = randomUUID();
      const dying = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: point } });
      const lost = await postJson(`${dying.url}/v1/charges`, merchant.sandboxKey, cardCharge(CARDS.visa), { "idempotency-key": idem });
      await dying.exited;
      assert.equal(lost, null, "the process died before answering");
      assert.equal(dying.child.signalCode, "SIGKILL");
      // The simulator's record of the authorization and the new customer commit in the charge's
      // statement: all three or none.
      const dead = await counts(store);
      const all = point === "charge.after-commit" ? 1 : 0;
      assert.deepEqual([dead.charges, dead.authorizations, dead.customers], [all, all, all], "the charge, its authorization's record and its customer commit together");
      await store.release();

      const p = await startFeira(store, { env: LEASE });
      const answer = await retryUntilAnswered(p, "/v1/charges", merchant.sandboxKey, cardCharge(CARDS.visa), idem);
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.status, "paid");
      const replay = await postJson(`${p.url}/v1/charges`, merchant.sandboxKey, cardCharge(CARDS.visa), { "idempotency-key": idem });
      assert.deepEqual(replay?.body, answer.body);
      await p.stop();

      const c = await counts(store);
      assert.equal(c.charges, 1);
      assert.equal(c.customers, 1, "one customer");
      assert.equal(c.authorizations, 1, "one authorization at the processor");
      assert.equal(c.open_keys, 0, "no key left stuck");
      assert.equal(c.ledger_sum, 0);
    });
  }

  test("killed after the refund was reserved: the worker's janitor finishes it against the processor", { timeout: 3 * START_LIMIT_MS }, async () => {
    const { store, merchant } = await scenario();
    const p1 = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: "refund.after-reserve" } });
    const charge = await postJson(`${p1.url}/v1/charges`, merchant.sandboxKey, cardCharge(CARDS.visa, { amount: 80 }));
    assert.equal(charge?.status, 201);
    const lost = await postJson(`${p1.url}/v1/charges/${charge!.body.id}/refund`, merchant.sandboxKey, { amount: 30 });
    await p1.exited;
    assert.equal(lost, null);

    // No retry: the client gave up. The worker (in `npm start`) finds the pending refund once
    // its grace (the lease) has passed and completes it.
    const p2 = await startFeira(store, { env: LEASE });
    const deadline = Date.now() + 60_000;
    let got: Record<string, unknown> = {};
    while (Date.now() < deadline) {
      got = (await (await fetch(`${p2.url}/v1/charges/${charge!.body.id}`, { headers: { authorization: basicAuth(merchant.sandboxKey) } })).json()) as Record<string, unknown>;
      if (got.amountRefunded === 30) break;
      await sleep(100);
    }
    assert.equal(got.amountRefunded, 30, "the janitor completed the refund");
    assert.equal(got.status, "paid");
    await p2.stop();
    const c = await counts(store);
    assert.equal(c.refunds, 1);
    assert.equal(c.pending_refunds, 0);
    assert.equal(c.processor_refunds, 1);
    assert.equal(c.refund_entries > 0, true);
    assert.equal(c.ledger_sum, 0);
  });

  test("killed after the processor refunded: the retry with the same key completes the same refund once", { timeout: 3 * START_LIMIT_MS }, async () => {
    const { store, merchant } = await scenario();
    const p1 = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: "refund.after-processor" } });
    const charge = await postJson(`${p1.url}/v1/charges`, merchant.sandboxKey, cardCharge(CARDS.visa, { amount: 80 }));
    const idem = randomUUID();
    const path = `/v1/charges/${charge!.body.id}/refund`;
    assert.equal(await postJson(`${p1.url}${path}`, merchant.sandboxKey, {}, { "idempotency-key": idem }), null);
    await p1.exited;

    const p2 = await startFeira(store, { env: LEASE });
    const answer = await retryUntilAnswered(p2, path, merchant.sandboxKey, {}, idem);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.amount, 80);
    assert.equal(answer.body.status, "succeeded");
    assert.equal(answer.body.chargeStatus, "refunded");
    await p2.stop();
    const c = await counts(store);
    assert.equal(c.refunds, 1);
    assert.equal(c.processor_refunds, 1);
    assert.equal(c.pending_refunds, 0);
    assert.equal(c.open_keys, 0);
    assert.equal(c.ledger_sum, 0);
  });
});

/** The dispute's trace in the store: its rows, its ledger transactions by type, the charge's hold. */
async function disputeCounts(store: Store, chargeId: string) {
  const db = (await store.inspect()).db;
  const [row] = await queryRows<{ disputes: number; status: string | null; holds: number; returns: number; disputed: number; open_keys: number; ledger_sum: number }>(db, sql`select
    (select count(*)::int from disputes) as disputes,
    (select status from disputes limit 1) as status,
    (select count(*)::int from ledger_transactions where type = 'dispute') as holds,
    (select count(*)::int from ledger_transactions where type = 'dispute_won') as returns,
    (select amount_disputed::int from charges where id = ${chargeId}) as disputed,
    (select count(*)::int from idempotency_keys where state <> 'done') as open_keys,
    (select coalesce(sum(amount), 0)::int from ledger_entries) as ledger_sum`);
  return row!;
}

// One world, two deaths, three processes (each start counts in the suite's time): after the
// opening committed (the retry must answer with that dispute, not open a second one or refuse as
// "already disputed"), and after the issuer's decision committed (the retry must answer with it,
// its money moved once).
test("a dispute opened and decided under kill -9: each retry completes it exactly once, the ledger sums to zero", { timeout: 4 * START_LIMIT_MS }, async () => {
  const store = await makeStore();
  stores.push(store);
  const openKey = randomUUID();
  const closeKey = randomUUID();

  const p1 = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: "dispute.after-open" } });
  const merchant = await createMerchant(p1, store);
  const charge = await postJson(`${p1.url}/v1/charges`, merchant.sandboxKey, cardCharge(CARDS.visa, { amount: 80 }));
  assert.equal(charge?.status, 201);
  const chargeId = String(charge!.body.id);
  const lost = await postJson(`${p1.url}/v1/sandbox/charges/${chargeId}/dispute`, merchant.sandboxKey, {}, { "idempotency-key": openKey });
  assert.equal(lost, null, "died after the dispute committed");
  await p1.exited;
  const opened = await disputeCounts(store, chargeId);
  assert.deepEqual([opened.disputes, opened.status, opened.holds, opened.disputed, opened.ledger_sum], [1, "needs_response", 1, 8000, 0], "the dispute and its hold commit together");
  await store.release();

  const p2 = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: "dispute.after-close" } });
  const answer = await retryUntilAnswered(p2, `/v1/sandbox/charges/${chargeId}/dispute`, merchant.sandboxKey, {}, openKey);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  assert.equal(answer.body.status, "needs_response");
  const disputeId = String(answer.body.id);
  const form = new FormData();
  form.append("text", "Delivered and signed for.");
  const evidence = await fetch(`${p2.url}/v1/disputes/${disputeId}/evidence`, { method: "POST", headers: { authorization: basicAuth(merchant.sandboxKey) }, body: form });
  assert.equal(evidence.status, 200, await evidence.text());
  const close = (p: FeiraProcess) => postJson(`${p.url}/v1/sandbox/disputes/${disputeId}/close`, merchant.sandboxKey, { outcome: "won" }, { "idempotency-key": closeKey });
  assert.equal(await close(p2), null, "died after the decision committed");
  await p2.exited;
  const decided = await disputeCounts(store, chargeId);
  assert.deepEqual([decided.status, decided.returns, decided.disputed, decided.ledger_sum], ["won", 1, 0, 0]);
  await store.release();

  const p3 = await startFeira(store, { env: LEASE });
  const closed = await retryUntilAnswered(p3, `/v1/sandbox/disputes/${disputeId}/close`, merchant.sandboxKey, { outcome: "won" }, closeKey);
  assert.equal(closed.status, 200, JSON.stringify(closed.body));
  assert.equal(closed.body.status, "won");
  await p3.stop();
  const c = await disputeCounts(store, chargeId);
  assert.deepEqual([c.disputes, c.holds, c.returns, c.disputed, c.open_keys, c.ledger_sum], [1, 1, 1, 0, 0, 0], "one dispute, one hold, one return, no key stuck, the ledger at zero");
});
