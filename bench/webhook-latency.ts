// End-to-end webhook delay: from a charge's commit (its 201 answer arriving) to the receipt of
// its charge.paid event at a local endpoint, through a real `src/main.ts` (API and worker in
// one process). PGlite by default; with DATABASE_URL, a scratch PostgreSQL database.
//
//   npx tsx bench/webhook-latency.ts
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/webhook-latency.ts
//
// BENCH_CHARGES (default 300) charges are created at BENCH_RATE per second (default 20).
import http from "node:http";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { basicAuth, childEnv, freePort, nodeMain, tempDir, waitForHttp } from "../test/helpers/process.js";

const CHARGES = Number(process.env.BENCH_CHARGES ?? 300);
const RATE = Number(process.env.BENCH_RATE ?? 20);

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
const server = nodeMain(childEnv({
  PORT: String(port), LOG_LEVEL: "warn",
  ...(scratch ? { DATABASE_URL: scratch.toString() } : { DATA_DIR: tempDir("feira-bench-") }),
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

  const delays = [...committed].map(([id, at]) => (received.get(id) ?? NaN) - at).filter(Number.isFinite).sort((a, b) => a - b);
  const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))]!;
  console.log(`engine: ${database ? "postgres" : "pglite"}; ${CHARGES} card charges at ${RATE}/s; ${delays.length} charge.paid received`);
  console.log(`commit -> receipt: p50 ${pct(50).toFixed(0)} ms, p90 ${pct(90).toFixed(0)} ms, p99 ${pct(99).toFixed(0)} ms, max ${delays.at(-1)!.toFixed(0)} ms`);
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
