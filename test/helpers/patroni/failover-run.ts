import { randomBytes, randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { cardCharge, CARDS } from "../charges.js";
import { createMerchant, startFeira, type FeiraProcess, type Store } from "../feira-process.js";
import { basicAuth } from "../process.js";
import { startReceiver } from "../webhook-receiver.js";
import { startHaCluster, type HaCluster } from "./cluster.js";

// The failover run of test/availability/failover.test.ts and bench/failover.ts: feira (API and
// worker in one process) on a three-node Patroni cluster through a multi-host DATABASE_URL,
// clients sending card charges with Idempotency-Keys and retrying 503s and 409s under the same
// key, webhook deliveries to a local receiver, and the primary's postmaster killed (kill -9) in
// the middle. What it reports is what a client saw and what the new primary holds.

export interface FailoverResult {
  charges: number;
  /** Answers by status over the whole run, every attempt counted. */
  statuses: Record<string, number>;
  /** 503s without Retry-After (must be none). */
  without_retry_after: number;
  /** Keys acknowledged (201) whose charge the new primary lacks. */
  lost: number;
  /** Charges (and authorizations) beyond one per key. */
  duplicated: number;
  /** Charge events never delivered, and those created after the new primary took over that were. */
  undelivered: number;
  delivered_after_failover: number;
  /** From the kill to the first 201 of a request sent after it, in ms. */
  window_ms: number;
  /** From the kill to PostgreSQL taking writes on another node, in ms. */
  promotion_ms: number;
  killed: string;
  promoted: string;
  feiraOutput: string;
  clusterLogs: string;
}

interface Attempt { status: number | null; sentAt: number; answeredAt: number; retryAfter: string | null }

export async function runFailover(opts: {
  charges?: number; clients?: number; killAfter?: number; log?: (line: string) => void;
  /** Kill the primary's Patroni with its postmaster: the whole host lost. */
  host?: boolean;
} = {}): Promise<FailoverResult> {
  const total = opts.charges ?? 120;
  const clients = opts.clients ?? 6;
  const killAfter = opts.killAfter ?? Math.floor(total / 3);
  const log = opts.log ?? (() => undefined);
  const cluster = await startHaCluster({ ttl: 10 });
  let feira: FeiraProcess | undefined;
  const receiver = await startReceiver();
  try {
    const first = await cluster.primary();
    const admin = new pg.Client({ connectionString: singleHost(cluster, first?.name) });
    await admin.connect();
    await admin.query("create database feira");
    await admin.end();
    const adminKey = `adm_${randomBytes(16).toString("hex")}`;
    const store: Store = {
      onPostgres: true, adminKey,
      env: {
        ENCRYPTION_KEY: randomBytes(32).toString("base64"), JWT_SECRET: randomBytes(32).toString("hex"), ADMIN_API_KEY: adminKey,
        DATABASE_URL: cluster.url("feira"), IDEMPOTENCY_LEASE_MS: "30000",
      },
      inspect: () => { throw new Error("not used"); }, release: async () => {}, close: async () => {},
    };
    feira = await startFeira(store);
    const p = feira;
    log(`feira on ${cluster.url("feira")}`);
    const merchant = await createMerchant(p, store);
    const auth = { authorization: basicAuth(merchant.sandboxKey), "content-type": "application/json" };
    const endpoint = await fetch(`${p.url}/v1/webhook-endpoints`, { method: "POST", headers: auth, body: JSON.stringify({ url: receiver.url }) });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint: ${endpoint.status} ${await endpoint.text()}`);

    const attempts: Attempt[] = [];
    const acked = new Map<string, string>();
    let next = 0;
    let killedAt = 0;
    let killing: Promise<void> | undefined;
    let promotedAt = 0;
    let killed = "";
    let promoted = "";
    const client = async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        if (i === killAfter) {
          killing = (async () => {
            const old = await cluster.killPrimary({ host: opts.host });
            killedAt = Date.now();
            killed = old.name;
            log(`killed the postmaster of ${old.name}`);
            const now = await cluster.newPrimary(old);
            promotedAt = Date.now();
            promoted = now.name;
            log(`${now.name} took writes after ${promotedAt - killedAt} ms`);
          })();
        }
        const key = randomUUID();
        for (;;) {
          const sentAt = Date.now();
          let status: number | null = null;
          let retryAfter: string | null = null;
          let body: { id?: string } = {};
          try {
            const res = await fetch(`${p.url}/v1/charges`, { method: "POST", headers: { ...auth, "idempotency-key": key }, body: JSON.stringify(cardCharge(CARDS.visa)) });
            status = res.status;
            retryAfter = res.headers.get("retry-after");
            body = (await res.json()) as { id?: string };
          } catch { /* the connection broke: retried */ }
          attempts.push({ status, sentAt, answeredAt: Date.now(), retryAfter });
          if (status === 201 && body.id) { acked.set(key, body.id); break; }
          if (status !== null && status !== 503 && status !== 409) break; // recorded, not retried
          await sleep(200);
        }
      }
    };
    await Promise.all(Array.from({ length: clients }, client));
    await killing;

    const statuses: Record<string, number> = {};
    for (const a of attempts) statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
    const firstAfter = attempts.filter((a) => a.sentAt > killedAt && a.status === 201).sort((a, b) => a.answeredAt - b.answeredAt)[0];

    // What the new primary holds, and what the receiver got.
    const db = new pg.Client({ connectionString: singleHost(cluster, promoted, "feira") });
    await db.connect();
    const charges = (await db.query<{ id: string; created_at: Date }>("select id, created_at from charges")).rows;
    const [auths] = (await db.query<{ n: number }>("select count(*)::int as n from sandbox_processor_records where operation = 'authorize'")).rows;
    const ids = new Set(charges.map((c) => c.id));
    const events = (await db.query<{ id: string; late: boolean }>(
      "select id, created_at > to_timestamp($1::float8 / 1000) as late from events where type like 'charge.%'", [promotedAt],
    )).rows;
    // Deliveries resume on the new primary: every charge event reaches the receiver.
    const deadline = Date.now() + 60_000;
    const got = () => new Set(receiver.requests.map((r) => (JSON.parse(r.body) as { id?: string }).id));
    while (events.some((e) => !got().has(e.id)) && Date.now() < deadline) await sleep(100);
    await db.end();
    const received = got();
    return {
      charges: total, statuses,
      without_retry_after: attempts.filter((a) => a.status === 503 && !a.retryAfter).length,
      lost: [...acked.values()].filter((id) => !ids.has(id)).length,
      duplicated: Math.max(0, charges.length - acked.size) + Math.max(0, (auths?.n ?? 0) - charges.length),
      undelivered: events.filter((e) => !received.has(e.id)).length,
      delivered_after_failover: events.filter((e) => e.late && received.has(e.id)).length,
      window_ms: firstAfter ? firstAfter.answeredAt - killedAt : -1,
      promotion_ms: promotedAt - killedAt,
      killed, promoted,
      feiraOutput: p.output(), clusterLogs: cluster.logs(),
    };
  } finally {
    await feira?.kill();
    await receiver.close();
    await cluster.stop();
  }
}

/** A one-host URL to the primary (or the named node), for the set-up and the checks. */
function singleHost(cluster: HaCluster, name?: string, database = "postgres"): string {
  const n = cluster.nodes.find((x) => x.name === (name ?? cluster.nodes[0]!.name))!;
  return `postgres://postgres:postgres@127.0.0.1:${n.port}/${database}`;
}
