import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { openDatabase, sql, type Database } from "../../src/db/client.js";
import { appsOn, basic, expectStatus, seedMerchant, testConfig, type TestApp } from "../helpers/app.js";
import { CONFIG_CHANGED_CHANNEL, configListeners } from "../../src/db/config-changes.js";
import { freshDatabase } from "../helpers/db.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { activate, call, createSubmerchant, keyOf, seedMaster } from "../connect/helpers.js";
import { START_LIMIT_MS, makeStore, startFeira } from "../helpers/feira-process.js";
import { until } from "../helpers/wait.js";

// run-suite: postgres: the listeners of several processes are counted on the server (pg_stat_activity)
// Two API processes on one database, as in a cluster, but with no notification between them:
// what b sees right after a's change is what its own cache lets it see. A refusal is never kept,
// so lifting it reaches b at once; a grant b has kept lasts until b hears of the change (main.ts
// makes every API process forget on the `feira_auth` notification, which this file leaves out).

let database: Database & { url?: string };
let apps: ReturnType<typeof appsOn>;
let a: TestApp;
let b: TestApp;

before(async () => {
  database = await freshDatabase();
  apps = appsOn(database);
  a = await apps.start(testConfig({ databaseUrl: database.url }));
  b = await apps.start(testConfig({ databaseUrl: database.url }));
});
after(async () => {
  await apps.close();
  await database.close();
});

const customers = (t: TestApp, key: string) => t.app.inject({ url: "/v1/customers", headers: { authorization: basic(key) } });
const setMerchantStatus = (id: string, status: string) =>
  a.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${id}`, headers: { authorization: basic(a.admin) }, payload: { status } });

test("a merchant made active again: its keys work at once on a process that had refused them", async () => {
  const m = await seedMerchant(a);
  expectStatus(await setMerchantStatus(m.id, "inactive"), 200);
  expectStatus(await customers(b, m.sandboxKey), 403);
  expectStatus(await customers(b, m.productionKey), 403);
  expectStatus(await setMerchantStatus(m.id, "active"), 200);
  expectStatus(await customers(b, m.sandboxKey), 200);
  expectStatus(await customers(b, m.productionKey), 200);
});

test("a merchant made inactive: a process that kept its key refuses it once it hears of the change", async () => {
  const m = await seedMerchant(a);
  expectStatus(await customers(b, m.sandboxKey), 200);
  expectStatus(await setMerchantStatus(m.id, "inactive"), 200);
  expectStatus(await customers(a, m.sandboxKey), 403);
  // What the notification does in b.
  b.services.configChanges.forget();
  expectStatus(await customers(b, m.sandboxKey), 403);
});

test("a submerchant made active: its production charges pass Connect at once on a process that had refused them", async () => {
  const master = await seedMaster(a);
  const sm = await createSubmerchant(a, master.productionKey);
  const key = await keyOf(a, master.productionKey, sm.id);
  const refused = await call(b, "POST", "/v1/charges", key, cardCharge(CARDS.visa));
  expectStatus(refused, 422);
  assert.match(refused.json().message, /not active/);
  await activate(a, master.productionKey, sm.id);
  // Past the Connect check, the charge meets the missing production processor.
  const passed = await call(b, "POST", "/v1/charges", key, cardCharge(CARDS.visa));
  expectStatus(passed, 422);
  assert.match(passed.json().message, /PAYMENT_PROCESSOR/);
});

test("two listening processes: a change answers only once the other has forgotten, however late it hears", {
  skip: process.env.DATABASE_URL ? false : "the embedded database admits one process (run with DATABASE_URL)",
}, async () => {
  const [p, q] = [await apps.start(testConfig({ databaseUrl: database.url })), await apps.start(testConfig({ databaseUrl: database.url }))];
  // q's URL names its connections, as the topology run's processes' do: its listener is still
  // counted. q hears each notification 300 ms late, as a starved process may.
  const named = new URL(database.url!);
  named.searchParams.set("application_name", "feira-api");
  const qDatabase = await openDatabase({ databaseUrl: named.toString() });
  const qForgot: string[] = [];
  const unlisten = [
    await database.listen(CONFIG_CHANGED_CHANNEL, (payload) => p.services.configChanges.heard(payload)),
    await qDatabase.listen(CONFIG_CHANGED_CHANNEL, (payload) => {
      setTimeout(() => { q.services.configChanges.heard(payload); qForgot.push(payload); }, 300);
    }),
  ];
  p.services.configChanges.listened(database.db);
  q.services.configChanges.listened(database.db);
  try {
    const m = await seedMerchant(p);
    expectStatus(await customers(q, m.sandboxKey), 200); // q keeps the key
    const res = await p.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${m.id}`, headers: { authorization: basic(p.admin) }, payload: { status: "inactive" } });
    expectStatus(res, 200);
    assert.equal(qForgot.filter((x) => /^[0-9a-f-]{36}$/.test(x)).length, 1, `q had forgotten before the change answered: ${JSON.stringify(qForgot)}`);
    expectStatus(await customers(q, m.sandboxKey), 403);
  } finally {
    for (const stop of unlisten) await stop();
    await qDatabase.close();
  }
});

test("in a process that listens, a change answers once its own notification has come back", async () => {
  const listening = await apps.start(testConfig({ databaseUrl: database.url }));
  const payloads: string[] = [];
  // As main.ts does in every API process.
  const unlisten = await database.listen(CONFIG_CHANGED_CHANNEL, (payload) => {
    payloads.push(payload);
    listening.services.configChanges.heard(payload);
  });
  listening.services.configChanges.listened(database.db);
  try {
    const m = await seedMerchant(listening);
    const res = await listening.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${m.id}`, headers: { authorization: basic(listening.admin) }, payload: { status: "inactive" } });
    expectStatus(res, 200);
    assert.equal(payloads.filter((p) => /^[0-9a-f-]{36}$/.test(p)).length, 1, `the change's own notification was heard before it answered: ${JSON.stringify(payloads)}`);
  } finally {
    await unlisten();
  }
  // A notification that never comes back (lost, or no listener after all) delays the answer by
  // at most a second, and never fails the change.
  const m = await seedMerchant(listening);
  const rotated = await listening.app.inject({ method: "POST", url: `/v1/admin/merchants/${m.id}/rotate-keys`, headers: { authorization: basic(listening.admin) } });
  expectStatus(rotated, 200);
  expectStatus(await customers(listening, rotated.json().apiKeys.sandbox), 200);
});

test("a worker process hears each change and answers it once it has forgotten: a change waits for workers too", {
  skip: process.env.DATABASE_URL ? false : "a worker process alone needs PostgreSQL", timeout: START_LIMIT_MS,
}, async () => {
  // Workers charge from what they keep (a renewal, a retry): a change must reach them before it answers.
  const store = await makeStore();
  try {
    const worker = await startFeira(store, { role: "worker" });
    const db = await store.inspect();
    const heard: string[] = [];
    const unlisten = await db.listen(CONFIG_CHANGED_CHANNEL, (payload) => heard.push(payload));
    try {
      // What change() waits for: the worker's answer and this listener's.
      assert.equal(await configListeners(db.db), 2, "the worker listens on the channel");
      const token = randomUUID();
      await db.db.execute(sql`select pg_notify(${CONFIG_CHANGED_CHANNEL}, ${token})`);
      await until("the worker's answer", () => heard.includes(`ack:${token}`));
    } finally {
      await unlisten();
    }
    await worker.stop();
  } finally {
    await store.close();
  }
});
