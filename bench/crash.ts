// Crash test: clients send charges with Idempotency-Keys and retry until they get an answer,
// while the API and the worker processes are killed with SIGKILL at random moments and
// started again. Then everything is checked against the database and a webhook receiver:
// no acknowledged charge lost, no charge or authorization duplicated, no key left stuck,
// every charge.paid delivered at least once, the ledger summing to zero.
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npm run test:crash
//
// Options (environment): CRASH_CHARGES (default 10000), CRASH_KILLS (default 24),
// CRASH_CLIENTS (default 16), CRASH_SEED (default: random; printed). On PostgreSQL the API
// and the worker run as two processes, each killed in turn; on the embedded database they are
// one process (it admits one). A scratch database is made and dropped.
import { randomUUID } from "node:crypto";
import { queryRows, sql } from "../src/db/client.js";
import { freePort } from "../test/helpers/process.js";
import { createMerchant, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../test/helpers/feira-process.js";
import { startReceiver } from "../test/helpers/webhook-receiver.js";

export interface CrashOptions { charges: number; kills: number; clients: number; seed: number; log?: (line: string) => void }

export interface CrashReport {
  engine: string;
  seed: number;
  charges: number;
  acknowledged: number;
  kills: { api: number; worker: number };
  plannedKills: number;
  clientRetries: number;
  durationSeconds: number;
  lost: number;
  duplicatedCharges: number;
  authorizations: number;
  duplicatedAuthorizations: number;
  stuckKeys: number;
  paidCharges: number;
  paidNotDelivered: number;
  paidDeliveries: number;
  ledgerSum: number;
  unbalancedTransactions: number;
}

/** mulberry32: a small seeded PRNG, so a run's kill moments can be replayed from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export async function runCrash(opts: CrashOptions): Promise<CrashReport> {
  const log = opts.log ?? (() => undefined);
  const random = prng(opts.seed);
  const store: Store = await makeStore();
  const receiver = await startReceiver();
  const apiPort = await freePort();
  const started = Date.now();
  // A short lease: a dead process's claims are taken over within a second.
  const env = { IDEMPOTENCY_LEASE_MS: "1500" };
  const split = store.onPostgres;
  const startApi = () => startFeira(store, { role: split ? "api" : undefined, env, port: apiPort });
  const startWorker = () => startFeira(store, { role: "worker", env });
  let api: FeiraProcess | undefined;
  let worker: FeiraProcess | undefined;
  try {
    api = await startApi();
    if (split) worker = await startWorker();
    const merchant = await createMerchant(api, store);
    const endpoint = await postJson(`${api.url}/v1/webhook-endpoints`, merchant.sandboxKey, { url: receiver.url, events: ["charge.paid"] });
    if (endpoint?.status !== 201) throw new Error(`endpoint: ${JSON.stringify(endpoint)}`);

    const acked = new Map<string, string>(); // idempotency key -> charge id
    // Kill k falls when the k-th slice of the load is reached (at a random point of it). Clients
    // may run only a little ahead of the next kill, so every kill lands while charges are in
    // flight, however long the restarts take.
    const thresholds = Array.from({ length: opts.kills }, (_, k) => Math.floor(((k + random()) / opts.kills) * opts.charges * 0.85));
    let killsDone = 0;
    const gate = () => (killsDone >= opts.kills ? Infinity : thresholds[killsDone]! + opts.clients * 4);
    let next = 0;
    let retries = 0;
    const failures: string[] = [];
    const client = async () => {
      for (;;) {
        while (next >= gate() && next < opts.charges) await sleep(5);
        const i = next++;
        if (i >= opts.charges) return;
        const key = randomUUID();
        const body = {
          amount: 10 + (i % 50), currency: "BRL", customer: { name: "Crash Cliente", email: `c${i % 97}@example.com` },
          paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "CRASH", expirationMonth: "12", expirationYear: "2031", cvv: "123", installments: 1 },
        };
        for (let attempt = 0; ; attempt++) {
          const answer = await postJson(`http://127.0.0.1:${apiPort}/v1/charges`, merchant.sandboxKey, body, { "idempotency-key": key });
          if (answer && answer.status === 201) {
            acked.set(key, String(answer.body.id));
            break;
          }
          if (answer && answer.status !== 409 && answer.status < 500) {
            failures.push(`${answer.status} ${JSON.stringify(answer.body)}`);
            break;
          }
          retries++;
          await sleep(Math.min(50 * 2 ** Math.min(attempt, 5), 1000));
        }
      }
    };

    // The killer: SIGKILLs the API or the worker at each threshold and starts it again.
    const kills = { api: 0, worker: 0 };
    let stopKilling = false;
    const killer = (async () => {
      for (let k = 0; k < opts.kills && !stopKilling; k++) {
        while (acked.size < thresholds[k]! && !stopKilling) await sleep(5);
        await sleep(random() * 50);
        if (stopKilling) break;
        const target = split && random() < 0.5 ? "worker" : "api";
        if (target === "worker") {
          await worker!.kill();
          kills.worker++;
          worker = await startWorker();
        } else {
          await api!.kill();
          kills.api++;
          api = await startApi();
        }
        killsDone++;
        log(`kill ${kills.api + kills.worker}: ${target}; ${acked.size}/${opts.charges} acknowledged`);
      }
    })();
    await Promise.all(Array.from({ length: opts.clients }, client));
    // A kill planned after the load ended would prove nothing; violations() reports it.
    stopKilling = true;
    await killer;
    if (failures.length > 0) throw new Error(`clients got unexpected answers: ${failures.slice(0, 3).join("; ")}`);

    // Let the worker deliver everything that is due, then look.
    const paidCharges = acked.size;
    const deadline = Date.now() + 120_000;
    const delivered = () => new Set(receiver.requests.map((r) => (JSON.parse(r.body) as { data: { id: string } }).data.id));
    while (delivered().size < paidCharges && Date.now() < deadline) await sleep(200);
    const durationSeconds = Math.round((Date.now() - started) / 100) / 10;
    await worker?.stop();
    await api?.stop();
    worker = api = undefined;

    const db = (await store.inspect()).db;
    const [c] = await queryRows<Record<string, number>>(db, sql`select
      (select count(*)::int from charges) as charges,
      (select count(*)::int from charges where status = 'paid') as paid,
      (select count(*)::int from sandbox_processor_records where operation = 'authorize') as authorizations,
      (select count(*)::int from sandbox_processor_records r where operation = 'authorize'
         and not exists (select 1 from charges c where 'authorize:' || c.id = r.key)) as orphan_authorizations,
      (select count(*)::int from idempotency_keys where state <> 'done') as stuck,
      (select coalesce(sum(amount), 0)::bigint from ledger_entries) as ledger_sum,
      (select count(*)::int from (select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0) u) as unbalanced`);
    const ids = new Set((await queryRows<{ id: string }>(db, sql`select id from charges`)).map((r) => r.id));
    const paidIds = (await queryRows<{ id: string }>(db, sql`select id from charges where status = 'paid'`)).map((r) => r.id);
    const got = delivered();
    const report: CrashReport = {
      engine: store.onPostgres ? "PostgreSQL (1 API + 1 worker process)" : "PGlite (one process: API and worker)",
      seed: opts.seed,
      charges: opts.charges,
      acknowledged: acked.size,
      kills,
      plannedKills: opts.kills,
      clientRetries: retries,
      durationSeconds,
      lost: [...acked.values()].filter((id) => !ids.has(id)).length,
      duplicatedCharges: Number(c!.charges) - new Set(acked.values()).size,
      authorizations: Number(c!.authorizations),
      duplicatedAuthorizations: Number(c!.authorizations) - Number(c!.charges) + Number(c!.orphan_authorizations),
      stuckKeys: Number(c!.stuck),
      paidCharges: Number(c!.paid),
      paidNotDelivered: paidIds.filter((id) => !got.has(id)).length,
      paidDeliveries: receiver.requests.length,
      ledgerSum: Number(c!.ledger_sum),
      unbalancedTransactions: Number(c!.unbalanced),
    };
    return report;
  } finally {
    await worker?.kill();
    await api?.kill();
    await receiver.close();
    await store.close();
  }
}

/** The failures of a report: empty when every guarantee held. */
export function violations(r: CrashReport): string[] {
  const out: string[] = [];
  if (r.acknowledged !== r.charges) out.push(`${r.charges - r.acknowledged} charges never acknowledged`);
  if (r.kills.api + r.kills.worker < r.plannedKills) out.push(`only ${r.kills.api + r.kills.worker} of ${r.plannedKills} kills happened during the load`);
  for (const k of ["lost", "duplicatedCharges", "duplicatedAuthorizations", "stuckKeys", "paidNotDelivered", "ledgerSum", "unbalancedTransactions"] as const) {
    if (r[k] !== 0) out.push(`${k} = ${r[k]}`);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const opts = {
    charges: Number(process.env.CRASH_CHARGES ?? 10_000),
    kills: Number(process.env.CRASH_KILLS ?? 24),
    clients: Number(process.env.CRASH_CLIENTS ?? 16),
    seed,
    log: (line: string) => console.log(line),
  };
  console.log(`crash run: ${opts.charges} charges, ${opts.kills} kills, ${opts.clients} clients, seed ${seed}`);
  runCrash(opts).then((report) => {
    console.log(JSON.stringify(report, null, 2));
    const bad = violations(report);
    console.log(bad.length === 0 ? "every guarantee held" : `VIOLATED: ${bad.join("; ")}`);
    process.exit(bad.length === 0 ? 0 : 1);
  }, (err) => {
    console.error(err);
    process.exit(1);
  });
}
