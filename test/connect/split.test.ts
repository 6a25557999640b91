import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, methodCharge } from "../helpers/charges.js";
import { activeSubmerchants, assertLedgerInvariants, balanceOf, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";

// Split: recipients within the originator's Connect, checked before the processor;
// shares of the net after fees, reserved as the recipients' pending balance at payment and
// available at settlement; refunds take them back in proportion; the ledger sums to zero.

let t: TestApp;
let master: SeededMerchant;
let a: { id: string; key: string };
let b: { id: string; key: string };
let foreign: { id: string };
let otherMaster: SeededMerchant;

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  [a, b] = (await activeSubmerchants(t, master.sandboxKey, 2)) as [typeof a, typeof b];
  otherMaster = await seedMaster(t, FEES);
  foreign = await createSubmerchant(t, otherMaster.sandboxKey);
});
after(async () => { await t.close(); });

const charge = (key: string, body: unknown) => call(t, "POST", "/v1/charges", key, body);
const counts = async () => (await queryRows<{ charges: string; records: string }>(t.database.db, sql`
  select (select count(*) from charges)::text as charges, (select count(*) from sandbox_processor_records)::text as records`))[0]!;

test("a split outside the originator's Connect, over 100 %, zero, or to itself is a 422 naming the rule, before the processor is called", async () => {
  const plain = await seedMerchant(t);
  const before = await counts();
  const cases: [string, unknown[], RegExp][] = [
    [master.sandboxKey, [{ merchantId: foreign.id, percentage: 10 }], /split\.0\.merchantId .* is not part of this merchant's Connect/],
    [master.sandboxKey, [{ merchantId: a.id, percentage: 10 }, { merchantId: otherMaster.id, percentage: 10 }], /split\.1\.merchantId/],
    [master.sandboxKey, [{ merchantId: "mer_does_not_exist", percentage: 10 }], /split\.0\.merchantId/],
    [master.sandboxKey, [{ merchantId: a.id, percentage: 60 }, { merchantId: b.id, percentage: 40.01 }], /more than 100/],
    [master.sandboxKey, [{ merchantId: a.id, percentage: 0 }], /split\.0\.percentage/],
    [master.sandboxKey, [{ merchantId: a.id, percentage: 10.001 }], /split\.0\.percentage/],
    [master.sandboxKey, [{ merchantId: master.id, percentage: 10 }], /split\.0\.merchantId/],
    [master.sandboxKey, [{ merchantId: a.id, percentage: 10 }, { merchantId: a.id, percentage: 10 }], /split\.1\.merchantId/],
    [a.key, [{ merchantId: foreign.id, percentage: 10 }], /split\.0\.merchantId/],
    [plain.sandboxKey, [{ merchantId: a.id, percentage: 10 }], /Connect/],
    // Live money goes only to active submerchants.
    [master.productionKey, [{ merchantId: foreign.id, percentage: 10 }], /split\.0\.merchantId/],
  ];
  for (const [key, split, message] of cases) {
    const res = await charge(key, cardCharge(CARDS.visa, { split }));
    expectStatus(res, 422);
    assert.match(res.json().message, message, JSON.stringify(split));
  }
  const pendingSub = await createSubmerchant(t, master.productionKey);
  const live = await charge(master.productionKey, cardCharge(CARDS.visa, { split: [{ merchantId: pendingSub.id, percentage: 10 }] }));
  expectStatus(live, 422);
  assert.match(live.json().message, /split\.0\.merchantId .* is not an active submerchant/);
  // An active sandbox submerchant is a stranger to a production charge, and the reverse.
  for (const [key, recipient] of [[master.productionKey, a.id], [master.sandboxKey, pendingSub.id]] as const) {
    const crossed = await charge(key, cardCharge(CARDS.visa, { split: [{ merchantId: recipient, percentage: 10 }] }));
    expectStatus(crossed, 422);
    assert.match(crossed.json().message, /split\.0\.merchantId .* is not part of this merchant's Connect/);
  }
  assert.deepEqual(await counts(), before, "no charge and no processor call for a refused split");
});

test("card charge with a three-way split: shares of the net after fees, half-up per share, the remainder to the originator; available after settlement", async () => {
  const before = await Promise.all([master.sandboxKey, a.key, b.key].map((k) => balanceOf(t, k)));
  const res = await charge(master.sandboxKey, cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 30 }, { merchantId: b.id, percentage: 12.5 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "paid");
  // 100.00 BRL: spread 10 % = 1000, anticipation 1.99 % = 199, net 8801.
  // a: 8801 x 30 % = 2640.3 -> 2640; b: 8801 x 12.5 % = 1100.125 -> 1100; master: 8801 - 3740 = 5061.
  const after = await Promise.all([master.sandboxKey, a.key, b.key].map((k) => balanceOf(t, k)));
  assert.deepEqual(after.map((x, i) => x.pending - before[i]!.pending), [5061, 2640, 1100]);
  const stored = (await call(t, "GET", `/v1/charges/${res.json().id}`, master.sandboxKey)).json();
  assert.deepEqual(stored.split, [{ merchantId: a.id, percentage: 30 }, { merchantId: b.id, percentage: 12.5 }]);
  assert.equal(stored.net, 88.01);
  const rows = await queryRows<{ owner: string; amount: string }>(t.database.db, sql`select owner, sum(amount)::text as amount from settlements where charge_id = ${res.json().id} group by owner`);
  assert.deepEqual(new Map(rows.map((r) => [r.owner, Number(r.amount)])), new Map([[master.id, 5061], [a.id, 2640], [b.id, 1100]]));
  // Each participant's settlement makes its own share available.
  for (const key of [master.sandboxKey, a.key, b.key]) expectStatus(await call(t, "POST", "/v1/sandbox/settle", key), 200);
  const settled = await Promise.all([master.sandboxKey, a.key, b.key].map((k) => balanceOf(t, k)));
  assert.deepEqual(settled.map((x) => x.pending), [0, 0, 0]);
  assert.deepEqual(settled.map((x, i) => x.available - before[i]!.available - before[i]!.pending), [5061, 2640, 1100]);
  await assertLedgerInvariants(t);
});

test("a submerchant may split to its master and to a sibling; rounding remainders stay with the originator", async () => {
  const before = await Promise.all([a.key, master.sandboxKey, b.key].map((k) => balanceOf(t, k)));
  const res = await charge(a.key, methodCharge({ type: "pix" }, { amount: 1.03, split: [{ merchantId: master.id, percentage: 33.33 }, { merchantId: b.id, percentage: 33.33 }] }));
  expectStatus(res, 201);
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${res.json().id}/pay`, a.key), 200);
  // 1.03 BRL: fee 1 % = 1.03 -> 1 cent, net 102; 33.33 % of 102 = 33.9966 -> 34 each; a keeps 34.
  const after = await Promise.all([a.key, master.sandboxKey, b.key].map((k) => balanceOf(t, k)));
  assert.deepEqual(after.map((x, i) => x.pending - before[i]!.pending), [34, 34, 34]);
  await assertLedgerInvariants(t);
});

test("the default split applies when a charge has none; a charge's own split or [] overrides it", async () => {
  const empty = await call(t, "GET", "/v1/connect/settings", master.sandboxKey);
  expectStatus(empty, 200);
  assert.deepEqual(empty.json(), { defaultSplit: [], settlement: "platform" });
  const bad = await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: foreign.id, percentage: 5 }] });
  expectStatus(bad, 422);
  assert.match(bad.json().message, /defaultSplit\.0\.merchantId/);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: a.id, percentage: 50 }, { merchantId: b.id, percentage: 51 }] }), 422);
  const put = await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: a.id, percentage: 20 }] });
  expectStatus(put, 200);
  assert.deepEqual((await call(t, "GET", "/v1/connect/settings", master.sandboxKey)).json(), { defaultSplit: [{ merchantId: a.id, percentage: 20 }], settlement: "platform" });
  // Per environment: production has none.
  assert.deepEqual((await call(t, "GET", "/v1/connect/settings", master.productionKey)).json(), { defaultSplit: [], settlement: "platform" });

  const splitOf = async (body: unknown) => {
    const res = await charge(master.sandboxKey, body);
    expectStatus(res, 201);
    return (await call(t, "GET", `/v1/charges/${res.json().id}`, master.sandboxKey)).json().split;
  };
  assert.deepEqual(await splitOf(cardCharge(CARDS.visa)), [{ merchantId: a.id, percentage: 20 }]);
  assert.deepEqual(await splitOf(cardCharge(CARDS.visa, { split: [{ merchantId: b.id, percentage: 5 }] })), [{ merchantId: b.id, percentage: 5 }]);
  assert.equal(await splitOf(cardCharge(CARDS.visa, { split: [] })), null);
  // A submerchant has its own default split.
  expectStatus(await call(t, "PUT", "/v1/connect/settings", b.key, { defaultSplit: [{ merchantId: master.id, percentage: 15 }] }), 200);
  const bCharge = await charge(b.key, cardCharge(CARDS.visa));
  expectStatus(bCharge, 201);
  assert.deepEqual((await call(t, "GET", `/v1/charges/${bCharge.json().id}`, b.key)).json().split, [{ merchantId: master.id, percentage: 15 }]);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [] }), 200);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", b.key, { defaultSplit: [] }), 200);
  await assertLedgerInvariants(t);
});

test("refunds take the recipients' shares back in proportion to the gross refunded; partial refunds add up to a full one", async () => {
  const keys = [master.sandboxKey, a.key];
  const start = await Promise.all(keys.map((k) => balanceOf(t, k)));
  const total = (x: { available: number; pending: number }) => x.available + x.pending;
  // Pix 100.00: fee 1 % = 100, net 9900; a 50 % = 4950, master 4950.
  const res = await charge(master.sandboxKey, methodCharge({ type: "pix" }, { amount: 100, split: [{ merchantId: a.id, percentage: 50 }] }));
  expectStatus(res, 201);
  const id = res.json().id as string;
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${id}/pay`, master.sandboxKey), 200);
  // a settles its share before the refund; the master's stays pending.
  expectStatus(await call(t, "POST", "/v1/sandbox/settle", a.key), 200);
  expectStatus(await call(t, "POST", `/v1/charges/${id}/refund`, master.sandboxKey, { amount: 40 }), 201);
  let now = await Promise.all(keys.map((k) => balanceOf(t, k)));
  // 40 % of the gross: a gives 4950 x 4000 / 10000 = 1980 (from available), master 2020 (from pending).
  assert.deepEqual(now.map((x, i) => total(x) - total(start[i]!)), [4950 - 2020, 4950 - 1980]);
  await assertLedgerInvariants(t);
  expectStatus(await call(t, "POST", `/v1/charges/${id}/refund`, master.sandboxKey, { amount: 33.33 }), 201);
  expectStatus(await call(t, "POST", `/v1/charges/${id}/refund`, master.sandboxKey, {}), 201);
  now = await Promise.all(keys.map((k) => balanceOf(t, k)));
  // Fully refunded: a gave back exactly its share; the master its share and the fees (not returned).
  assert.deepEqual(now.map((x, i) => total(x) - total(start[i]!)), [-100, 0]);
  assert.equal((await call(t, "GET", `/v1/charges/${id}`, master.sandboxKey)).json().status, "refunded");
  await assertLedgerInvariants(t);
});

test("property: random split charges, payments, refunds and settlements keep the ledger at zero and every share within its charge", async () => {
  let seed = 424242;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const paid: { id: string; cents: number; refunded: number }[] = [];
  const keys = [master.sandboxKey, a.key, b.key];
  for (let step = 0; step < 30; step++) {
    const r = random();
    if (r < 0.45) {
      const amount = Math.round((1 + random() * 300) * 100) / 100;
      const pa = Math.round(random() * 4000) / 100;
      const pb = Math.round(random() * 4000) / 100;
      const split = [{ merchantId: a.id, percentage: Math.max(pa, 0.01) }, { merchantId: b.id, percentage: Math.max(pb, 0.01) }];
      const pix = random() < 0.5;
      const body = pix ? methodCharge({ type: "pix" }, { amount, split }) : cardCharge(CARDS.visa, { amount, split }, { installments: 1 + Math.floor(random() * 3) });
      const res = await charge(master.sandboxKey, body);
      expectStatus(res, 201);
      if (pix) expectStatus(await call(t, "POST", `/v1/sandbox/charges/${res.json().id}/pay`, master.sandboxKey), 200);
      paid.push({ id: res.json().id, cents: Math.round(amount * 100), refunded: 0 });
    } else if (r < 0.8 && paid.length > 0) {
      const c = paid[Math.floor(random() * paid.length)]!;
      const left = c.cents - c.refunded;
      if (left === 0) continue;
      const cents = random() < 0.4 ? left : 1 + Math.floor(random() * left);
      expectStatus(await call(t, "POST", `/v1/charges/${c.id}/refund`, master.sandboxKey, { amount: cents / 100 }), 201);
      c.refunded += cents;
    } else {
      expectStatus(await call(t, "POST", "/v1/sandbox/settle", keys[Math.floor(random() * 3)]!), 200);
    }
    await assertLedgerInvariants(t);
  }
  // A fully refunded charge has taken back every share, to the cent.
  for (const c of paid.filter((p) => p.refunded === p.cents)) {
    const rows = await queryRows<{ owner: string; n: string }>(t.database.db, sql`
      select e.owner, sum(e.amount)::text as n from ledger_entries e
      where e.owner in (${a.id}, ${b.id}) and (e.source_id = ${c.id} and e.type = 'charge'
        or e.source_id in (select id from refunds where charge_id = ${c.id}) and e.type = 'refund')
      group by e.owner`);
    for (const row of rows) assert.equal(Number(row.n), 0, `${row.owner} keeps nothing of refunded ${c.id}`);
  }
});
