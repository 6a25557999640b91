import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { queryRows, sql, type Database } from "../../src/db/client.js";
import { appsOn, basic, seedMerchant, testConfig, type TestApp } from "../helpers/app.js";
import { freshDatabase } from "../helpers/db.js";
import { createMerchant, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { basicAuth } from "../helpers/process.js";
import { feiraEntry } from "../helpers/feira-bundle.js";
// run-suite: postgres: leases of the shared counters, across API processes
// run-suite: waits: feira API processes

// The per-key limit counted in leases (src/core/key-limit.ts): however the requests of one key
// are spread over API processes, the key is served at most N in each second plus the burst of
// 2N in each 5 s (docs/guarantees.md, "Rate limits"), and a process reaches the database once per
// lease, not once per request. In-process on PGlite and PostgreSQL; on PostgreSQL also over HTTP
// against 2 and 4 real API processes.

const onPostgres = Boolean(process.env.DATABASE_URL);
let database: Database & { url?: string };
let apps: ReturnType<typeof appsOn>;

const startApp = (rateLimitPerKey: number) => apps.start(testConfig({ databaseUrl: database.url, rateLimitPerKey }));

before(async () => {
  database = await freshDatabase();
  apps = appsOn(database);
});
after(async () => {
  await apps.close();
  await database.close();
});

/**
 * `clients` loops sending requests through `send` (each to the next process) for `ms`; answers
 * how many were served, refused, and the most the limit allows over the time they took: N for
 * each aligned second and 2N for each aligned 5 s the requests may have been counted in.
 */
async function flood(n: number, clients: number, ms: number, send: (i: number) => Promise<number>, maxMs = ms) {
  const counts = { served: 0, refused: 0 };
  const first = Date.now();
  const stopAt = first + ms;
  let i = 0;
  // Past `ms`, up to `maxMs`, while nothing was refused yet: on a loaded machine new processes
  // may serve under the limit's rate at first (the allowance grows with the time taken).
  await Promise.all(Array.from({ length: clients }, async () => {
    while (Date.now() < stopAt || (counts.refused === 0 && Date.now() < first + maxMs)) {
      const status = await send(i++);
      if (status === 200) counts.served++;
      else if (status === 429) counts.refused++;
      else throw new Error(`unexpected HTTP ${status}`);
    }
  }));
  const last = Date.now();
  const seconds = Math.floor(last / 1000) - Math.floor(first / 1000) + 1;
  const bursts = Math.floor(last / 5000) - Math.floor(first / 5000) + 1;
  return { ...counts, seconds, allowed: n * seconds + 2 * n * bursts };
}

test("in-process: a key gets at most N per second plus the burst, and requests sent at once cannot overrun it", async () => {
  const N = 15;
  // On PostgreSQL two apps share the counters, as two API processes do.
  const procs = onPostgres ? [await startApp(N), await startApp(N)] : [await startApp(N)];
  const m = await seedMerchant(procs[0]!);
  const r = await flood(N, 8, 2_200, async (i) =>
    (await procs[i % procs.length]!.app.inject({ url: "/v1/customers", headers: { authorization: basic(m.sandboxKey) } })).statusCode);
  assert.ok(r.served <= r.allowed, `${r.served} served over ${r.seconds} s, at most ${r.allowed} allowed`);
  assert.ok(r.refused > 0, "the flood was refused past the limit");
  assert.ok(r.served >= 3 * N, `the key was served its second's budget and its burst (${r.served})`);
});

test("PostgreSQL: one lease serves many requests; the shared count moves by the lease, not per request", { skip: !onPostgres && "the embedded database counts in memory" }, async () => {
  const t = await startApp(1000);
  const m = await seedMerchant(t);
  const before = await queryRows<{ key: string }>(database.db, sql`select key from rate_limits`);
  const known = new Set(before.map((r) => r.key));
  for (let i = 0; i < 40; i++) {
    const res = await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(m.sandboxKey) } });
    assert.equal(res.statusCode, 200, res.body);
  }
  const rows = await queryRows<{ key: string; points: number }>(database.db, sql`select key, points from rate_limits where key like 'lease_key:%'`);
  const fresh = rows.filter((r) => !known.has(r.key));
  // An eighth of the limit per lease: 40 requests took one lease of 125 tokens (two if a second
  // ended meanwhile; the row then holds the newer second's, also 125). Counted per request, it
  // would say 40.
  assert.deepEqual(fresh.map((r) => r.points), [125], JSON.stringify(fresh));
});

test("PostgreSQL, over HTTP: a key limited to N/s gets at most N per second plus the burst across 2 and across 4 API processes", { skip: !onPostgres && "the embedded database admits one process" }, async () => {
  const N = 20;
  const adminKey = `adm_${randomBytes(16).toString("hex")}`;
  const store: Store = {
    onPostgres: true, adminKey,
    env: { ENCRYPTION_KEY: randomBytes(32).toString("base64"), JWT_SECRET: randomBytes(32).toString("hex"), ADMIN_API_KEY: adminKey, DATABASE_URL: database.url! },
    inspect: () => Promise.reject(new Error("not used")), release: async () => undefined, close: async () => undefined,
  };
  const entry = await feiraEntry();
  const processes: FeiraProcess[] = [];
  try {
    processes.push(...await Promise.all(Array.from({ length: 4 }, () => startFeira(store, { role: "api", entry, env: { RATE_LIMIT_PER_KEY: String(N) } }))));
    for (const count of [2, 4]) {
      const used = processes.slice(0, count);
      const { sandboxKey } = await createMerchant(used[0]!, store);
      const r = await flood(N, 4 * count, 2_500, async (i) => {
        const res = await fetch(`${used[i % count]!.url}/v1/customers`, { headers: { authorization: basicAuth(sandboxKey) } });
        await res.arrayBuffer();
        return res.status;
      }, 10_000);
      assert.ok(r.served <= r.allowed, `${count} processes: ${r.served} served over ${r.seconds} s, at most ${r.allowed} allowed`);
      assert.ok(r.refused > 0, `${count} processes: the flood was refused past the limit`);
      assert.ok(r.served >= 3 * N, `${count} processes: the key was served its second's budget and its burst (${r.served})`);
    }
  } finally {
    await Promise.all(processes.map((p) => p.stop()));
  }
});
