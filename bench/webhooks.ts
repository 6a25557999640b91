// Webhook delivery throughput: events delivered per second by one and by two worker processes
// (`src/main.ts worker`) on PostgreSQL, to a local receiver that answers 200 at once (or after
// a delay), each round next to its ceiling measured just before it in the same run, and what
// one delivery costs in CPU in each process that does work for it (worker, PostgreSQL
// backends, receiver).
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/webhooks.ts
//
// Options (environment): BENCH_EVENTS (default 10000), BENCH_WORKERS (default "1,2"),
// BENCH_REPEAT (rounds per worker count, default 1; the rounds alternate 1, 2, 1, 2 and the
// median is printed), BENCH_WARMUP (deliveries before the measured ones, default 0),
// BENCH_WINDOW_FROM (where the CPU window starts, default 0.1 of the measured deliveries),
// BENCH_RECEIVER_DELAY_MS (the receiver answers after this long, default 0: at once),
// BENCH_WORKER_NODE_ARGS (extra node flags for the workers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p"),
// WEBHOOK_CONCURRENCY (the workers' slots, passed to them as it is; default 128).
// BENCH_COMPILED=1 runs the workers from the build (`node dist/main.js worker`, after `npm run
// build`) as docs/deploy.md runs production; the workers take the rest of the environment as it
// is (DATABASE_POOL_MODE=transaction with DATABASE_URL through a pooler: the pooled run).
// It creates a scratch database next to DATABASE_URL's and drops it at the end. The rate is
// measured from the first (or the BENCH_WARMUP-th) to the last delivery of a round, so process
// start-up is excluded.
//
// Per process and per delivery it prints CPU time (user and kernel) and context switches
// (voluntary: waits; forced: preempted), each worker's share, the workers' cost in each tenth
// of the round (their warm-up), and how many cores the whole machine and these processes kept
// busy: on a shared machine, whether a rate was bound by the cores.
//
// The ceiling: a sender process (this file with BENCH_ROLE=sender) POSTs the same number of
// signed bodies of the same size to the same receiver over 32 keep-alive connections, with no
// database. On a machine shared by everything, it says how fast sender + receiver can go at
// all; the CPU figures say where the rest goes.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";

const ROOT = path.resolve(import.meta.dirname, "..");
const EVENTS = Number(process.env.BENCH_EVENTS ?? 10000);
const CONNECTIONS = 32;
const SAMPLE_BODY = JSON.stringify({
  id: "evt_0000000000000000000000", event: "charge.paid", livemode: false,
  data: { id: "ch_0", status: "paid", amount: 1000, currency: "BRL", net: 950, paid_at: new Date().toISOString() },
});

if (process.env.BENCH_ROLE === "sender") {
  // The ceiling's sender: BENCH_TARGET, BENCH_EVENTS requests, then prints nothing (the
  // receiver times them).
  const { signWebhook } = await import("../src/modules/webhooks/signing.js");
  const target = new URL(process.env.BENCH_TARGET!);
  const pool = new Pool(target.origin, { connections: CONNECTIONS });
  const secret = `whsec_${randomBytes(32).toString("base64")}`;
  let next = 0;
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (next < EVENTS) {
      const id = `ceil_${next++}`;
      const ts = Math.floor(Date.now() / 1000);
      const res = await pool.request({
        method: "POST", path: target.pathname, body: SAMPLE_BODY,
        headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signWebhook(secret, id, ts, SAMPLE_BODY) },
      });
      await res.body.dump();
    }
  }));
  await pool.close();
  process.exit(0);
}

const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log("bench/webhooks.ts needs DATABASE_URL (a PostgreSQL server): skipped.");
  process.exit(0);
}
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
// A receiver that answers after this many milliseconds, as merchants' endpoints do (tens of
// ms), instead of at once: a worker is then bound by its in-flight slots, not by the CPU.
const RECEIVER_DELAY_MS = Number(process.env.BENCH_RECEIVER_DELAY_MS ?? 0);
/**
 * The workers' in-flight slots, for the bound under a delayed receiver: WEBHOOK_CONCURRENCY,
 * which the workers read from this environment too (config.ts's default when unset).
 */
const WORKER_SLOTS = Number(process.env.WEBHOOK_CONCURRENCY || 128);
// Where the CPU window starts, as a fraction of the deliveries (default 0.1: start-up and a
// worker's first deliveries, run before V8 has optimised the code, are left out).
const WINDOW_FROM = Number(process.env.BENCH_WINDOW_FROM ?? 0.1);
// Deliveries each round makes before it starts measuring (default 0: from the first one). A
// worker process costs two to three times as much per delivery over its first few thousand
// deliveries (V8 has not optimised the code yet), so with a short round and two workers, each
// delivering half, that warm-up is a large part of the figures; long-running workers never pay it.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 0);
// Extra node flags for the worker processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
const { webhookBench, WORKER_APP_NAME } = await import("./webhook-bench.js");

/** What a process has used, from /proc: CPU seconds in user and kernel mode, context switches. */
interface Usage { user: number; sys: number; voluntary: number; involuntary: number }
const TICK = 100; // USER_HZ on Linux
const NONE: Usage = { user: 0, sys: 0, voluntary: 0, involuntary: 0 };
function usageOf(pid: number): Usage {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const count = (name: string) => Number(new RegExp(`^${name}:\\s*(\\d+)`, "m").exec(status)?.[1] ?? 0);
    return { user: Number(fields[11]) / TICK, sys: Number(fields[12]) / TICK, voluntary: count("voluntary_ctxt_switches"), involuntary: count("nonvoluntary_ctxt_switches") };
  } catch {
    return NONE; // gone
  }
}
const plus = (a: Usage, b: Usage): Usage => ({ user: a.user + b.user, sys: a.sys + b.sys, voluntary: a.voluntary + b.voluntary, involuntary: a.involuntary + b.involuntary });
const minus = (a: Usage, b: Usage): Usage => ({ user: a.user - b.user, sys: a.sys - b.sys, voluntary: a.voluntary - b.voluntary, involuntary: a.involuntary - b.involuntary });

// ---- A receiver that counts distinct webhook-ids and when they arrived.
const seen = new Set<string>();
let duplicates = 0;
let firstAt = 0;
let lastAt = 0;
let onArrival: ((count: number) => void) | undefined;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const id = String(req.headers["webhook-id"]);
    if (seen.has(id)) duplicates++;
    seen.add(id);
    const now = performance.now();
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    onArrival?.(seen.size);
    const answer = () => res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    if (RECEIVER_DELAY_MS > 0) setTimeout(answer, RECEIVER_DELAY_MS);
    else answer();
  });
});
server.listen(0, "127.0.0.1");
await once(server, "listening");
const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

function resetReceiver(): void {
  seen.clear();
  duplicates = 0;
  firstAt = 0;
  lastAt = 0;
}

/** Resolves when `count` distinct ids have arrived (or fails after 10 minutes). */
function arrived(count: number, also?: (n: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${seen.size} of ${count} delivered`)), 600_000);
    onArrival = (n) => {
      also?.(n);
      if (n >= count) {
        clearTimeout(timer);
        onArrival = undefined;
        resolve();
      }
    };
  });
}

async function ceiling(): Promise<number> {
  resetReceiver();
  const done = arrived(EVENTS);
  const child = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url)], {
    cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, BENCH_ROLE: "sender", BENCH_TARGET: receiverUrl, BENCH_EVENTS: String(EVENTS) },
  });
  await done;
  await once(child, "exit");
  return Math.round(EVENTS / ((lastAt - firstAt) / 1000));
}

const bench = await webhookBench(baseUrl, receiverUrl);

/** Busy and total CPU time of the whole machine (all cores), from /proc/stat, in seconds. */
function machineCpu(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/);
  const n = ticks.slice(0, 8).map(Number); // user nice system idle iowait irq softirq steal
  const total = n.reduce((x, y) => x + y, 0);
  return { busy: (total - n[3]! - n[4]!) / TICK, total: total / TICK };
}

/** What every process doing the work has used: workers, their PostgreSQL backends, the receiver. */
async function snapshot(children: ChildProcess[]) {
  const { rows } = await bench.admin.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1", [WORKER_APP_NAME]);
  return {
    count: seen.size,
    at: performance.now(),
    machine: machineCpu(),
    workers: children.map((c) => usageOf(c.pid!)),
    postgres: new Map(rows.map((r) => [r.pid, usageOf(r.pid)])),
    receiver: usageOf(process.pid),
  };
}

interface PerDelivery { cpuUs: number; userUs: number; sysUs: number; voluntary: number; involuntary: number }
interface Round {
  workers: number; warmup: number; receiverDelayMs: number; perSecond: number; ceiling: number;
  perDelivery: { worker: PerDelivery; postgres: PerDelivery; receiver: PerDelivery };
  /** Each worker's CPU seconds in the window, to see whether they shared the work. */
  workerCpuSeconds: number[];
  /** Cores busy on average in the window: the whole machine, and the processes above. */
  cores: { machine: number; ours: number };
  load: number[];
}
const results: Round[] = [];
try {
  // Rounds alternate between worker counts (1, 2, 1, 2, ...), so that a change in the
  // machine's load falls on both.
  for (let r = 0; r < REPEAT; r++) {
    for (const workers of WORKERS) {
      // Under a delayed receiver the ceiling is the slots' bound, workers x slots / delay.
      const ceil = RECEIVER_DELAY_MS > 0 ? Math.round((workers * WORKER_SLOTS * 1000) / RECEIVER_DELAY_MS) : await ceiling();
      resetReceiver();
      await bench.seed(WARMUP + EVENTS);
      const loadBefore = os.loadavg()[0]!;
      const children = Array.from({ length: workers }, () => bench.startWorker(WORKER_NODE_ARGS));
      // The CPU window starts after a tenth of the deliveries (start-up and the first claims
      // are not per-delivery costs) and ends at the last one, before the workers exit.
      let from: Promise<Awaited<ReturnType<typeof snapshot>>> | undefined;
      // Each tenth of the deliveries, the workers' CPU so far: how long their warm-up lasts.
      const tenths: { count: number; cpu: number }[] = [];
      let warmAt = 0;
      await arrived(WARMUP + EVENTS, (n) => {
        if (n === WARMUP) warmAt = performance.now();
        if (n === WARMUP + Math.floor(EVENTS * WINDOW_FROM)) from = snapshot(children);
        if (n >= WARMUP && (n - WARMUP) % (EVENTS / 10) === 0) tenths.push({ count: n, cpu: children.reduce((x, c) => { const u = usageOf(c.pid!); return x + u.user + u.sys; }, 0) });
      });
      const to = await snapshot(children);
      const start = (await from)!;
      const seconds = (lastAt - (WARMUP > 0 ? warmAt : firstAt)) / 1000;
      for (const c of children) c.kill("SIGTERM");
      await Promise.all(children.map((c) => once(c, "exit")));
      if (duplicates > 0) throw new Error(`${duplicates} duplicate deliveries`);
      const n = to.count - start.count;
      const workerUse = to.workers.map((u, i) => minus(u, start.workers[i]!));
      let pgUse = NONE;
      for (const [pid, u] of to.postgres) pgUse = plus(pgUse, minus(u, start.postgres.get(pid) ?? NONE));
      const receiverUse = minus(to.receiver, start.receiver);
      const per = (u: Usage): PerDelivery => ({
        cpuUs: Math.round(((u.user + u.sys) / n) * 1e6), userUs: Math.round((u.user / n) * 1e6), sysUs: Math.round((u.sys / n) * 1e6),
        voluntary: Number((u.voluntary / n).toFixed(2)), involuntary: Number((u.involuntary / n).toFixed(2)),
      });
      const cpu = (u: Usage) => u.user + u.sys;
      const windowSeconds = (to.at - start.at) / 1000;
      const ours = workerUse.reduce((x, u) => x + cpu(u), 0) + cpu(pgUse) + cpu(receiverUse);
      const round: Round = {
        workers, warmup: WARMUP, receiverDelayMs: RECEIVER_DELAY_MS, perSecond: Math.round(EVENTS / seconds), ceiling: ceil,
        perDelivery: { worker: per(workerUse.reduce(plus, NONE)), postgres: per(pgUse), receiver: per(receiverUse) },
        workerCpuSeconds: workerUse.map((u) => Number(cpu(u).toFixed(2))),
        cores: { machine: Number(((to.machine.busy - start.machine.busy) / windowSeconds).toFixed(2)), ours: Number((ours / windowSeconds).toFixed(2)) },
        load: [Number(loadBefore.toFixed(1)), Number(os.loadavg()[0]!.toFixed(1))],
      };
      results.push(round);
      const d = round.perDelivery;
      const show = (p: PerDelivery) => `${p.cpuUs} us (user ${p.userUs}, sys ${p.sysUs}; switches ${p.voluntary} + ${p.involuntary} forced)`;
      console.log(`${workers} worker(s)${RECEIVER_DELAY_MS ? `, receiver answering after ${RECEIVER_DELAY_MS} ms` : ""}: ${WARMUP ? `after ${WARMUP} to warm up, ` : ""}${EVENTS} events in ${seconds.toFixed(2)} s = ${round.perSecond} events/s; ${RECEIVER_DELAY_MS ? "slots' bound" : "ceiling"} ${ceil}/s; load ${round.load.join(" -> ")}\n` +
        `  per delivery: worker ${show(d.worker)}, postgres ${show(d.postgres)}, receiver ${show(d.receiver)}\n` +
        `  workers' CPU in the window: ${round.workerCpuSeconds.join(" + ")} s; cores busy: ${round.cores.machine} of ${os.cpus().length}, ${round.cores.ours} of them ours\n` +
        `  workers' CPU per delivery in each tenth: ${tenths.slice(1).map((t, i) => Math.round(((t.cpu - tenths[i]!.cpu) / (t.count - tenths[i]!.count)) * 1e6)).join(", ")} us`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const workers of WORKERS) {
    const mine = results.filter((r) => r.workers === workers);
    console.log(`median of ${mine.length}, ${workers} worker(s): ${median(mine.map((r) => r.perSecond))} events/s (ceiling ${median(mine.map((r) => r.ceiling))}/s), ` +
      `worker ${median(mine.map((r) => r.perDelivery.worker.cpuUs))} us, postgres ${median(mine.map((r) => r.perDelivery.postgres.cpuUs))} us per delivery`);
  }
  console.log(JSON.stringify({ cpus: os.cpus().length, node: process.version, results }));
} finally {
  await bench.close();
  server.close();
}
