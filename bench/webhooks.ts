// Webhook delivery throughput: events delivered per second by one and by two worker processes
// (`src/main.ts worker`) on PostgreSQL, to a local receiver that answers 200 at once, each
// round next to its ceiling measured just before it in the same run, and what one delivery
// costs in CPU in each process that does work for it (worker, PostgreSQL backends, receiver).
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/webhooks.ts
//
// Options (environment): BENCH_EVENTS (default 10000), BENCH_WORKERS (default "1,2"),
// BENCH_REPEAT (rounds per worker count, default 1; the median is printed),
// BENCH_WORKER_NODE_ARGS (extra node flags for the workers, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p").
// It creates a scratch database next to DATABASE_URL's and drops it at the end. The rate is
// measured from the first to the last delivery of a round, so process start-up is excluded.
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
// Extra node flags for the worker processes, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
const WORKER_NODE_ARGS = (process.env.BENCH_WORKER_NODE_ARGS ?? "").split(" ").filter(Boolean);
const { webhookBench, WORKER_APP_NAME } = await import("./webhook-bench.js");

/** CPU seconds (user + system) a process has used, from /proc; 0 once it is gone. */
const TICK = 100; // USER_HZ on Linux
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return 0;
  }
}
const ownCpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };

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
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
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

/** CPU seconds of every process doing the work: workers, their PostgreSQL backends, the receiver. */
async function snapshot(children: ChildProcess[]): Promise<{ count: number; worker: number; postgres: Map<number, number>; receiver: number }> {
  const { rows } = await bench.admin.query<{ pid: number }>("select pid from pg_stat_activity where application_name = $1", [WORKER_APP_NAME]);
  return {
    count: seen.size,
    worker: children.reduce((sum, c) => sum + cpuSeconds(c.pid!), 0),
    postgres: new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid)])),
    receiver: ownCpu(),
  };
}

interface Round { workers: number; perSecond: number; ceiling: number; cpuUsPerDelivery: { worker: number; postgres: number; receiver: number }; load: number[] }
const results: Round[] = [];
try {
  for (const workers of WORKERS) {
    for (let r = 0; r < REPEAT; r++) {
      const ceil = await ceiling();
      resetReceiver();
      await bench.seed(EVENTS);
      const loadBefore = os.loadavg()[0]!;
      const children = Array.from({ length: workers }, () => bench.startWorker(WORKER_NODE_ARGS));
      // The CPU window starts after a tenth of the deliveries (start-up and the first claims
      // are not per-delivery costs) and ends at the last one, before the workers exit.
      let from: Promise<Awaited<ReturnType<typeof snapshot>>> | undefined;
      await arrived(EVENTS, (n) => { if (n === Math.floor(EVENTS / 10)) from = snapshot(children); });
      const to = await snapshot(children);
      const start = (await from)!;
      const seconds = (lastAt - firstAt) / 1000;
      for (const c of children) c.kill("SIGTERM");
      await Promise.all(children.map((c) => once(c, "exit")));
      if (duplicates > 0) throw new Error(`${duplicates} duplicate deliveries`);
      const n = to.count - start.count;
      let pgCpu = 0;
      for (const [pid, cpu] of to.postgres) pgCpu += cpu - (start.postgres.get(pid) ?? 0);
      const us = (s: number) => Math.round((s / n) * 1e6);
      const round: Round = {
        workers, perSecond: Math.round(EVENTS / seconds), ceiling: ceil,
        cpuUsPerDelivery: { worker: us(to.worker - start.worker), postgres: us(pgCpu), receiver: us(to.receiver - start.receiver) },
        load: [Number(loadBefore.toFixed(1)), Number(os.loadavg()[0]!.toFixed(1))],
      };
      results.push(round);
      console.log(`${workers} worker(s): ${EVENTS} events in ${seconds.toFixed(2)} s = ${round.perSecond} events/s; ceiling ${ceil}/s; ` +
        `CPU per delivery: worker ${round.cpuUsPerDelivery.worker} us, postgres ${round.cpuUsPerDelivery.postgres} us, receiver ${round.cpuUsPerDelivery.receiver} us; load ${round.load.join(" -> ")}`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  for (const workers of WORKERS) {
    const mine = results.filter((r) => r.workers === workers);
    console.log(`median of ${mine.length}, ${workers} worker(s): ${median(mine.map((r) => r.perSecond))} events/s (ceiling ${median(mine.map((r) => r.ceiling))}/s), ` +
      `worker ${median(mine.map((r) => r.cpuUsPerDelivery.worker))} us, postgres ${median(mine.map((r) => r.cpuUsPerDelivery.postgres))} us per delivery`);
  }
  console.log(JSON.stringify({ cpus: os.cpus().length, node: process.version, results }));
} finally {
  await bench.close();
  server.close();
}
