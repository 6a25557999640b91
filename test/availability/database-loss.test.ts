import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import pg from "pg";
import { cardCharge, CARDS } from "../helpers/charges.js";
import { createMerchant, makeStore, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { basicAuth, freePort } from "../helpers/process.js";
import { until } from "../helpers/wait.js";
// run-suite: postgres: connections cut by the server, a multi-host DATABASE_URL
// run-suite: waits: feira as a process

// What a failover does to feira, without a cluster (test/availability/failover.test.ts has the
// cluster): DATABASE_URL names a host that refuses connections before the real one, as libpq
// reads a host list with target_session_attrs=read-write, and the server ends every session of
// feira's database (pg_terminate_backend: SQLSTATE 57P01, as a primary shutting down does)
// while charges are in flight. No request may answer 500; the cut ones answer 503 with
// Retry-After, and their retry with the same key completes at once, not after the 30 s lease.

const base = process.env.DATABASE_URL;
const skip = base ? false : "needs PostgreSQL (DATABASE_URL)";

let store: Store;
let feira: FeiraProcess;
let admin: pg.Client;
let key: string;

before(async () => {
  if (skip) return;
  store = await makeStore();
  const url = new URL(store.env.DATABASE_URL!);
  const dead = await freePort();
  // A host list: the first refuses connections, the second is the server.
  const multi = `postgres://${url.username}:${url.password}@127.0.0.1:${dead},${url.hostname}:${url.port || 5432}${url.pathname}?target_session_attrs=read-write`;
  feira = await startFeira(store, { env: { DATABASE_URL: multi, IDEMPOTENCY_LEASE_MS: "30000" } });
  key = (await createMerchant(feira, store)).sandboxKey;
  admin = new pg.Client({ connectionString: store.env.DATABASE_URL });
  await admin.connect();
});

after(async () => {
  if (skip) return;
  await admin?.end();
  await store?.close();
});

async function charge(idempotencyKey: string): Promise<{ status: number; retryAfter: string | null; body: string } | null> {
  try {
    const res = await fetch(`${feira.url}/v1/charges`, {
      method: "POST",
      headers: { authorization: basicAuth(key), "content-type": "application/json", "idempotency-key": idempotencyKey },
      body: JSON.stringify(cardCharge(CARDS.visa)),
    });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.text() };
  } catch {
    return null;
  }
}

test("a DATABASE_URL with several hosts finds the one that takes writes", { skip }, async () => {
  const answer = await charge(randomUUID());
  assert.equal(answer?.status, 201, answer?.body);
});

test("sessions ended under load: 503 with Retry-After, never 500, and the retry completes at once", { skip, timeout: 120_000 }, async () => {
  const answers: { status: number | null; retryAfter: string | null; body: string }[] = [];
  const cut = async () => {
    await admin.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
  };
  // Rounds of concurrent charges with every session cut in the middle, until some were cut.
  const keys: string[] = [];
  for (let round = 0; round < 20 && answers.every((a) => a.status === 201); round++) {
    const batch = Array.from({ length: 8 }, () => randomUUID());
    keys.push(...batch);
    const sent = batch.map((k) => charge(k));
    await cut();
    for (const a of await Promise.all(sent)) answers.push(a ?? { status: null, retryAfter: null, body: "" });
  }
  const statuses = JSON.stringify(answers.map((a) => a.status));
  assert.deepEqual(answers.filter((a) => a.status !== 201 && a.status !== 503), [], `only 201 or 503: ${statuses}`);
  assert.ok(answers.some((a) => a.status === 503), `some request was cut: ${statuses}`);
  for (const a of answers.filter((x) => x.status === 503)) assert.ok(Number(a.retryAfter) >= 1, `503 with Retry-After: ${a.body}`);

  // Each key, retried, completes well within the 30 s lease: a cut request's claim was released.
  const started = Date.now();
  const ids = new Set<string>();
  for (const k of keys) {
    let last: Awaited<ReturnType<typeof charge>> = null;
    await until(`key ${k} answered 201`, async () => {
      last = await charge(k);
      return last?.status === 201;
    }, 15_000).catch(() => assert.fail(`key ${k}: ${JSON.stringify(last)}`));
    ids.add((JSON.parse(last!.body) as { id: string }).id);
  }
  assert.ok(Date.now() - started < 20_000, "retries completed without waiting out the leases");
  assert.equal(ids.size, keys.length, "one charge per key");
  const { rows } = await admin.query<{ n: number }>("select count(*)::int as n from charges");
  // The merchant's first charge (the previous test) and one per key: nothing made twice.
  assert.equal(rows[0]!.n, keys.length + 1);

  // What an operator sees: the 503s counted, the LISTEN connection (ended with the others) made
  // again, and /health naming the host that takes the writes.
  const metrics = await (await fetch(`${feira.url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name} (\\d+)`, "m").exec(metrics)?.[1] ?? 0);
  assert.equal(value("feira_database_unavailable_responses_total"), answers.filter((a) => a.status === 503).length, metrics);
  await until("the LISTEN connection made again", async () => {
    const m = await (await fetch(`${feira.url}/metrics`)).text();
    return /^feira_database_listen_reconnections_total [1-9]/m.test(m);
  });
  const url = new URL(store.env.DATABASE_URL!);
  assert.deepEqual(await (await fetch(`${feira.url}/health`)).json(), { status: "ok", database: { primary: `${url.hostname}:${url.port || 5432}` } });
});
