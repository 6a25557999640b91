import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { openDatabase } from "../../src/db/client.js";
import { cardCharge, CARDS } from "../helpers/charges.js";
import { feiraEntry } from "../helpers/feira-bundle.js";
import { pgbouncerBinary, startPgbouncer, type Pgbouncer } from "../helpers/pgbouncer.js";
import { startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { basicAuth } from "../helpers/process.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
// run-suite: postgres: PgBouncer in front of PostgreSQL
// run-suite: waits: PgBouncer and feira as processes

// feira behind PgBouncer 1.18 in transaction mode (DATABASE_POOL_MODE=transaction), the pooler
// that does not keep named prepared statements: migrations, charges, idempotent replays and
// webhook deliveries through it, by real API and worker processes. Needs PostgreSQL and the
// pgbouncer binary (CI installs Debian's package).

const directBase = process.env.DATABASE_URL;
const skip = !directBase
  ? "needs PostgreSQL (DATABASE_URL)"
  : !pgbouncerBinary()
    ? "pgbouncer is not installed (apt-get install -y pgbouncer; .ci/run installs it)"
    : false;

let bouncer: Pgbouncer;
let dbName: string;
let direct: string;
let receiver: Receiver;
const processes: FeiraProcess[] = [];

async function admin(query: string): Promise<void> {
  const c = new pg.Client({ connectionString: directBase });
  await c.connect();
  try {
    await c.query(query);
  } finally {
    await c.end();
  }
}

before(async () => {
  if (skip) return;
  // A bare database: feira's own migration makes its tables, through the pooler.
  dbName = `feira_t_${Math.floor(Date.now() / 1000)}_${randomBytes(6).toString("hex")}`;
  await admin(`create database ${dbName}`);
  const u = new URL(directBase!);
  u.pathname = `/${dbName}`;
  direct = u.toString();
  bouncer = await startPgbouncer(direct);
  receiver = await startReceiver();
});

after(async () => {
  if (skip) return;
  for (const p of processes) await p.stop();
  await receiver?.close();
  await bouncer?.stop();
  await admin(`drop database if exists ${dbName} with (force)`);
});

test("migrations run through the pooler in transaction mode, several at once, without a direct URL", { skip }, async () => {
  const opened = await Promise.all([0, 1, 2].map(() => openDatabase({ databaseUrl: bouncer.pooled(direct), poolMode: "transaction" })));
  try {
    // Started together: one takes the transaction-scoped lock, the others wait for it and then
    // find nothing to do. A session lock here would stay held on a server connection.
    await Promise.all(opened.map((d) => d.migrate()));
    await opened[0]!.migrate(); // and again, once all are done: nothing waits forever
  } finally {
    await Promise.all(opened.map((d) => d.close()));
  }
  const c = new pg.Client({ connectionString: direct });
  await c.connect();
  try {
    const { rows } = await c.query<{ n: number; distinct: number }>(`select count(*)::int as n, count(distinct hash)::int as distinct from drizzle.__drizzle_migrations`);
    assert.ok(rows[0]!.n > 0);
    assert.equal(rows[0]!.n, rows[0]!.distinct, "each migration applied once");
    const locks = await c.query(`select 1 from pg_locks where locktype = 'advisory'`);
    assert.equal(locks.rowCount, 0, "no advisory lock left behind");
  } finally {
    await c.end();
  }
});

test("charges, idempotent replays and webhook deliveries through PgBouncer in transaction mode", { skip }, async () => {
  const adminKey = `adm_${randomBytes(16).toString("hex")}`;
  const store: Store = {
    onPostgres: true, adminKey,
    env: { ENCRYPTION_KEY: randomBytes(32).toString("base64"), JWT_SECRET: randomBytes(32).toString("hex"), ADMIN_API_KEY: adminKey },
    inspect: () => Promise.reject(new Error("not used")), release: async () => undefined, close: async () => undefined,
  };
  const entry = await feiraEntry();
  const pooled = { DATABASE_URL: bouncer.pooled(direct), DATABASE_POOL_MODE: "transaction" };
  // One API process migrates and LISTENs through the direct URL; the other and the worker have
  // none (the worker polls for deliveries).
  const started = await Promise.all([
    startFeira(store, { role: "api", entry, env: { ...pooled, DATABASE_DIRECT_URL: direct } }),
    startFeira(store, { role: "api", entry, env: pooled }),
    startFeira(store, { role: "worker", entry, env: pooled }),
  ]);
  processes.push(...started);
  const [a, b] = started;

  const call = async (base: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${base}${path}`, {
      method, headers: { authorization: basicAuth(key), ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, text };
  };

  const merchant = await call(a!.url, adminKey, "POST", "/v1/admin/merchants", { name: "Loja Pooler", email: `pooler-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery" });
  assert.equal(merchant.status, 201, merchant.text);
  const key = (merchant.body.apiKeys as { sandbox: string }).sandbox;
  const endpoint = await call(b!.url, key, "POST", "/v1/webhook-endpoints", { url: `${receiver.url}/hook`, events: ["charge.paid"] });
  assert.equal(endpoint.status, 201, endpoint.text);

  // Many at once over both processes, so that the pooler lends several server connections and
  // a statement named on one of them would be looked for on another.
  const charges = await Promise.all(Array.from({ length: 24 }, (_, i) =>
    call(i % 2 === 0 ? a!.url : b!.url, key, "POST", "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": `pool-${i}` })));
  for (const c of charges) {
    assert.equal(c.status, 201, c.text);
    assert.equal(c.body.status, "paid", c.text);
  }
  // The replay, on the other process: the same charge, nothing new.
  const replay = await call(b!.url, key, "POST", "/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": "pool-0" });
  assert.equal(replay.status, 201, replay.text);
  assert.equal(replay.body.id, charges[0]!.body.id);
  const listed = await call(a!.url, key, "GET", "/v1/charges?limit=100");
  assert.equal(listed.status, 200, listed.text);
  assert.equal((listed.body.data as unknown[]).length, charges.length);

  // Each paid charge reaches the receiver, delivered by the worker through the pooler.
  const received = await receiver.waitFor(charges.length, 30_000);
  const ids = new Set(received.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id));
  for (const c of charges) assert.ok(ids.has(c.body.id as string), `a delivery for ${String(c.body.id)}`);

  // Every process is stopped before any is judged: a failed assertion must not leave the others
  // running (the file would never end).
  const stopped = processes.splice(0);
  await Promise.all(stopped.map((p) => p.stop()));
  for (const p of stopped) {
    assert.equal(p.child.exitCode, 0, p.output());
    assert.doesNotMatch(p.output(), /prepared statement|"level":50/, p.output());
  }
});
