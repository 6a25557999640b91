import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../../src/db/client.js";
import { CARDS, customer } from "../helpers/charges.js";
import { START_LIMIT_MS, createMerchant, makeStore, postJson, sleep, startFeira, type Store } from "../helpers/feira-process.js";
import { card } from "./helpers.js";
// run-suite: waits: feira as processes, killed at a fault point and restarted

// A subscription saves the card in the vault before its own transaction (the vault seals the
// number; the subscription refers to the card). The process is killed between the two; the
// client retries with the same Idempotency-Key: one card, one subscription, one first charge.

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
