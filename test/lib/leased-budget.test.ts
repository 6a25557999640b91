import { test } from "node:test";
import assert from "node:assert/strict";
import { createLeasedBudget, memoryLeases } from "../../src/core/key-limit.js";

// The lease arithmetic of the per-key limit with clocks the test sets: several budgets over one
// store stand for API processes sharing the rate_limits row (the HTTP tests are in
// test/foundation/rate-limit-leases.test.ts).

function processes(count: number, points: number, clocks: (() => number)[]) {
  let leases = 0;
  const shared = memoryLeases(clocks[0]);
  const store = { lease: (key: string, size: number, end: number) => { leases++; return shared.lease(key, size, end); } };
  const budgets = Array.from({ length: count }, (_, i) => createLeasedBudget(store, { prefix: "k", points, durationMs: 1000, now: clocks[i] }));
  return { budgets, leases: () => leases };
}

test("processes taking turns are granted exactly the limit per window, no more, and leases shrink near it", async () => {
  let t = 10_000;
  const clock = () => t;
  const { budgets, leases } = processes(4, 100, [clock, clock, clock, clock]);
  let served = 0;
  for (let i = 0; i < 1000; i++) if ((await budgets[i % 4]!.take("key")).allowed) served++;
  // Tokens leased by one process and not spent there are refused to the others: at most the
  // limit, and short of it by what the last leases left unspent.
  assert.ok(served <= 100 && served >= 90, `served ${served} of 100`);
  assert.ok(leases() < 40, `${leases()} leases for ${served} requests`);
  // Everyone knows the window is spent: refused from memory, no more leases.
  const before = leases();
  for (let i = 0; i < 100; i++) assert.equal((await budgets[i % 4]!.take("key")).allowed, false);
  assert.equal(leases(), before);
  // The next window starts afresh, unspent tokens of the last one dropped.
  t += 1000;
  assert.equal((await budgets[0]!.take("key")).allowed, true);
});

test("requests sent at once share one lease and never exceed the limit", async () => {
  const clock = () => 20_000;
  const { budgets, leases } = processes(2, 50, [clock, clock]);
  const results = await Promise.all(Array.from({ length: 400 }, (_, i) => budgets[i % 2]!.take("key")));
  const served = results.filter((r) => r.allowed).length;
  assert.ok(served <= 50 && served >= 40, `served ${served} of 50`);
  assert.ok(leases() < 30, `${leases()} leases`);
});

test("a process whose clock is behind adds to the newer window: the count is never lost", async () => {
  let t = 30_000;
  const ahead = () => t;
  const behind = () => t - 300;
  const { budgets } = processes(2, 20, [ahead, behind]);
  t = 30_100; // ahead is in window 30, behind still in 29
  let served = 0;
  for (let i = 0; i < 200; i++) if ((await budgets[i % 2]!.take("key")).allowed) served++;
  // Both spend against window 30's count (behind's leases land in the newer row).
  assert.ok(served <= 20, `served ${served}`);
});

test("the headers' remaining count and the time to the window's end", async () => {
  const t = 40_250;
  const { budgets } = processes(1, 3, [() => t]);
  const taken = [];
  for (let i = 0; i < 4; i++) taken.push(await budgets[0]!.take("key"));
  assert.deepEqual(taken.map((r) => [r.allowed, r.remaining, r.msBeforeNext]), [[true, 2, 750], [true, 1, 750], [true, 0, 750], [false, 0, 750]]);
});

test("a lease that answers after its window ended serves the requests that waited for it", async () => {
  // A database whose queue is longer than what is left of the window: before, the waiters found
  // a new window with no token on waking, leased again, and could go round for as long as the
  // queue stayed longer than a window.
  let t = 50_900;
  const clock = () => t;
  const shared = memoryLeases(clock);
  let leases = 0;
  const pending: (() => void)[] = [];
  const slow = { lease: (key: string, size: number, end: number) => {
    leases++;
    return new Promise<number>((resolve) => pending.push(() => void shared.lease(key, size, end).then(resolve)));
  } };
  const budget = createLeasedBudget(slow, { prefix: "k", points: 100, durationMs: 1000, now: clock });
  const waiting = Array.from({ length: 5 }, () => budget.take("key"));
  await new Promise((r) => setImmediate(r));
  assert.equal(pending.length, 1, "one lease for the five");
  t = 52_300; // the answer comes more than a window later
  pending.shift()!();
  const taken = await Promise.all(waiting);
  assert.deepEqual(taken.map((r) => [r.allowed, r.msBeforeNext]), Array.from({ length: 5 }, () => [true, 0]));
  assert.equal(leases, 1, "served by the lease they waited for, none taken again");
  // A request of the new window leases for it.
  const next = budget.take("key");
  await new Promise((r) => setImmediate(r));
  assert.equal(pending.length, 1);
  pending.shift()!();
  assert.equal((await next).allowed, true);
  assert.equal(leases, 2);
});
