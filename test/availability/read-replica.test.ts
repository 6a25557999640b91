import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pg from "pg";
import { buildApp, createServices } from "../../src/app.js";
import { openDatabase, type Database } from "../../src/db/client.js";
import { readRouterOf, type ReadRouter } from "../../src/db/replica.js";
import { basic, expectStatus, seedMerchant, testConfig, type TestApp } from "../helpers/app.js";
import { cardCharge, CARDS, createCharge, get, post } from "../helpers/charges.js";
import { postgresInstalled, startReplicaPair, type ReplicaPair } from "../helpers/replica-pair.js";
import { until } from "../helpers/wait.js";
// run-suite: postgres: a streaming standby of a primary of its own (DATABASE_REPLICA_URL)

// DATABASE_REPLICA_URL: lists read the standby once it has replayed the caller's writes, and the
// primary otherwise; money paths never read it. The standby's replay is paused
// (pg_wal_replay_pause) to make it visibly behind: what the lists then show, and which database
// the metrics say served them, tell where each read went.

const skip = process.env.DATABASE_URL ? (postgresInstalled() ? false : "needs PostgreSQL 15's binaries") : "needs PostgreSQL (DATABASE_URL)";

let pair: ReplicaPair;
let t: TestApp;
let database: Database;
let router: ReadRouter;
let primary: pg.Client;
let key: string;

before(async () => {
  if (skip) return;
  pair = await startReplicaPair();
  const urls = { databaseUrl: pair.primaryUrl(), databaseReplicaUrl: pair.standbyUrl() };
  database = await openDatabase({ databaseUrl: urls.databaseUrl, replicaUrl: urls.databaseReplicaUrl });
  await database.migrate();
  const config = testConfig(urls);
  const services = createServices({ config, db: database.db });
  const app = await buildApp({ config, db: database.db }, services);
  await app.ready();
  t = { app, database, services, config, admin: config.adminApiKey!, close: async () => { await app.close(); await database.close(); } };
  router = readRouterOf(database.db)!;
  primary = new pg.Client({ connectionString: pair.primaryUrl() });
  await primary.connect();
  key = (await seedMerchant(t)).sandboxKey;
});

after(async () => {
  if (skip) return;
  await primary?.end().catch(() => undefined);
  await t?.close().catch(() => undefined);
  await pair?.stop();
});

const pause = () => pair.standby.query("select pg_wal_replay_pause()");
const resume = () => pair.standby.query("select pg_wal_replay_resume()");
/**
 * Waits until the standby has replayed all the primary has written now. The router keeps a write's
 * position after its answer is sent (onResponse), so a list right after inject() may still see the
 * write in flight: wait for that first, or the list goes to the primary by design.
 */
async function caughtUp() {
  await until("the router to keep the writes' positions", async () => router.writesInFlight() === 0, 20_000);
  const { rows } = await primary.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn");
  await until("the standby to replay the primary's writes", async () =>
    (await pair.standby.query<{ ok: boolean }>("select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok", [rows[0]!.lsn])).rows[0]!.ok, 20_000);
}
const newCustomer = (name: string) =>
  post(t, key, "/v1/customers", { name, email: `${name.toLowerCase()}@example.com`, documentType: "cpf", documentId: "52998224725" });
const customerIds = async (k: string) => {
  const res = await get(t, k, "/v1/customers?limit=100");
  expectStatus(res, 200);
  return (res.json() as { data: { id: string }[] }).data.map((c) => c.id);
};

test("a list after a write of the same key sees the write, read on the primary while the standby is behind", { skip }, async () => {
  await caughtUp();
  await customerIds(key); // the router has looked at the primary's position before the write
  await pause();
  try {
    const before = router.stats();
    const created = await newCustomer("Ana");
    expectStatus(created, 201);
    assert.ok((await customerIds(key)).includes(created.json().id), "the key's own write is listed");
    const after = router.stats();
    assert.equal(after.replicaReads, before.replicaReads, "the standby, paused before the write, served nothing");
    assert.equal(after.primaryReads, before.primaryReads + 1);
    // /health says the standby is behind.
    const health = (await t.app.inject({ method: "GET", url: "/health" })).json() as { replica?: { lagBytes: number } };
    assert.ok(health.replica && health.replica.lagBytes > 0, JSON.stringify(health));
  } finally {
    await resume();
  }
});

test("lists read the standby once it has replayed the key's writes, and /metrics counts them", { skip }, async () => {
  const created = await newCustomer("Bia");
  expectStatus(created, 201);
  await caughtUp();
  const before = router.stats();
  assert.ok((await customerIds(key)).includes(created.json().id));
  assert.equal(router.stats().replicaReads, before.replicaReads + 1, "served by the standby");

  // Proof that the standby answered: with its replay paused, a row written on the primary behind
  // the API's back (no write request of the key, so nothing tells the key to wait for it) is not
  // in the list; the key's next write sends its lists to the primary, which has both.
  await pause();
  try {
    const merchant = (await primary.query<{ id: string }>("select merchant_id as id from customers where id = $1", [created.json().id])).rows[0]!.id;
    await primary.query(`insert into customers (id, merchant_id, environment, name, email)
      select 'cus_behindtheback' || substr(md5(random()::text), 1, 8), $1, 'sandbox', 'Caio', 'caio@example.com'`, [merchant]);
    const hidden = (await primary.query<{ id: string }>("select id from customers where name = 'Caio'")).rows[0]!.id;
    assert.ok(!(await customerIds(key)).includes(hidden), "the paused standby served the list");
    expectStatus(await newCustomer("Duda"), 201);
    assert.ok((await customerIds(key)).includes(hidden), "after the key's write, the primary served it");
  } finally {
    await resume();
  }
  const metrics = (await t.app.inject({ method: "GET", url: "/metrics" })).body;
  assert.match(metrics, /feira_list_reads_total\{database="replica"\} [1-9]/);
  assert.match(metrics, /feira_list_reads_total\{database="primary"\} [1-9]/);
  assert.match(metrics, /feira_replica_lag_bytes \d+/);
});

test("with several API processes (WEB_CONCURRENCY > 1) a list waits for all the primary wrote, whoever wrote it", { skip }, async () => {
  // A second app on the same databases, as one API process of a cluster: the key's writes may
  // have gone through a sibling, so its lists are held to the primary's current position.
  const sibling = await openDatabase({ databaseUrl: pair.primaryUrl(), replicaUrl: pair.standbyUrl(), replicaPerCaller: false });
  const app = await buildApp({ config: t.config, db: sibling.db }, createServices({ config: t.config, db: sibling.db }));
  try {
    await app.ready();
    const siblingRouter = readRouterOf(sibling.db)!;
    const list = async () => {
      const res = await app.inject({ method: "GET", url: "/v1/customers?limit=100", headers: { authorization: basic(key) } });
      expectStatus(res, 200);
      return (res.json() as { data: { id: string }[] }).data.map((c) => c.id);
    };
    await caughtUp();
    await list();
    assert.equal(siblingRouter.stats().replicaReads, 1, "caught up: the standby serves");
    await pause();
    try {
      // Written through "another process" (the first app): this one never saw it.
      const created = await newCustomer("Gil");
      expectStatus(created, 201);
      assert.ok((await list()).includes(created.json().id));
      assert.deepEqual(siblingRouter.stats(), { replicaReads: 1, primaryReads: 1 });
    } finally {
      await resume();
    }
  } finally {
    await app.close();
    await sibling.close();
  }
});

test("money paths never read the standby: a charge, its refund and the balance are right while it is paused", { skip }, async () => {
  await caughtUp();
  await pause();
  try {
    const before = router.stats();
    const charge = await createCharge(t, key, cardCharge(CARDS.visa, { amount: 80 }));
    assert.equal(charge.status, "paid");
    const refund = await post(t, key, `/v1/charges/${charge.id}/refund`, { amount: 30 });
    expectStatus(refund, 201);
    const again = await post(t, key, `/v1/charges/${charge.id}/refund`, { amount: 60 });
    assert.equal(again.statusCode, 422, "the refundable amount is read on the primary");
    const balance = await get(t, key, "/v1/balance");
    expectStatus(balance, 200);
    const read = await get(t, key, `/v1/charges/${charge.id}`);
    expectStatus(read, 200);
    assert.equal(router.stats().replicaReads, before.replicaReads, "nothing read the standby");
  } finally {
    await resume();
  }
});

test("/ready refuses a process whose DATABASE_URL reaches a standby, which /health still calls healthy", { skip }, async () => {
  // What a failover without target_session_attrs leads to: the database answers, takes no writes.
  const onStandby = await openDatabase({ databaseUrl: pair.standbyUrl() });
  const config = testConfig({ databaseUrl: pair.standbyUrl() });
  const app = await buildApp({ config, db: onStandby.db }, createServices({ config, db: onStandby.db }));
  try {
    await app.ready();
    const health = await app.inject({ url: "/health" });
    assert.equal(health.statusCode, 200, health.body);
    const ready = await app.inject({ url: "/ready" });
    assert.equal(ready.statusCode, 503, ready.body);
    assert.deepEqual(ready.json(), { status: "unavailable" });
    expectStatus(await t.app.inject({ url: "/ready" }), 200);
  } finally {
    await app.close();
    await onStandby.close();
  }
});
