// End-to-end webhook delay, from a commit to the receipt of its event at a local endpoint.
//
// Two modes:
//
// - charges (default): from a charge's commit (its 201 answer arriving) to the receipt of its
//   charge.paid event, through a real `src/main.ts` (API and worker in one process). PGlite by
//   default; with DATABASE_URL, a scratch PostgreSQL database. BENCH_CHARGES (default 300)
//   charges are created at BENCH_RATE per second (default 20).
//
//     npx tsx bench/webhook-latency.ts
//     DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/webhook-latency.ts
//
// - events (PostgreSQL): one `src/main.ts worker` process; events are recorded through the real
//   outbox, one per transaction as a charge records them, at a fixed rate (open loop: an event is
//   recorded when its time comes, whether or not earlier ones are delivered), and the delay runs
//   from each transaction's commit to the receipt. The rate is BENCH_EVENT_RATE, or by default
//   half the worker's throughput measured first in the same run (a backlog of BENCH_EVENTS,
//   default 10000, delivered by the same worker). BENCH_SECONDS (default 10) at that rate.
//
//     BENCH_MODE=events DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/webhook-latency.ts
import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { basicAuth, childEnv, freePort, startProcess, tempDir, waitForHttp } from "../test/helpers/process.js";
import { percentile } from "./harness.js";
import { webhookBench } from "./webhook-bench.js";

/** Prints p50/p90/p99/max of delays in milliseconds. */
function report(delays: number[]): void {
  const sorted = [...delays].sort((a, b) => a - b);
  const pct = (p: number) => percentile(sorted, p / 100);
  console.log(`commit -> receipt: p50 ${pct(50).toFixed(0)} ms, p90 ${pct(90).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`);
}

if (process.env.BENCH_MODE === "events") {
  await eventsMode();
  process.exit(process.exitCode ?? 0);
}

async function eventsMode(): Promise<void> {
  const baseUrl = process.env.DATABASE_URL;
  if (!baseUrl) throw new Error("BENCH_MODE=events needs DATABASE_URL (a PostgreSQL server)");
  const backlog = Number(process.env.BENCH_EVENTS ?? 10000);
  const seconds = Number(process.env.BENCH_SECONDS ?? 10);

  const arrivals = new Map<string, number>();
  let onArrival: (() => void) | undefined;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      const id = String(req.headers["webhook-id"]);
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      onArrival?.();
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    });
  });
  receiver.listen(0, "127.0.0.1");
  await once(receiver, "listening");
  const until = (count: number, timeoutMs: number) => new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`only ${arrivals.size} of ${count} delivered`)), timeoutMs);
    onArrival = () => {
      if (arrivals.size < count) return;
      clearTimeout(timer);
      onArrival = undefined;
      resolve();
    };
    onArrival();
  });

  const bench = await webhookBench(baseUrl, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`);
  const worker = bench.startWorker();
  try {
    let rate = Number(process.env.BENCH_EVENT_RATE ?? 0);
    if (!rate) {
      await bench.seed(backlog);
      await until(backlog, 600_000);
      const times = [...arrivals.values()];
      const throughput = backlog / ((Math.max(...times) - Math.min(...times)) / 1000);
      rate = Math.round(throughput / 2);
      console.log(`throughput: ${backlog} events in a backlog at ${Math.round(throughput)} events/s; fixed rate: half, ${rate} events/s`);
    }
    arrivals.clear();
    const committed = new Map<string, number>();
    const total = Math.round(rate * seconds);
    const recording: Promise<void>[] = [];
    const loadBefore = os.loadavg()[0]!;
    const started = performance.now();
    let next = 0;
    while (next < total) {
      const now = performance.now();
      for (; next < total && started + (next * 1000) / rate <= now; next++) {
        recording.push(bench.recordOne(1_000_000 + next).then((id) => { committed.set(id, performance.now()); }));
      }
      await sleep(1);
    }
    await Promise.all(recording);
    const achieved = total / ((performance.now() - started) / 1000);
    await until(total, 60_000);
    const delays = [...committed].map(([id, at]) => arrivals.get(id)! - at);
    console.log(`engine: postgres; 1 worker; ${total} events at ${rate}/s (${Math.round(achieved)}/s achieved), one per transaction; ${delays.length} received; load ${loadBefore.toFixed(1)} -> ${os.loadavg()[0]!.toFixed(1)}`);
    report(delays);
  } finally {
    worker.kill("SIGTERM");
    await once(worker, "exit");
    await bench.close();
    receiver.close();
  }
}

const CHARGES = Number(process.env.BENCH_CHARGES ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 20);
const WARM = 10;

const received = new Map<string, number>();
const receiver = http.createServer((req, res) => {
  let body = "";
  req.on("data", (c) => { body += c; });
  req.on("end", () => {
    const at = performance.now();
    const event = JSON.parse(body) as { event: string; data: { id: string } };
    if (event.event === "charge.paid" && !received.has(event.data.id)) received.set(event.data.id, at);
    res.writeHead(200).end("ok");
  });
});
receiver.listen(0, "127.0.0.1");
await once(receiver, "listening");
const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

// A scratch database next to DATABASE_URL's, dropped at the end.
const adminUrl = process.env.DATABASE_URL;
const dbName = `feira_bench_${randomBytes(4).toString("hex")}`;
const scratch = adminUrl ? new URL(adminUrl) : undefined;
if (adminUrl && scratch) {
  const c = new pg.Client({ connectionString: adminUrl });
  await c.connect();
  await c.query(`create database ${dbName}`);
  await c.end();
  scratch.pathname = `/${dbName}`;
}
const database = scratch;
const port = await freePort();
const server = startProcess(process.execPath, ["--import", "tsx", "src/main.ts"], childEnv({
  PORT: String(port), LOG_LEVEL: "warn",
  // With DATABASE_URL the server starts only with its secrets given (every process shares them).
  ...(scratch
    ? { DATABASE_URL: scratch.toString(), ENCRYPTION_KEY: randomBytes(32).toString("base64"), JWT_SECRET: randomBytes(32).toString("hex") }
    : { DATA_DIR: tempDir("feira-bench-") }),
}));
const base = `http://127.0.0.1:${port}`;
try {
  const key = (await server.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/, 60_000))[1]!;
  await waitForHttp(`${base}/health`);
  const auth = { authorization: basicAuth(key), "content-type": "application/json" };
  const ep = await fetch(`${base}/v1/webhook-endpoints`, { method: "POST", headers: auth, body: JSON.stringify({ url: hook, events: ["charge.paid"] }) });
  if (ep.status !== 201) throw new Error(`endpoint: ${ep.status} ${await ep.text()}`);

  const committed = new Map<string, number>();
  const body = JSON.stringify({
    amount: 100, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com" },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
  });
  const started = performance.now();
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < CHARGES; i++) {
    inflight.push((async () => {
      const res = await fetch(`${base}/v1/charges`, { method: "POST", headers: auth, body });
      const at = performance.now();
      const { id } = (await res.json()) as { id: string };
      committed.set(id, at);
    })());
    const due = started + ((i + 1) * 1000) / RATE;
    await sleep(Math.max(0, due - performance.now()));
  }
  await Promise.all(inflight);
  const deadline = Date.now() + 60_000;
  while (received.size < CHARGES && Date.now() < deadline) await sleep(50);

  const delays = [...committed].map(([id, at]) => (received.get(id) ?? NaN) - at).filter(Number.isFinite);
  console.log(`engine: ${database ? "postgres" : "pglite"}; ${CHARGES} card charges at ${RATE}/s; ${delays.length} charge.paid received; load ${os.loadavg()[0]!.toFixed(1)}`);
  report(delays);
  // The first deliveries of a process pay its cold start (JIT, undici's parser, first
  // connections); with 300 charges they alone can set the p99, so both parts are shown too.
  console.log(`the first ${WARM} in order: ${delays.slice(0, WARM).map((d) => d.toFixed(0)).join(", ")} ms; after them:`);
  report(delays.slice(WARM));
  if (delays.length < CHARGES) process.exitCode = 1;
} finally {
  await server.stop();
  receiver.close();
  if (adminUrl && scratch) {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(`drop database if exists ${dbName} with (force)`);
    await c.end();
  }
}
