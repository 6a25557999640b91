import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { activeSubmerchants, assertLedgerInvariants, balanceOf, call, FEES, seedMaster } from "./helpers.js";

// Fixed amounts and bearers (issue 47 item 4): a rule is a percentage of the net or a fixed
// amount; shares never exceed what the charge can pay (422 naming the rule's field, before the
// processor); a fee bearer's share pays the fee; liable recipients give back refunds in place of
// the others. Pix at 1 % (FEES): 1.00 BRL has a fee of 1 cent and a net of 99.

let t: TestApp;
let master: SeededMerchant;
let a: { id: string; key: string };
let b: { id: string; key: string };

before(async () => {
  t = await buildTestApp();
  master = await seedMaster(t, FEES);
  [a, b] = (await activeSubmerchants(t, master.sandboxKey, 2)) as [typeof a, typeof b];
});
after(async () => { await t.close(); });

async function balances() {
  const [m, x, y] = await Promise.all([master.sandboxKey, a.key, b.key].map((k) => balanceOf(t, k)));
  return [m!, x!, y!] as const;
}
const pending = async () => Promise.all([master.sandboxKey, a.key, b.key].map(async (k) => (await balanceOf(t, k)).pending));

/** A paid Pix charge of the master; answers how much each of master, a, b got (pending). */
async function paidPix(amount: number, split?: unknown[]): Promise<{ id: string; got: number[] }> {
  const before = await pending();
  const res = await call(t, "POST", "/v1/charges", master.sandboxKey, methodCharge({ type: "pix" }, { amount, ...(split ? { split } : {}) }));
  expectStatus(res, 201);
  const id = res.json().id as string;
  expectStatus(await call(t, "POST", `/v1/sandbox/charges/${id}/pay`, master.sandboxKey), 200);
  const after = await pending();
  return { id, got: after.map((p, i) => p - before[i]!) };
}

test("table: fixed amounts, percentages and fee bearers at the edges; shares + the originator's rest = the net to the cent", async () => {
  const cases: { name: string; amount: number; split: unknown[]; got: [number, number, number] }[] = [
    { name: "a fixed amount equal to the net", amount: 1, split: [{ merchantId: a.id, amount: 0.99 }], got: [0, 99, 0] },
    { name: "a one-cent share", amount: 1, split: [{ merchantId: a.id, amount: 0.01 }], got: [98, 1, 0] },
    { name: "one-cent shares of a percentage, rounded half-up", amount: 1, split: [{ merchantId: a.id, percentage: 0.51 }, { merchantId: b.id, percentage: 0.51 }], got: [97, 1, 1] },
    { name: "mixed percentage and amount", amount: 100, split: [{ merchantId: a.id, percentage: 10 }, { merchantId: b.id, amount: 50 }], got: [3910, 990, 5000] },
    { name: "mixed, to the last cent of the net", amount: 100, split: [{ merchantId: a.id, percentage: 50 }, { merchantId: b.id, amount: 49.5 }], got: [0, 4950, 4950] },
    // With a fee bearer the shares are of the gross (10000) and the fee (100) comes out of the bearer's.
    { name: "a fee bearer pays the fee", amount: 100, split: [{ merchantId: a.id, percentage: 10, feeBearer: true }, { merchantId: b.id, amount: 20 }], got: [7000, 900, 2000] },
    { name: "two fee bearers share the fee in proportion", amount: 100, split: [{ merchantId: a.id, amount: 30, feeBearer: true }, { merchantId: b.id, amount: 10, feeBearer: true }], got: [6000, 2925, 975] },
    { name: "a fee bearer's fixed amount of the whole gross", amount: 1, split: [{ merchantId: a.id, amount: 1, feeBearer: true }], got: [0, 99, 0] },
  ];
  for (const c of cases) {
    const { got } = await paidPix(c.amount, c.split);
    assert.deepEqual(got, c.got, c.name);
    const net = Math.round(c.amount * 100) - Math.round(c.amount); // 1 % fee, half-up
    assert.equal(got.reduce((s, x) => s + x, 0), net, `${c.name}: the shares and the rest add up to the net`);
  }
  await assertLedgerInvariants(t);
});

test("table: rules that ask for more than the charge can pay, or are malformed, are 422s naming the field, before the processor", async () => {
  const cases: [number, unknown[], RegExp][] = [
    [1, [{ merchantId: a.id, amount: 1 }], /^split\.0\.amount asks for more than the charge's net/],
    [100, [{ merchantId: a.id, percentage: 50 }, { merchantId: b.id, amount: 49.51 }], /^split\.1\.amount /],
    [100, [{ merchantId: a.id, amount: 99 }, { merchantId: b.id, percentage: 0.01 }], /^split\.1\.percentage /],
    [100, [{ merchantId: a.id, amount: 0.5, feeBearer: true }], /^split\.0\.feeBearer /],
    [100, [{ merchantId: a.id, percentage: 10, amount: 5 }], /^split\.0\.amount: a rule has exactly one of percentage and amount/],
    [100, [{ merchantId: a.id }], /^split\.0\.percentage: a rule has exactly one of percentage and amount/],
    [100, [{ merchantId: a.id, amount: 1.005 }], /^split\.0\.amount must be a positive amount with at most 2 decimal places/],
  ];
  for (const [amount, split, message] of cases) {
    const res = await call(t, "POST", "/v1/charges", master.sandboxKey, methodCharge({ type: "pix" }, { amount, split }));
    expectStatus(res, 422);
    assert.match(res.json().message, message, JSON.stringify(split));
  }
});

test("the default split takes fixed amounts too; a charge that cannot pay them is refused naming defaultSplit", async () => {
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: a.id, amount: 5, hold: false }] }), 200);
  const settings = await call(t, "GET", "/v1/connect/settings", master.sandboxKey);
  assert.deepEqual(settings.json().defaultSplit, [{ merchantId: a.id, amount: 5, hold: false }]);
  const { got } = await paidPix(10);
  assert.deepEqual(got, [490, 500, 0]);
  const small = await call(t, "POST", "/v1/charges", master.sandboxKey, methodCharge({ type: "pix" }, { amount: 5 }));
  expectStatus(small, 422);
  assert.match(small.json().message, /^defaultSplit\.0\.amount asks for more/);
  const bad = await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [{ merchantId: a.id, percentage: 5, amount: 5 }] });
  expectStatus(bad, 422);
  assert.match(bad.json().message, /^defaultSplit\.0\.amount/);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.sandboxKey, { defaultSplit: [] }), 200);
  await assertLedgerInvariants(t);
});

test("liable: a liable recipient gives back the refund in place of the others; without the flag each gives back its own part", async () => {
  const [m0, a0, b0] = await balances();
  const liable = await paidPix(100, [{ merchantId: a.id, percentage: 10, liable: true }, { merchantId: b.id, amount: 20 }]);
  assert.deepEqual(liable.got, [6910, 990, 2000]);
  expectStatus(await call(t, "POST", `/v1/charges/${liable.id}/refund`, master.sandboxKey, { amount: 100 }), 201);
  const [m1, a1, b1] = await balances();
  // a gives back the whole 100.00: its 9.90 pending, then 90.10 from its available balance.
  assert.equal(a1.pending - a0.pending, 0);
  assert.equal(a1.available - a0.available, -9010);
  assert.equal(m1.pending - m0.pending, 6910, "the originator, not liable, keeps its part");
  assert.equal(b1.pending - b0.pending, 2000, "b, not liable, keeps its share");

  const own = await paidPix(100, [{ merchantId: b.id, amount: 20 }]);
  assert.deepEqual(own.got, [7900, 0, 2000]);
  expectStatus(await call(t, "POST", `/v1/charges/${own.id}/refund`, master.sandboxKey, { amount: 50 }), 201);
  const [m2, , b2] = await balances();
  assert.equal(b2.pending - b1.pending, 1000, "b gives back half of its share for half of the gross");
  assert.equal(m2.pending - m1.pending, 7900 - 4000, "the originator the rest of the 50.00");
  await assertLedgerInvariants(t);
});
