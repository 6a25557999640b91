import { test } from "node:test";
import assert from "node:assert/strict";
import { createTtlCache } from "../../src/db/config-changes.js";

// The per-process cache of API keys and merchants' charge profiles, with a clock the test sets
// and reads the test answers when it chooses (a database queue seconds long is what made an
// expiry send every request of a busy key to it).

function deferredReads<V>() {
  const calls: { resolve: (v: V | null) => void; reject: (e: Error) => void }[] = [];
  const load = () => new Promise<V | null>((resolve, reject) => { calls.push({ resolve, reject }); });
  return { load, calls };
}
const tick = () => new Promise((r) => setImmediate(r));

test("requests that find a value expired share one read; a miss is read by each", async () => {
  let t = 1_000;
  const cache = createTtlCache<string>(5_000, 100, () => t);
  const reads = deferredReads<string>();
  const first = Array.from({ length: 20 }, () => cache.get("k", reads.load));
  await tick();
  assert.equal(reads.calls.length, 1, "twenty requests, one read");
  reads.calls[0]!.resolve("v1");
  assert.deepEqual(new Set(await Promise.all(first)), new Set(["v1"]));
  // Unknown keys are never shared nor kept: each request reads (a guess cannot ride on another's).
  const misses = deferredReads<string>();
  const unknown = Array.from({ length: 3 }, () => cache.get("nope", misses.load));
  await tick();
  misses.calls[0]!.resolve(null);
  await tick();
  assert.equal(misses.calls.length, 3, "the two that waited read for themselves");
  misses.calls.forEach((c) => c.resolve(null));
  assert.deepEqual(await Promise.all(unknown), [null, null, null]);
});

test("a kept value is read again in the background in its second half of life, and never served past its TTL", async () => {
  let t = 10_000;
  const cache = createTtlCache<string>(5_000, 100, () => t);
  const reads = deferredReads<string>();
  const p = cache.get("k", reads.load);
  await tick();
  reads.calls[0]!.resolve("v1");
  assert.equal(await p, "v1");
  t = 12_000; // first half: from memory, no read
  assert.equal(await cache.get("k", reads.load), "v1");
  assert.equal(reads.calls.length, 1);
  t = 13_000; // second half: answered at once, one read started for everyone
  assert.equal(await cache.get("k", reads.load), "v1");
  assert.equal(await cache.get("k", reads.load), "v1");
  assert.equal(reads.calls.length, 2);
  reads.calls[1]!.resolve("v2");
  await tick();
  assert.equal(await cache.get("k", reads.load), "v2");
  t = 17_500; // the refreshed value's own second half (kept until 18,000), and its read is slow
  assert.equal(await cache.get("k", reads.load), "v2");
  assert.equal(reads.calls.length, 3);
  t = 18_000; // expired: requests wait for the read under way instead of getting v2
  let answered = false;
  const late = cache.get("k", reads.load).then((v) => { answered = true; return v; });
  await tick();
  assert.equal(answered, false);
  assert.equal(reads.calls.length, 3, "the expired request joined the read under way");
  reads.calls[2]!.resolve("v3");
  assert.equal(await late, "v3");
});

test("a read overtaken by clear() answers its requests but is not kept", async () => {
  const t = 20_000;
  const cache = createTtlCache<string>(5_000, 100, () => t);
  const reads = deferredReads<string>();
  const p = cache.get("k", reads.load);
  await tick();
  cache.clear(); // a change committed while the read was under way
  reads.calls[0]!.resolve("before the change");
  assert.equal(await p, "before the change");
  const again = cache.get("k", reads.load);
  await tick();
  assert.equal(reads.calls.length, 2, "read again after the change");
  reads.calls[1]!.resolve("after");
  assert.equal(await again, "after");
});

test("a value `keep` refuses is not shared nor kept, and a failed background read is tried again", async () => {
  let t = 30_000;
  const cache = createTtlCache<string>(5_000, 100, () => t);
  const refused = deferredReads<string>();
  const keep = (v: string) => v !== "inactive";
  const two = [cache.get("r", refused.load, keep), cache.get("r", refused.load, keep)];
  await tick();
  refused.calls[0]!.resolve("inactive");
  await tick();
  assert.equal(refused.calls.length, 2, "the second request read for itself");
  refused.calls[1]!.resolve("inactive");
  assert.deepEqual(await Promise.all(two), ["inactive", "inactive"]);

  const reads = deferredReads<string>();
  const p = cache.get("k", reads.load);
  await tick();
  reads.calls[0]!.resolve("v1");
  await p;
  t = 33_000;
  assert.equal(await cache.get("k", reads.load), "v1");
  reads.calls[1]!.reject(new Error("connection reset"));
  await tick();
  assert.equal(await cache.get("k", reads.load), "v1");
  assert.equal(reads.calls.length, 3, "the next request of the second half reads again");
});
