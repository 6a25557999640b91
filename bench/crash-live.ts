// The crash run against a live processor: feira with production keys and PAYMENT_PROCESSOR
// pointing to a local fake of Pagar.me or Mercado Pago that runs as its own process (real HTTP,
// with latency, so that kills land between the provider's answer and feira's commit). Clients
// send card charges and Pix with Idempotency-Keys and retry through kill -9 of feira, while the
// fake drops answers, breaks after doing the work, answers 500 and answers too late. Then the
// fake settles the Pix as payers would, feira is killed once more (its webhooks are lost) and
// the reconciliation must catch up. Checked against the fake's own records and the database:
// every key is one charge, every charge at most one provider payment (0 duplicates), every
// provider payment a feira charge (0 lost), no charge left open that the provider settled
// (0 stuck).
//
//   npm run test:crash -- --live pagarme        (or mercadopago; the options of bench/crash.ts)
import { queryRows, sql } from "../src/db/client.js";
import { createMerchant, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../test/helpers/feira-process.js";
import { basicAuth, freePort } from "../test/helpers/process.js";
import { chargeBody, feiraFate, startFakeProcess, type ChargeKind, type FakeProcess, type LiveProcessor } from "./crash-live-fake.js";
import { driveLoad, prng } from "./crash-load.js";

export interface LiveCrashOptions {
  processor: LiveProcessor;
  charges: number;
  kills: number;
  clients: number;
  seed: number;
  /** The fake's latency on every answer, after the work is done (default 60 ms). */
  latencyMs?: number;
  /** The share of attempts before which a fault is armed at the fake, for its next creation (default 0.05). */
  faultRate?: number;
  /** Pix made before the load and left unpaid: older open charges than any other (default 60). */
  backlog?: number;
  /** At each kill the fake forgets its idempotency keys, as a retry days later would find them. */
  expireProviderKeys?: boolean;
  log?: (line: string) => void;
}

export interface LiveCrashReport {
  engine: string;
  processor: LiveProcessor;
  seed: number;
  charges: number;
  backlog: number;
  acknowledged: number;
  kills: { api: number; worker: number };
  plannedKills: number;
  killsAfterLoad: number;
  expireProviderKeys: boolean;
  clientRetries: number;
  /** Faults the fake applied, by mode ("late-answer": after PROCESSOR_TIMEOUT_MS, the work done). */
  faults: Record<string, number>;
  durationSeconds: number;
  /** From the end of the load (and the Pix settled at the fake) until nothing was stuck. */
  settleSeconds: number;
  feiraCharges: number;
  byStatus: Record<string, number>;
  /** Keys whose replay answered another charge (or no charge). */
  keysRemapped: number;
  lost: number;
  duplicatedCharges: number;
  providerPayments: number;
  duplicateProviderPayments: number;
  lostProviderPayments: number;
  stuck: number;
  mismatched: number;
  /** Open charges with no payment at the provider (a 500 that made nothing): reported, not a violation. */
  openWithoutPayment: number;
  wrongProcessor: number;
  stuckKeys: number;
  ledgerSum: number;
  unbalancedTransactions: number;
}

const PROCESSOR_TIMEOUT_MS = 1000;
const FAULTS = ["lost-answer", "500-after-work", "500", "late-answer"] as const;

/** Card approved, card declined or Pix, in a fixed mix (5:1:2). */
const kindOf = (i: number): ChargeKind => (i % 8 < 5 ? "approved" : i % 8 === 5 ? "declined" : "pix");

export async function runLiveCrash(opts: LiveCrashOptions): Promise<LiveCrashReport> {
  const log = opts.log ?? (() => undefined);
  const random = prng(opts.seed);
  const faultRandom = prng(opts.seed ^ 0x5bd1e995);
  const latencyMs = opts.latencyMs ?? 60;
  const backlogSize = opts.backlog ?? 60;
  const faultRate = opts.faultRate ?? 0.05;
  const store: Store = await makeStore();
  const apiPort = await freePort();
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const started = Date.now();
  let fake: FakeProcess | undefined;
  let api: FeiraProcess | undefined;
  let worker: FeiraProcess | undefined;
  try {
    fake = await startFakeProcess(opts.processor, apiUrl, latencyMs);
    const f = fake;
    // A short lease: a dead process's claims are taken over within 1.5 s; reconciliation every second.
    const env = {
      IDEMPOTENCY_LEASE_MS: "1500", PROCESSOR_TIMEOUT_MS: String(PROCESSOR_TIMEOUT_MS), PROCESSOR_RECONCILE_INTERVAL_MS: "1000", ...f.feiraEnv,
    };
    const split = store.onPostgres;
    const startApi = () => startFeira(store, { role: split ? "api" : undefined, env, port: apiPort });
    const startWorker = () => startFeira(store, { role: "worker", env });
    api = await startApi();
    if (split) worker = await startWorker();
    const { productionKey: key } = await createMerchant(api, store);
    log(`feira started with PAYMENT_PROCESSOR=${opts.processor}`);
    const amount = (i: number) => 10 + (i % 50) + 0.25;
    const body = (i: number) => chargeBody(opts.processor, kindOf(i), amount(i));
    const send = (b: unknown, idem: string) => postJson(`${apiUrl}/v1/charges`, key, b, { "idempotency-key": idem });

    // The backlog: open Pix older than the load, as a deployment has (payers who have not paid yet).
    const backlog = new Map<string, { id: string; body: unknown }>();
    const pix = chargeBody(opts.processor, "pix", 12.5);
    await Promise.all(Array.from({ length: 8 }, async (_, c) => {
      for (let n = c; n < backlogSize; n += 8) {
        const idem = `backlog-${opts.seed}-${n}`;
        const answer = await send(pix, idem);
        if (answer?.status !== 201) throw new Error(`backlog Pix: ${JSON.stringify(answer)}`);
        backlog.set(idem, { id: String(answer.body.id), body: pix });
      }
    }));

    log(`backlog: ${backlog.size} open Pix`);
    // Faults while the load runs, each on the fake's next creation only (a fault armed before
    // the last one was used replaces it). "late-answer" makes the payment and answers after
    // feira stopped waiting. One at a time, so a run of five failures (the breaker) is rare.
    const arm = async () => {
      const mode = FAULTS[Math.floor(faultRandom() * FAULTS.length)]!;
      await f.control("/__fake/fault", { mode, times: 1, match: f.createRoute, ...(mode === "late-answer" ? { forMs: PROCESSOR_TIMEOUT_MS + 500 } : {}) });
    };

    const kill = async (target: "api" | "worker") => {
      if (target === "worker") {
        await worker!.kill();
        worker = await startWorker();
      } else {
        await api!.kill();
        if (opts.expireProviderKeys) await f.control("/__fake/expire-idempotency-keys", {});
        api = await startApi();
      }
      return target;
    };
    // The first creation of the load always meets a fault, so that every run, whatever its seed,
    // has at least one (at 8 %, one run in 800 drew none for 80 charges, and proved nothing).
    let armed = false;
    const load = await driveLoad({
      charges: opts.charges, kills: opts.kills, clients: opts.clients, random, log,
      async send(i, idem) {
        if (faultRandom() < faultRate || !armed) {
          armed = true;
          await arm();
        }
        return send(body(i), idem);
      },
      kill: () => kill(split && random() < 0.5 ? "worker" : "api"),
    });
    await f.control("/__fake/fault", { mode: "none" });
    if (load.failures.length > 0) throw new Error(`clients got unexpected answers: ${load.failures.slice(0, 3).join("; ")}`);

    // Every key, sent again, answers the charge it was acknowledged with.
    const everyKey = [
      ...[...load.acked].map(([idem, a]) => ({ idem, id: a.id, body: body(a.i) })),
      ...[...backlog].map(([idem, b]) => ({ idem, id: b.id, body: b.body })),
    ];
    let keysRemapped = 0;
    for (let n = 0; n < everyKey.length; n += 16) {
      await Promise.all(everyKey.slice(n, n + 16).map(async (k) => {
        const again = await send(k.body, k.idem);
        if (again?.status !== 201 || again.body.id !== k.id) keysRemapped++;
      }));
    }

    // The payers act at the fake while feira is down: half the open Pix of the load paid, a
    // quarter failed. The fake's webhooks about them are lost: reconciliation must find them.
    log(`load done, every key answered again (${keysRemapped} remapped)`);
    const settleStart = Date.now();
    await api.kill();
    await worker?.kill();
    const loadIds = new Set([...load.acked.values()].map((a) => a.id));
    for (const p of (await f.held()).payments) {
      if (!p.reference || !loadIds.has(p.reference) || f.fate(p.status) !== "open") continue;
      const r = random();
      if (r < 0.5) await f.move("pay", p.id);
      else if (r < 0.75) await f.move("fail", p.id);
    }
    await f.control("/__fake/webhooks/flush", {});
    api = await startApi();
    if (split) worker = await startWorker();
    const killsAfterLoad = split ? 2 : 1;

    // Wait until no charge is open that the fake has settled (or give up and report it).
    const seen = new Map<string, string>();
    const readStatus = async (id: string) => {
      const res = await fetch(`${apiUrl}/v1/charges/${id}`, { headers: { authorization: basicAuth(key) } }).catch(() => null);
      if (res?.status === 200) seen.set(id, String(((await res.json()) as { status: string }).status));
    };
    const deadline = Date.now() + 120_000;
    for (;;) {
      const settled = (await f.held()).payments.filter((p) => p.reference && f.fate(p.status) !== "open");
      const waiting = settled.filter((p) => feiraFate(seen.get(p.reference!) ?? "pending") === "open").map((p) => p.reference!);
      for (let n = 0; n < waiting.length; n += 16) await Promise.all(waiting.slice(n, n + 16).map(readStatus));
      const still = waiting.filter((id) => feiraFate(seen.get(id) ?? "pending") === "open");
      if (still.length === 0 || Date.now() > deadline) break;
      await sleep(250);
    }
    log("settled");
    const settleSeconds = Math.round((Date.now() - settleStart) / 100) / 10;
    const durationSeconds = Math.round((Date.now() - started) / 100) / 10;
    await worker?.stop();
    await api?.stop();
    worker = api = undefined;
    const held = await f.held();

    const db = (await store.inspect()).db;
    const rows = await queryRows<{ id: string; status: string; processor: string }>(db, sql`
      select id, status, processor from charges where environment = 'production'`);
    const [c] = await queryRows<Record<string, number>>(db, sql`select
      (select count(*)::int from idempotency_keys where state <> 'done') as stuck,
      (select coalesce(sum(amount), 0)::bigint from ledger_entries) as ledger_sum,
      (select count(*)::int from (select transaction_id from ledger_entries group by transaction_id having sum(amount) <> 0) u) as unbalanced`);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const paymentsOf = new Map<string, string[]>();
    for (const p of held.payments) if (p.reference) paymentsOf.set(p.reference, [...(paymentsOf.get(p.reference) ?? []), p.status]);
    const ackedIds = new Set(everyKey.map((k) => k.id));
    const byStatus: Record<string, number> = {};
    for (const r of rows) byStatus[r.status] = (byStatus[r.status] ?? 0) + 1;
    const fateAt = (r: { id: string }) => f.fate(paymentsOf.get(r.id)?.[0] ?? "none");
    return {
      engine: store.onPostgres ? "PostgreSQL (1 API + 1 worker process)" : "PGlite (one process: API and worker)",
      processor: opts.processor,
      seed: opts.seed,
      charges: opts.charges,
      backlog: backlog.size,
      acknowledged: load.acked.size,
      kills: { api: load.kills.api ?? 0, worker: load.kills.worker ?? 0 },
      plannedKills: opts.kills,
      killsAfterLoad,
      expireProviderKeys: Boolean(opts.expireProviderKeys),
      clientRetries: load.retries,
      faults: held.faults,
      durationSeconds,
      settleSeconds,
      feiraCharges: rows.length,
      byStatus,
      keysRemapped,
      lost: [...ackedIds].filter((id) => !byId.has(id)).length,
      duplicatedCharges: rows.length - ackedIds.size,
      providerPayments: held.payments.length,
      duplicateProviderPayments: [...paymentsOf.values()].reduce((n, list) => n + list.length - 1, 0),
      lostProviderPayments: held.payments.filter((p) => !p.reference || !byId.has(p.reference)).length,
      stuck: rows.filter((r) => feiraFate(r.status) === "open" && paymentsOf.has(r.id) && fateAt(r) !== "open").length,
      mismatched: rows.filter((r) => feiraFate(r.status) !== "open" && paymentsOf.has(r.id) && fateAt(r) !== feiraFate(r.status)).length,
      openWithoutPayment: rows.filter((r) => feiraFate(r.status) === "open" && !paymentsOf.has(r.id)).length,
      wrongProcessor: rows.filter((r) => paymentsOf.has(r.id) && r.processor !== opts.processor).length,
      stuckKeys: Number(c!.stuck),
      ledgerSum: Number(c!.ledger_sum),
      unbalancedTransactions: Number(c!.unbalanced),
    };
  } finally {
    await worker?.kill();
    await api?.kill();
    await fake?.stop();
    await store.close();
  }
}

/** The failures of a report: empty when every guarantee held. */
export function liveViolations(r: LiveCrashReport): string[] {
  const out: string[] = [];
  if (r.acknowledged !== r.charges) out.push(`${r.charges - r.acknowledged} charges never acknowledged`);
  if (r.kills.api + r.kills.worker < r.plannedKills) out.push(`only ${r.kills.api + r.kills.worker} of ${r.plannedKills} kills happened during the load`);
  for (const k of [
    "keysRemapped", "lost", "duplicatedCharges", "duplicateProviderPayments", "lostProviderPayments", "stuck", "mismatched",
    "wrongProcessor", "stuckKeys", "ledgerSum", "unbalancedTransactions",
  ] as const) {
    if (r[k] !== 0) out.push(`${k} = ${r[k]}`);
  }
  return out;
}
