import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { and, eq, isNull, sql } from "drizzle-orm";
import { ledgerEntries, settlements } from "../../src/db/schema.js";
import { queryRows } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, post } from "../helpers/charges.js";

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  await t.app.inject({
    method: "PUT", url: `/v1/admin/merchants/${m.id}/fees`, headers: { authorization: basic(t.admin) },
    payload: { fees: [
      { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 35, percentages: [3.79, 4.19, 4.59, 4.99] } },
      { feeType: "anticipation", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [1.99, 2.99] } },
      { feeType: "tx_spread", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: 10, percentages: [0.89] } },
    ] },
  });
});
after(async () => { await t.close(); });

// A seeded pseudo-random generator, so a failure can be replayed.
function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
}

async function assertInvariants(merchantId: string) {
  const unbalanced = await queryRows<{ transaction_id: string; total: string }>(t.database.db,
    sql`select transaction_id, sum(amount) as total from ledger_entries group by transaction_id having sum(amount) <> 0`);
  assert.deepEqual(unbalanced, [], "every ledger transaction sums to zero");
  const [pending] = await t.database.db
    .select({ total: sql<string>`coalesce(sum(${ledgerEntries.amount}), 0)` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.owner, merchantId), eq(ledgerEntries.account, "pending"), eq(ledgerEntries.environment, "sandbox")));
  const [open] = await t.database.db
    .select({ total: sql<string>`coalesce(sum(${settlements.amount}), 0)` })
    .from(settlements)
    .where(and(eq(settlements.owner, merchantId), isNull(settlements.settledAt)));
  assert.equal(Number(pending!.total), Number(open!.total), "pending balance = unsettled settlement rows");
}

test("property: after a random sequence of charges, payments, refunds and settlements the ledger balances", async () => {
  const random = rng(20261122);
  const paid: { id: string; amount: number; refunded: number }[] = [];
  let expectedNet = 0;
  for (let step = 0; step < 40; step++) {
    const r = random();
    if (r < 0.35) {
      const amount = Math.round((1 + random() * 500) * 100) / 100;
      const installments = 1 + Math.floor(random() * 4);
      const c = await createCharge(t, m.sandboxKey, cardCharge(random() < 0.8 ? CARDS.visa : CARDS.declined, { amount }, { installments }));
      if (c.status === "paid") {
        const got = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
        expectedNet += Math.round(got.net * 100);
        paid.push({ id: c.id, amount: Math.round(amount * 100), refunded: 0 });
      }
    } else if (r < 0.55) {
      const amount = Math.round((1 + random() * 300) * 100) / 100;
      const c = await createCharge(t, m.sandboxKey, { ...cardCharge(CARDS.visa, { amount }), paymentMethod: { type: "pix" } });
      expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 200);
      const got = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
      expectedNet += Math.round(got.net * 100);
      paid.push({ id: c.id, amount: Math.round(amount * 100), refunded: 0 });
    } else if (r < 0.85 && paid.length > 0) {
      const c = paid[Math.floor(random() * paid.length)]!;
      const left = c.amount - c.refunded;
      if (left === 0) continue;
      const cents = random() < 0.5 ? left : 1 + Math.floor(random() * left);
      const res = await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: cents / 100 });
      expectStatus(res, 201);
      c.refunded += cents;
      expectedNet -= cents;
    } else {
      expectStatus(await post(t, m.sandboxKey, "/v1/sandbox/settle"), 200);
    }
    await assertInvariants(m.id);
  }
  const balance = (await get(t, m.sandboxKey, "/v1/balance")).json();
  const sum = (xs: { amount: number }[]) => xs.reduce((s, x) => s + x.amount, 0);
  assert.equal(sum(balance.available) + sum(balance.pending), expectedNet, "balance = nets of paid charges - refunds");
});

test("settlement: card per installment at D+30, Pix at D+1; sandbox settle makes all available", async () => {
  const s = await seedMerchant(t);
  const card = await createCharge(t, s.sandboxKey, cardCharge(CARDS.visa, { amount: 10 }, { installments: 3 }));
  const rows = await t.database.db.select().from(settlements).where(eq(settlements.chargeId, card.id)).orderBy(settlements.installment);
  assert.deepEqual(rows.map((r) => r.amount), [334, 333, 333], "first installment absorbs the remainder");
  const days = rows.map((r) => Math.round((r.dueAt.getTime() - rows[0]!.createdAt.getTime()) / 86_400_000));
  assert.deepEqual(days, [30, 60, 90]);
  const pix = await createCharge(t, s.sandboxKey, { ...cardCharge(CARDS.visa, { amount: 5 }), paymentMethod: { type: "pix" } });
  await post(t, s.sandboxKey, `/v1/sandbox/charges/${pix.id}/pay`);
  let balance = (await get(t, s.sandboxKey, "/v1/balance")).json();
  assert.deepEqual(balance, { available: [], pending: [{ currency: "BRL", amount: 1500 }], atProvider: [] });
  // The worker's task settles only what is due: nothing yet.
  assert.equal(await t.services.ledger.settle({ dueBy: new Date() }), 0);
  const settled = await post(t, s.sandboxKey, "/v1/sandbox/settle");
  assert.equal(settled.json().settled, 4);
  balance = (await get(t, s.sandboxKey, "/v1/balance")).json();
  assert.deepEqual(balance.available, [{ currency: "BRL", amount: 1500 }]);
  assert.deepEqual(balance.pending, [{ currency: "BRL", amount: 0 }]);
  const txs = (await get(t, s.sandboxKey, "/v1/balance-transactions?limit=100")).json();
  assert.equal(txs.data.filter((x: { type: string }) => x.type === "settlement").length, 8);
  assert.ok(txs.data.every((x: { transactionId: string }) => x.transactionId.startsWith("ltx_")));
  const other = await seedMerchant(t);
  assert.deepEqual((await get(t, other.sandboxKey, "/v1/balance-transactions")).json().data, []);
});
