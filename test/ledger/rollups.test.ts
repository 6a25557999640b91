import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows, type Db } from "../../src/db/client.js";
import { rollUpEntries } from "../../src/modules/ledger/ledger.repo.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, methodCharge, post } from "../helpers/charges.js";
import { activate, admin, approveBySimulator, balanceOf, call, createSubmerchant, FEES, keyOf, seedMaster } from "../connect/helpers.js";
// run-suite: postgres: rollups concurrent with writers need a database with concurrent connections

// Running balances (migration 0009): a balance is its ledger_rollups row plus the entries not
// rolled up yet. Whatever the rollup job has done, GET /v1/balance and the payout check must
// answer the plain sum of the entries, and every entry must be in exactly one of the two.

let t: TestApp;
let master: SeededMerchant;
before(async () => {
  // The tests roll up by hand, step by step: worker processes (topology mode) would do it for them.
  t = await buildTestApp({}, { noWorkerProcesses: "the tests run the rollup job step by step and count what it did" });
  master = await seedMaster(t, FEES);
});
after(() => t.close());

const db = () => t.database.db;

/** Balances by the definition: the plain sums of the owner's entries, as GET /v1/balance shapes them. */
async function plainBalance(owner: string) {
  const rows = await queryRows<{ currency: string; account: string; amount: string }>(db(), sql`
    select currency, account, sum(amount)::text as amount from ledger_entries
    where owner = ${owner} and environment = 'sandbox' group by currency, account order by currency, account`);
  const pick = (account: string) => rows.filter((r) => r.account === account).map((r) => ({ currency: r.currency, amount: Number(r.amount) }));
  const atProvider = rows.filter((r) => r.account.startsWith("at_provider:"))
    .map((r) => ({ processor: r.account.slice("at_provider:".length), currency: r.currency, amount: Number(r.amount) }));
  return { available: pick("available"), pending: pick("pending"), atProvider };
}

/**
 * In one statement (one snapshot, so it holds while charges and rollups run): each rollup row
 * equals the sum of its account's entries marked rolled_up, and rollups + tail equal the sum of
 * all entries, for every owner, environment, currency and account. Returns the differences.
 */
async function rollupMismatches(q: Db): Promise<unknown[]> {
  return queryRows(q, sql`
    with plain as (
      select owner, environment, currency, account, sum(amount) as total, sum(amount) filter (where rolled_up) as rolled
      from ledger_entries group by owner, environment, currency, account
    ), running as (
      select owner, environment, currency, account, sum(amount) as total from (
        select owner, environment, currency, account, amount from ledger_rollups
        union all
        select owner, environment, currency, account, amount from ledger_entries where not rolled_up
      ) b group by owner, environment, currency, account
    )
    select coalesce(p.owner, r.owner, l.owner) as owner, coalesce(p.account, r.account, l.account) as account,
      p.total::text as plain, r.total::text as running, p.rolled::text as rolled, l.amount::text as rollup
    from plain p
    full join running r using (owner, environment, currency, account)
    full join ledger_rollups l on l.owner = coalesce(p.owner, r.owner) and l.environment = coalesce(p.environment, r.environment)
      and l.currency = coalesce(p.currency, r.currency) and l.account = coalesce(p.account, r.account)
    where p.total is distinct from r.total or coalesce(p.rolled, 0) is distinct from coalesce(l.amount, 0)`);
}

async function assertExact(label: string, owners: { id: string; key: string }[]) {
  assert.deepEqual(await rollupMismatches(db()), [], `${label}: rollups + tail = all entries, rollup = its rolled entries`);
  for (const o of owners) {
    const res = await call(t, "GET", "/v1/balance", o.key);
    expectStatus(res, 200);
    assert.deepEqual(res.json(), await plainBalance(o.id), `${label}: GET /v1/balance of ${o.id} = the plain sums of its entries`);
  }
}

const unrolled = async () => Number((await queryRows<{ n: string | number }>(db(), sql`select count(*) as n from ledger_entries where not rolled_up`))[0]!.n);

test("GET /v1/balance is the plain sum of the entries before, between and after rollup batches: charges, refunds, settlements", async () => {
  const m = { id: master.id, key: master.sandboxKey };
  const owners = [m];
  const card = await createCharge(t, m.key, cardCharge(CARDS.visa, { amount: 100 }));
  const pix = await createCharge(t, m.key, methodCharge({ type: "pix" }, { amount: 80 }));
  expectStatus(await post(t, m.key, `/v1/sandbox/charges/${pix.id}/pay`), 200);
  await assertExact("before any rollup", owners);
  assert.ok((await rollUpEntries(db(), 2)) === 2);
  await assertExact("after a first batch of 2", owners);

  // Entries added between batches, a partial refund of an entry partly rolled up, a settlement.
  expectStatus(await post(t, m.key, `/v1/charges/${card.id}/refund`, { amount: 30 }), 201);
  await assertExact("after a refund, part of the charge rolled up", owners);
  assert.ok((await rollUpEntries(db(), 3)) === 3);
  await assertExact("after a second batch of 3", owners);
  expectStatus(await post(t, m.key, "/v1/sandbox/settle"), 200);
  await assertExact("after settling", owners);
  await t.services.ledger.rollUp(4);
  assert.equal(await unrolled(), 0, "rollUp goes on while a batch is full");
  await assertExact("everything rolled up", owners);

  const second = await createCharge(t, m.key, cardCharge(CARDS.mastercard, { amount: 25.25 }));
  expectStatus(await post(t, m.key, `/v1/charges/${second.id}/refund`, { amount: 5 }), 201);
  await assertExact("new entries after everything was rolled up", owners);
  await t.services.ledger.rollUp();
  await assertExact("rolled up again", owners);
  const balance = await balanceOf(t, m.key);
  assert.ok(balance.available > 0 && balance.pending > 0, `both balances are in play: ${JSON.stringify(balance)}`);
});

test("a rollup run twice counts nothing twice: the second finds nothing, rollups unchanged", async () => {
  await createCharge(t, master.sandboxKey, cardCharge(CARDS.visa, { amount: 12.34 }));
  await t.services.ledger.rollUp();
  const rollups = async () => queryRows(db(), sql`select owner, environment, currency, account, amount::text from ledger_rollups order by 1, 2, 3, 4`);
  const once = await rollups();
  assert.ok(once.length > 0);
  assert.equal(await t.services.ledger.rollUp(), 0);
  assert.equal(await rollUpEntries(db(), 5000), 0);
  assert.deepEqual(await rollups(), once);
  assert.deepEqual(await rollupMismatches(db()), []);
});

test("payouts check the available balance from rollups + tail: exactly the balance passes, one cent more does not", async () => {
  const sm = await createSubmerchant(t, master.sandboxKey);
  await activate(t, master.sandboxKey, sm.id);
  const key = await keyOf(t, master.sandboxKey, sm.id);
  const owners = [{ id: sm.id, key }, { id: master.id, key: master.sandboxKey }];
  for (const amount of [100, 50]) {
    const c = await call(t, "POST", "/v1/charges", key, methodCharge({ type: "pix" }, { amount }));
    expectStatus(c, 201);
    expectStatus(await call(t, "POST", `/v1/sandbox/charges/${c.json().id}/pay`, key), 200);
    expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
    // The first charge's entries are rolled up, the second's stay in the tail.
    if (amount === 100) await t.services.ledger.rollUp();
  }
  await assertExact("funded, half rolled up", owners);
  const { available } = await balanceOf(t, key);
  assert.equal(available, 14850, "R$ 150 by Pix at 1 %");
  const request = (cents: number) => call(t, "POST", `/v1/submerchants/${sm.id}/payout-requests`, master.sandboxKey, { amount: cents });
  const over = await request(available + 1);
  expectStatus(over, 422);
  assert.match(over.json().message, /exceeds the available balance/);
  const first = await request(10000);
  expectStatus(first, 201);
  await t.services.ledger.rollUp();
  await assertExact("a payout reserved, rolled up", owners);
  expectStatus(await request(available - 10000 + 1), 422);
  const rest = await request(available - 10000);
  expectStatus(rest, 201);
  assert.deepEqual(await balanceOf(t, key), { available: 0, pending: 0 });
  // Approve one and reject the other: payout_reserved -> paid_out / back to available.
  assert.equal((await approveBySimulator(t, first.json().id, sm.id)).status, "approved");
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${rest.json().id}/reject`, { reason: "test" }), 200);
  await assertExact("after the admin's decisions", owners);
  await t.services.ledger.rollUp();
  await assertExact("decisions rolled up", owners);
  assert.deepEqual(await balanceOf(t, key), { available: available - 10000, pending: 0 });
});

test("rollups concurrent with charges, refunds and settlements (PostgreSQL): no entry counted twice or missed, at every moment", { skip: process.env.DATABASE_URL ? false : "needs DATABASE_URL: PGlite has one connection, nothing runs concurrently" }, async () => {
  const merchants = await Promise.all([0, 1, 2].map(() => seedMaster(t)));
  const owners = merchants.map((m) => ({ id: m.id, key: m.sandboxKey }));
  const state = { charging: true, rolled: 0, checks: 0 };
  const failures: unknown[] = [];

  // Four clients charge (card, Pix paid, refunds, settlements) until the rollers have rolled
  // entries while they ran; two rollers run small batches side by side (SKIP LOCKED, the platform's
  // rollup rows updated by both); a checker compares rollups + tail with all entries in one snapshot.
  const charging = async (m: SeededMerchant, n: number) => {
    for (let i = 0; i < n || (state.rolled < 200 && i < 2000); i++) {
      const c = await createCharge(t, m.sandboxKey, i % 2 === 0 ? cardCharge(CARDS.visa, { amount: 10 + i }) : methodCharge({ type: "pix" }, { amount: 5 + i }));
      if (i % 2 === 1) expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 200);
      if (i % 5 === 0) expectStatus(await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 1 }), 201);
      if (i % 7 === 0) expectStatus(await post(t, m.sandboxKey, "/v1/sandbox/settle"), 200);
    }
  };
  const rolling = async () => {
    while (state.charging) state.rolled += await rollUpEntries(db(), 7);
  };
  const checking = async () => {
    while (state.charging) {
      const bad = await rollupMismatches(db());
      if (bad.length > 0) failures.push(bad);
      state.checks++;
    }
  };
  const loops = [rolling(), rolling(), checking()];
  try {
    await Promise.all([...merchants, merchants[0]!].map((m) => charging(m, 40)));
  } finally {
    state.charging = false;
    await Promise.all(loops);
  }
  assert.deepEqual(failures, [], "rollups + tail = all entries in every snapshot taken while charging");
  assert.ok(state.rolled >= 200, `the rollers rolled entries while charges were made: ${state.rolled}`);
  assert.ok(state.checks > 0);
  await assertExact("after the concurrent run, before the last rollup", owners);
  await t.services.ledger.rollUp();
  assert.equal(await unrolled(), 0);
  await assertExact("after the last rollup", owners);
});
