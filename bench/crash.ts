// Crash test: clients send charges with Idempotency-Keys and retry until they get an answer,
// while the API and the worker processes are killed with SIGKILL at random moments and
// started again. Then everything is checked against the database and a webhook receiver:
// no acknowledged charge lost, no charge or authorization duplicated, no key left stuck,
// every charge.paid delivered at least once, the ledger summing to zero.
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npm run test:crash
//
// Options (environment): CRASH_CHARGES (default 10000), CRASH_KILLS (default 24),
// CRASH_CLIENTS (default 16), CRASH_SEED (default: random; printed). `--live pagarme` or
// `--live mercadopago` (or CRASH_LIVE) runs the same load with production keys against a fake
// of that processor instead (bench/crash-live.ts; CRASH_EXPIRE_PROVIDER_KEYS=true makes the
// fake forget its idempotency keys at every kill; CRASH_BACKLOG, CRASH_LATENCY_MS and
// CRASH_FAULT_RATE set the options of that name). On PostgreSQL the API
// and the worker run as two processes, each killed in turn; on the embedded database they are
// one process (it admits one). A scratch database is made and dropped.
import { queryRows, sql } from "../src/db/client.js";
import { freePort } from "../test/helpers/process.js";
import { createMerchant, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../test/helpers/feira-process.js";
import { startReceiver } from "../test/helpers/webhook-receiver.js";
import { driveLoad, prng } from "./crash-load.js";
import { LIVE_PROCESSORS, type LiveProcessor } from "./crash-live-fake.js";
import { liveViolations, runLiveCrash } from "./crash-live.js";

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

    const body = (i: number) => ({
      amount: 10 + (i % 50), currency: "BRL", customer: { name: "Crash Cliente", email: `c${i % 97}@example.com` },
      paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "CRASH", expirationMonth: "12", expirationYear: "2031", cvv: "123", installments: 1 },
    });
    // The killer SIGKILLs the API or the worker and starts it again.
    const load = await driveLoad({
      charges: opts.charges, kills: opts.kills, clients: opts.clients, random, log,
      send: (i, key) => postJson(`http://127.0.0.1:${apiPort}/v1/charges`, merchant.sandboxKey, body(i), { "idempotency-key": key }),
      async kill() {
        const target = split && random() < 0.5 ? "worker" : "api";
        if (target === "worker") {
          await worker!.kill();
          worker = await startWorker();
        } else {
          await api!.kill();
          api = await startApi();
        }
        return target;
      },
    });
    const { failures, retries } = load;
    const acked = new Map([...load.acked].map(([key, a]) => [key, a.id]));
    const kills = { api: load.kills.api ?? 0, worker: load.kills.worker ?? 0 };
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

const numberOr = (v: string | undefined) => (v === undefined ? undefined : Number(v));

if (import.meta.url === `file://${process.argv[1]}`) {
  const seed = Number(process.env.CRASH_SEED ?? Math.floor(Math.random() * 2 ** 31));
  const began = Date.now();
  const flag = process.argv.indexOf("--live");
  const live = flag >= 0 ? process.argv[flag + 1] : process.env.CRASH_LIVE;
  if (live !== undefined && !LIVE_PROCESSORS.includes(live as LiveProcessor)) {
    console.error(`--live (or CRASH_LIVE) must be one of ${LIVE_PROCESSORS.join(", ")}`);
    process.exit(2);
  }
  const opts = {
    charges: Number(process.env.CRASH_CHARGES ?? 10_000),
    kills: Number(process.env.CRASH_KILLS ?? 24),
    clients: Number(process.env.CRASH_CLIENTS ?? 16),
    seed,
    log: (line: string) => console.log(`${((Date.now() - began) / 1000).toFixed(1)} s: ${line}`),
  };
  console.log(`crash run${live ? ` against the ${live} fake` : ""}: ${opts.charges} charges, ${opts.kills} kills, ${opts.clients} clients, seed ${seed}`);
  const run: Promise<{ report: object; bad: string[] }> = live
    ? runLiveCrash({
      ...opts, processor: live as LiveProcessor, expireProviderKeys: process.env.CRASH_EXPIRE_PROVIDER_KEYS === "true",
      backlog: numberOr(process.env.CRASH_BACKLOG), latencyMs: numberOr(process.env.CRASH_LATENCY_MS), faultRate: numberOr(process.env.CRASH_FAULT_RATE),
    })
      .then((report) => ({ report, bad: liveViolations(report) }))
    : runCrash(opts).then((report) => ({ report, bad: violations(report) }));
  run.then(({ report, bad }) => {
    console.log(JSON.stringify(report, null, 2));
    console.log(bad.length === 0 ? "every guarantee held" : `VIOLATED: ${bad.join("; ")}`);
    process.exit(bad.length === 0 ? 0 : 1);
  }, (err) => {
    console.error(err);
    process.exit(1);
  });
}
