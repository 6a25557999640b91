import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { CARDS, customer } from "../helpers/charges.js";
import { START_LIMIT_MS, createMerchant, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { card } from "./helpers.js";
// run-suite: waits: feira as processes, killed at a fault point and restarted

// A subscription saves the card in the vault before its own transaction (the vault seals the
// number; the subscription refers to the card). The process is killed between the two; the
// client retries with the same Idempotency-Key: one card, one subscription, one first charge.
// A process killed while it issues a Pix Automático period's charge: the period is billed once,
// and not lost, by the next process.

const stores: Store[] = [];
after(async () => { for (const s of stores) await s.close(); });
const LEASE = { IDEMPOTENCY_LEASE_MS: "1000" };

test("killed between the vault card and the subscription: the retry leaves one card and one subscription", { timeout: 3 * START_LIMIT_MS }, async () => {
  const store = await makeStore();
  stores.push(store);
  const setup = await startFeira(store, { env: LEASE });
  const merchant = await createMerchant(setup, store);
  const plan = await postJson(`${setup.url}/v1/plans`, merchant.sandboxKey, { name: "Pro", price: 29.9, currency: "BRL", interval: "month" });
  assert.equal(plan?.status, 201);
  await setup.stop();

  const body = { planId: plan!.body.id, customer, paymentMethod: card(CARDS.visa) };
  const idem = randomUUID();
  const dying = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: "subscription.after-card" } });
  assert.equal(await postJson(`${dying.url}/v1/subscriptions`, merchant.sandboxKey, body, { "idempotency-key": idem }), null);
  await dying.exited;
  assert.equal(dying.child.signalCode, "SIGKILL");

  const p = await startFeira(store, { env: LEASE });
  let answer = null;
  for (let i = 0; i < 100 && (!answer || answer.status === 409); i++) {
    answer = await postJson(`${p.url}/v1/subscriptions`, merchant.sandboxKey, body, { "idempotency-key": idem });
    if (answer?.status === 409) await sleep(100);
  }
  assert.equal(answer?.status, 201, JSON.stringify(answer?.body));
  assert.equal(answer!.body.status, "active");
  await p.stop();

  const db = (await store.inspect()).db;
  const [c] = await queryRows<{ cards: number; subscriptions: number; charges: number }>(db, sql`select
    (select count(*)::int from cards) as cards, (select count(*)::int from subscriptions) as subscriptions,
    (select count(*)::int from charges) as charges`);
  assert.deepEqual(c, { cards: 1, subscriptions: 1, charges: 1 });
});

/** A Pix Automático subscription signed up and approved (its first period paid), on the test clock of a merchant of its own. */
async function approvedPixAutomatico(p: FeiraProcess, store: Store) {
  const merchant = await createMerchant(p, store);
  const plan = await postJson(`${p.url}/v1/plans`, merchant.sandboxKey, { name: "Pro", price: 29.9, currency: "BRL", interval: "month" });
  const sub = await postJson(`${p.url}/v1/subscriptions`, merchant.sandboxKey, { planId: plan!.body.id, customer, paymentMethod: { type: "pix_automatico" } });
  assert.equal(sub?.status, 201, JSON.stringify(sub?.body));
  const mandate = (sub!.body.mandate as { id: string }).id;
  assert.equal((await postJson(`${p.url}/v1/sandbox/mandates/${mandate}/approve`, merchant.sandboxKey, {}))?.status, 200);
  return { key: merchant.sandboxKey, subscriptionId: String(sub!.body.id) };
}

// Before anything of the charge is committed, and right after: a store each, since the next
// process's worker reruns the attempt as it starts, which would meet the other fault point.
for (const fault of ["charge.after-authorize", "charge.after-commit"] as const) {
  test(`killed while issuing a Pix Automático period's charge (${fault}): the next process bills the period once, and debits it`, { timeout: 4 * START_LIMIT_MS }, async () => {
    const store = await makeStore();
    stores.push(store);
    const setup = await startFeira(store, { env: LEASE });
    const { key, subscriptionId } = await approvedPixAutomatico(setup, store);
    await setup.stop();

    // The clock's advance reaches the period's issue (5 days before its due date); the process dies inside the charge.
    const dying = await startFeira(store, { env: { ...LEASE, FEIRA_FAULT: fault } });
    assert.equal(await postJson(`${dying.url}/v1/sandbox/clock/advance`, key, { days: 29 }), null);
    await dying.exited;
    assert.equal(dying.child.signalCode, "SIGKILL");

    // The next process (its worker, or the next advance, whichever claims it once the dead one's
    // claim ran out) reruns the attempt under its charge id; the due date passes and it is debited.
    // On PostgreSQL two processes start together, and their workers race for the same period.
    const [p, rival] = await Promise.all([startFeira(store, { env: LEASE }), store.onPostgres ? startFeira(store, { env: LEASE }) : null]);
    const advanced = await postJson(`${p.url}/v1/sandbox/clock/advance`, key, { days: 6 });
    assert.equal(advanced?.status, 200, JSON.stringify(advanced?.body));
    await Promise.all([p.stop(), rival?.stop()]);

    const db = (await store.inspect()).db;
    const charges = await queryRows<{ type: string; status: string; attempt: number }>(db, sql`select c.payment_method_type as type, c.status, sc.attempt
      from charges c join subscription_charges sc on sc.charge_id = c.id join subscription_invoices i on i.id = sc.invoice_id
      where c.subscription_id = ${subscriptionId} order by i.period_start`);
    assert.deepEqual(charges.map((c) => [c.type, c.status, c.attempt]), [["pix", "paid", 1], ["pix_automatico", "paid", 1]], "one charge a period, the first attempt");
    const [e] = await queryRows<{ renewed: number; paid: number; attempts: number }>(db, sql`select
      (select count(*)::int from events where object_id = ${subscriptionId} and type = 'subscription.renewed') as renewed,
      (select count(*)::int from events where type = 'charge.paid' and object_id in (select id from charges where subscription_id = ${subscriptionId})) as paid,
      (select count(*)::int from subscription_charges where subscription_id = ${subscriptionId}) as attempts`);
    assert.deepEqual(e, { renewed: 1, paid: 2, attempts: 2 });
  });
}
