import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, type TestApp } from "../helpers/app.js";
import { assertLedgerInvariants, call, FEES, seedMaster } from "./helpers.js";
import { advanceClock, sandboxSale, sandboxSeller, type SandboxSeller } from "./sandbox-sellers.js";

// Provider settlement in the sandbox, over HTTP (issue 47 item 6): the simulator pays a seller's
// balance at the provider to its bank on the due days of its payoutSchedule, as Pagar.me's
// transfer_settings do, on the master's test clock. Each transfer is one read-only payout with
// source "provider", booked out of atProvider, told once by payout.paid; a new advance never
// repeats it, and a transfer takes what the seller holds there, never more, never zero. Each
// test has its own master: the test clock is per master.

let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => { await t.close(); });

const HOUR = 3_600_000;

type Seller = SandboxSeller;

const seller = async (payoutSchedule: unknown) => sandboxSeller(t, await seedMaster(t, FEES), payoutSchedule);
const sale = (s: Seller) => sandboxSale(t, s);
const advance = (s: Seller, days: number) => advanceClock(t, s.master, days);

async function atProvider(s: Seller): Promise<number> {
  const res = await call(t, "GET", `/v1/submerchants/${s.id}/balance`, s.master.sandboxKey);
  expectStatus(res, 200);
  return (res.json().atProvider as { processor: string; amount: number }[]).filter((a) => a.processor === "sandbox").reduce((n, a) => n + a.amount, 0);
}

type Payout = { id: string; merchantId: string; amount: number; status: string; source: string; netAmount: number };

async function payoutsOf(s: Seller): Promise<Payout[]> {
  const res = await call(t, "GET", `/v1/payout-requests?merchantId=${s.id}&size=100`, s.master.sandboxKey);
  expectStatus(res, 200);
  return (res.json().data as Payout[]).filter((p) => p.merchantId === s.id);
}

type Paid = { id: string; amount: number; source: string; transferId: string };

async function paidEvents(s: Seller): Promise<Paid[]> {
  const res = await call(t, "GET", "/v1/events?type=payout.paid&limit=100", s.key);
  expectStatus(res, 200);
  return (res.json().data as { data: Paid }[]).map((e) => e.data);
}

test("daily: the next due day's 06:00 on the test clock, the simulator transfers the seller's balance: one provider payout, atProvider at 0, payout.paid once", async () => {
  const s = await seller({ interval: "daily" });
  await sale(s);
  assert.equal(await atProvider(s), 2640);
  assert.deepEqual(await payoutsOf(s), [], "nothing before a due day passes on the clock");

  await advance(s, 1);
  const payouts = await payoutsOf(s);
  assert.deepEqual(payouts.map((p) => [p.source, p.status, p.amount, p.netAmount]), [["provider", "approved", 2640, 2640]]);
  assert.equal(await atProvider(s), 0, "the transfer left the seller's balance at the provider");
  assert.deepEqual((await paidEvents(s)).map((e) => [e.id, e.amount, e.source]), [[payouts[0]!.id, 2640, "provider"]]);

  // Further days: nothing held, so no transfer (never a zero one), and the first one is not repeated.
  await advance(s, 1);
  await advance(s, 2);
  await t.services.connect.providerTransfers.runDue();
  assert.equal((await payoutsOf(s)).length, 1, "no second record");
  assert.equal((await paidEvents(s)).length, 1, "payout.paid once");

  // A new sale is the next due day's transfer, of what it added and no more.
  await sale(s);
  await advance(s, 1);
  assert.deepEqual((await payoutsOf(s)).map((p) => p.amount).sort(), [2640, 2640]);
  assert.equal(await atProvider(s), 0);
  const res = await call(t, "GET", `/v1/submerchants/${s.id}/reconciliation`, s.master.sandboxKey);
  expectStatus(res, 200);
  assert.deepEqual((res.json().accounts as { status: string }[]).map((a) => a.status), ["matched"], "the simulator's books agree with feira's");
  await assertLedgerInvariants(t);
});

test("weekly: no transfer before the week day's 06:00 on the test clock, one on it; a minimum above the balance makes none", async () => {
  const probe = await seedMaster(t, FEES);
  const clock = await call(t, "GET", "/v1/sandbox/clock", probe.sandboxKey);
  expectStatus(clock, 200);
  // Three days after today on Brasília's calendar (UTC-03:00), as ISO's 1 = Monday .. 7 = Sunday.
  const inThree = new Date(new Date(clock.json().now).getTime() - 3 * HOUR + 3 * 24 * HOUR).getUTCDay();
  const s = await seller({ interval: "weekly", weekDay: inThree === 0 ? 7 : inThree });
  const high = await seller({ interval: "weekly", weekDay: inThree === 0 ? 7 : inThree, minimumAmount: 5000 });
  await sale(s);
  await sale(high);

  await advance(s, 2);
  assert.deepEqual(await payoutsOf(s), [], "the week day has not come");
  await advance(s, 2);
  assert.deepEqual((await payoutsOf(s)).map((p) => [p.source, p.amount]), [["provider", 2640]]);
  assert.equal(await atProvider(s), 0);
  await advance(s, 7);
  assert.equal((await payoutsOf(s)).length, 1, "the next week holds nothing: no transfer");

  await advance(high, 8);
  assert.deepEqual(await payoutsOf(high), [], "2640 is under the minimum of 5000");
  assert.equal(await atProvider(high), 2640);
  await assertLedgerInvariants(t);
});

test("a transfer the simulator made that feira had not recorded when the next due day came is recorded then; the next one takes only the rest", async () => {
  const s = await seller({ interval: "daily" });
  await sale(s);
  // A worker's read on tomorrow's clock that dies before it commits: the simulator made the transfer.
  const clock = await call(t, "GET", "/v1/sandbox/clock", s.master.sandboxKey);
  const tomorrow = new Date(new Date(clock.json().now).getTime() + 24 * HOUR);
  const sim = t.services.processors.adapter("sandbox", "sandbox")?.accounts;
  const read = await sim!.transfersDone!(`acct_sandbox_${s.id}`, {
    now: tomorrow, currency: "BRL", schedule: { interval: "daily", weekDay: null, monthDay: null, minimumAmount: 0 }, scheduleFrom: null,
    booked: async () => 2640, recorded: async () => false,
  });
  assert.equal(read.outcome, "read");
  const [first] = read.outcome === "read" ? read.transfers : [];
  assert.equal(first?.amountMinor, 2640);
  await sale(s);
  assert.equal(await atProvider(s), 5280);

  // Two days on: the day before's transfer is listed again and recorded; today's takes the second sale only.
  await advance(s, 2);
  const payouts = await payoutsOf(s);
  assert.deepEqual(payouts.map((p) => p.amount), [2640, 2640], JSON.stringify(payouts));
  const paid = (await paidEvents(s)).map((e) => e.transferId).sort();
  assert.equal(paid.length, 2);
  assert.equal(paid[0], first!.id, "the first transfer is recorded under its own id");
  assert.equal(await atProvider(s), 0, "never more than the seller held");
  await assertLedgerInvariants(t);
});
