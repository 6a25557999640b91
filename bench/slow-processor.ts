// Production card charges against a slow processor (issue 26, targets 3 and 4): the local
// Pagar.me fake, in its own process, answers every call after a fixed latency, and autocannon
// keeps 256 or 1,024 clients sending POST /v1/charges with production keys.
//
// The server runs as docs/deploy.md runs it: compiled (`npm run build` first), `node` with the
// flags of `npm run api` (docs/deploy.md's command line) `dist/main.js api`, NODE_ENV=production
// and a `dist/main.js worker` beside it, on a scratch PostgreSQL database next to DATABASE_URL's
// (dropped at the end), PAYMENT_PROCESSOR=pagarme to the fake, rate limits at their defaults
// (RATE_LIMIT_PER_KEY unset: 100 per key and second). So that the per-key limit refuses
// nothing, the charges rotate over BENCH_MERCHANTS merchants' production keys (48: at 2,000
// charges/s, about 42 per key and second).
//
// A round is one autocannon run of the warm-up and then the measured seconds, over the same
// connections; only the responses in the measured window count (measured(), below).
// Each round reports: charges/s against what the latency allows (clients / latency), p50, p99
// and max latency, every status and error, the API process's resident memory (VmRSS sampled
// every 200 ms: peak and end), the CPU per charge of the API process, of its PostgreSQL
// backends and of the fake, and the load average. A first round with the fake answering at
// once and 64 clients measures the card rate of this path (the ceiling when clients / latency
// is above it).
//
//   npm run build
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira_ci npx tsx bench/slow-processor.ts
//   BENCH_LATENCIES=1000 BENCH_CONNECTIONS=1024 BENCH_DURATION=30 ... npx tsx bench/slow-processor.ts
//   BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" ...      # extra node flags for the API process
//   BENCH_FAKE_NODE_ARGS=... (the same for the fake's process)
//   PROCESSOR_MAX_WAITING=512 ...                                   # passed to the server as is
//   BENCH_HOLD=1024 (default; 0 skips it): that many charges sent at once to a processor that
//   answers in 8 s, and the API's RSS read while they all wait (target 4); then the same against
//   bench/waiting-floor.mjs, Fastify and undici alone with the same flags (BENCH_FLOOR=0 skips it)
//
// Results are recorded in bench/RESULTS.md ("Slow processors").
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import autocannon, { type Options, type Result } from "autocannon";
import { Agent, request } from "undici";
import { startFakePagarme } from "../test/helpers/fake-pagarme.js";
import { basicAuth, childEnv, freePort, startProcess, waitForHttp, type ServerProcess } from "../test/helpers/process.js";
import { apiScriptLaunch, cpuProbe, createScratchDatabase, percentile } from "./harness.js";

const SELF = fileURLToPath(import.meta.url);

interface Round {
  latencyMs: number; clients: number; rate: number; allowed: number | null; p50: number; p90: number; p99: number; max: number;
  requests: number; statuses: string; errors: number; timeouts: number; waitingPeak: number; rssPeakMb: number; rssEndMb: number;
  /** Orders the fake created during the round (its measured part and the stragglers). */
  processorOrders: number;
  /** The largest heap figures /metrics showed during the round (MB). */
  heapMb: { used: number; total: number; external: number };
  apiCpuMs: number; dbCpuMs: number; fakeCpuMs: number; load: string;
}

async function main(): Promise<void> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) throw new Error("bench/slow-processor.ts runs on PostgreSQL: set DATABASE_URL");
  if (!existsSync("dist/main.js")) throw new Error("run `npm run build` first: the server runs compiled, as docs/deploy.md runs it");
  const list = (text: string) => text.split(",").filter((x) => x.trim() !== "").map(Number);
  // BENCH_LATENCIES="" runs only the card-rate round and the hold (below).
  const latencies = list(process.env.BENCH_LATENCIES ?? "300,1000");
  const clientCounts = list(process.env.BENCH_CONNECTIONS ?? "256,1024");
  const duration = Number(process.env.BENCH_DURATION ?? 20);
  const warmup = Number(process.env.BENCH_WARMUP ?? 5);
  const merchants = Number(process.env.BENCH_MERCHANTS ?? 48);

  const fakeArgs = (process.env.BENCH_FAKE_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
  const fake = startProcess(process.execPath, [...fakeArgs, "--import", "tsx", SELF, "fake"], childEnv({}));
  const scratch = await createScratchDatabase(adminUrl, "feira_slowproc");
  let api: ServerProcess | undefined;
  let worker: ServerProcess | undefined;
  try {
    const f = JSON.parse((await fake.waitFor(/^\{.*\}$/m, 60_000))[0]) as { url: string; controlUrl: string; secretKey: string };
    const port = await freePort();
    const adminKey = `adm_bench_${randomBytes(16).toString("hex")}`;
    const env = childEnv({
      PORT: String(port), DATABASE_URL: scratch.url, NODE_ENV: "production", LOG_LEVEL: "warn", ADMIN_API_KEY: adminKey,
      JWT_SECRET: randomBytes(48).toString("base64"), ENCRYPTION_KEY: randomBytes(32).toString("base64"),
      PAYMENT_PROCESSOR: "pagarme", PAGARME_API_URL: f.url, PAGARME_SECRET_KEY: f.secretKey, METRICS_TOKEN,
    });
    // The flags of `npm run api` (docs/deploy.md's command line), then BENCH_NODE_ARGS.
    const launch = apiScriptLaunch();
    const nodeArgs = [...launch.nodeArgs, ...(process.env.BENCH_NODE_ARGS ?? "").split(/\s+/).filter(Boolean)];
    // The script's environment (MALLOC_ARENA_MAX) unless this run's sets it.
    const apiEnv = { ...launch.env, ...env };
    const apiCommand = `${Object.keys(launch.env).map((k) => `${k}=${apiEnv[k]} `).join("")}node ${nodeArgs.join(" ")} dist/main.js api`;
    api = startProcess(process.execPath, [...nodeArgs, "dist/main.js", "api"], apiEnv);
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/health`, 120_000);
    worker = startProcess(process.execPath, ["dist/main.js", "worker"], { ...env, LOG_LEVEL: "info" });
    await worker.waitFor(/feira started/, 120_000);
    const keys = await productionKeys(base, adminKey, merchants);
    const apiPid = api.child.pid!;
    console.log(
      `feira slow-processor bench: compiled API (${apiCommand}) + worker, PostgreSQL, NODE_ENV=production, ` +
        `RATE_LIMIT_PER_KEY=${process.env.RATE_LIMIT_PER_KEY ?? "100 (default)"}, PROCESSOR_MAX_WAITING=${process.env.PROCESSOR_MAX_WAITING ?? "default"}, ` +
        `${merchants} production keys in rotation, ${os.cpus().length} CPUs, node ${process.version}; ${warmup} s warm-up + ${duration} s per round; ` +
        `autocannon, the API, the worker, PostgreSQL and the fake share the CPUs`,
    );

    const rounds: Round[] = [];
    const run = async (latencyMs: number, clients: number, allowed: number | null) => {
      await setLatency(f.controlUrl, latencyMs);
      // A round's charges still waiting when its clients stop must not count against the next.
      await drained(base);
      const r = await measured(base, keys, clients, warmup, duration, { apiPid, fakePid: fake.child.pid!, dbName: scratch.name, controlUrl: f.controlUrl });
      rounds.push({ latencyMs, clients, allowed, ...r });
      const x = rounds.at(-1)!;
      console.log(`  ${latencyMs} ms, ${clients} clients: ${x.rate.toFixed(0)} charges/s${allowed ? ` (${((x.rate / allowed) * 100).toFixed(0)} % of ${allowed.toFixed(0)})` : ""}, p99 ${x.p99} ms, ${x.statuses}, RSS peak ${x.rssPeakMb.toFixed(1)} MB (heap used ${x.heapMb.used.toFixed(1)} / total ${x.heapMb.total.toFixed(1)}, external ${x.heapMb.external.toFixed(1)}), ${x.waitingPeak} waiting at most, load ${x.load}`);
    };
    // The card rate of this path: the fake answers at once.
    await run(0, 64, null);
    const hold = Number(process.env.BENCH_HOLD ?? 1024);
    // Before the slow rounds: calls that time out there open the adapter's circuit breaker, and
    // charges then fail at once without waiting.
    if (hold > 0) {
      await drained(base);
      const ordersBefore = await fakeOrders(f.controlUrl);
      const h = await holdWaiting(base, f.controlUrl, keys, hold, apiPid);
      const orders = (await fakeOrders(f.controlUrl)) - ordersBefore;
      console.log(`\n${hold} charges sent at once to a processor that answers after ${HOLD_LATENCY_MS / 1000} s:`);
      console.log(`  feira's API: ${holdLine(h)}, ${orders} orders at the processor`);
      // The same hold against the floor (bench/waiting-floor.mjs), with the same flags: what
      // Fastify and undici alone hold per waiting request, and how small a process can rest.
      if (process.env.BENCH_FLOOR !== "0") console.log(`  the floor (Fastify + undici, no feira code): ${holdLine(await floorHold(f.url, f.controlUrl, keys, hold, nodeArgs, launch.env))}`);
    }
    for (const latencyMs of latencies) for (const clients of clientCounts) await run(latencyMs, clients, clients / (latencyMs / 1000));

    const cardRate = rounds[0]!.rate;
    console.log("\n| processor latency | clients | allowed (clients / latency) | target: 80 % of min(allowed, card rate) | charges/s | p50 ms | p99 ms | p99 target ms | max ms | statuses, errors | orders at the processor | waiting at most | API RSS peak / end MB | CPU ms per charge: API / PostgreSQL / fake | load average |");
    console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|---|---|");
    for (const r of rounds) {
      const bound = r.allowed === null ? null : Math.min(r.allowed, cardRate);
      // p99: the latency plus 50 ms, or, where the clients ask for more than the card rate, the
      // time the card rate takes to serve every client once, plus 50 ms.
      const p99Target = r.allowed === null ? null : Math.round(Math.max(r.latencyMs, (r.clients / cardRate) * 1000) + 50);
      console.log(
        `| ${r.latencyMs} | ${r.clients} | ${r.allowed?.toFixed(0) ?? "-"} | ${bound ? (0.8 * bound).toFixed(0) : "(card rate)"} | **${r.rate.toFixed(0)}** | ${r.p50} | ${r.p99} | ${p99Target ?? "-"} | ${r.max} | ${r.statuses}${r.errors || r.timeouts ? `, ${r.errors} errors, ${r.timeouts} timeouts` : ""} | ${r.processorOrders} | ${r.waitingPeak} | ${r.rssPeakMb.toFixed(1)} / ${r.rssEndMb.toFixed(1)} | ${r.apiCpuMs.toFixed(2)} / ${r.dbCpuMs.toFixed(2)} / ${r.fakeCpuMs.toFixed(2)} | ${r.load} |`,
      );
    }
    console.log(JSON.stringify({ cardRate, rounds }));
    await metricsAgent.close();
  } finally {
    await worker?.stop();
    await api?.stop();
    await fake.stop();
    await scratch.drop();
  }
}

/** Production keys of `n` new merchants, made through the admin API as an operator would. */
async function productionKeys(base: string, adminKey: string, n: number): Promise<string[]> {
  const keys: string[] = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}/v1/admin/merchants`, {
      method: "POST",
      headers: { authorization: basicAuth(adminKey), "content-type": "application/json" },
      body: JSON.stringify({ name: `Bench merchant ${i}`, email: `bench-${i}-${randomBytes(3).toString("hex")}@example.com`, password: "correct horse battery" }),
    });
    if (res.status !== 201) throw new Error(`creating a merchant: ${res.status} ${await res.text()}`);
    keys.push(basicAuth(((await res.json()) as { apiKeys: { production: string } }).apiKeys.production));
  }
  return keys;
}

async function fakeOrders(controlUrl: string): Promise<number> {
  return ((await (await fetch(`${controlUrl}/__fake/state`)).json()) as { orders: number }).orders;
}

async function setLatency(controlUrl: string, ms: number): Promise<void> {
  const res = await fetch(`${controlUrl}/__fake/latency`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ ms }) });
  if (res.status !== 200) throw new Error(`setting the fake's latency: ${res.status} ${await res.text()}`);
}

const CHARGE = JSON.stringify({
  amount: 100, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com" },
  paymentMethod: { type: "credit_card", number: "4000000000000010", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
});

/** `clients` connections sending charges back to back, each request with the next key in turn. */
function load(base: string, keys: string[], clients: number, seconds: number) {
  let next = 0;
  const options: Options = {
    url: `${base}/v1/charges`, connections: clients, duration: seconds, timeout: 30,
    requests: [{
      method: "POST", body: CHARGE,
      setupRequest: (req) => ({ ...req, headers: { "content-type": "application/json", authorization: keys[next++ % keys.length]! } }),
    }],
  };
  return autocannon(options);
}

// Well below PROCESSOR_TIMEOUT_MS (15 s by default), so that every held charge is answered, not
// timed out, even on a loaded machine: five timeouts in a row would open the adapter's breaker.
const HOLD_LATENCY_MS = 8_000;

/**
 * Target 4's "under 1,024 waiting charges", measured apart from the CPU: `n` charges sent at
 * once while the processor takes 8 s to answer, so that all of them end up waiting together
 * however slowly a loaded machine lets the API take them in; the API's RSS is read at the
 * gauge's peak.
 */
async function holdWaiting(base: string, controlUrl: string, keys: string[], n: number, apiPid: number, agent = metricsAgent) {
  const restMb = vmRssMb(apiPid);
  await setLatency(controlUrl, HOLD_LATENCY_MS);
  heapSeen = { used: 0, total: 0, external: 0 };
  const statuses = new Map<number, number>();
  const answers = Promise.all(Array.from({ length: n }, (_, i) =>
    fetch(`${base}/v1/charges`, { method: "POST", headers: { "content-type": "application/json", authorization: keys[i % keys.length]! }, body: CHARGE })
      .then(async (res) => { await res.arrayBuffer(); statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1); })));
  let waitingPeak = 0;
  let rssMb = 0;
  let parts = rssParts(apiPid);
  const deadline = Date.now() + HOLD_LATENCY_MS - 1000;
  while (Date.now() < deadline && waitingPeak < n) {
    await new Promise((r) => setTimeout(r, 250));
    const w = await waitingNow(base, agent);
    if (w >= waitingPeak) { waitingPeak = w; rssMb = vmRssMb(apiPid); parts = rssParts(apiPid); }
  }
  const heap = heapSeen;
  await answers;
  return { restMb, rssMb, parts, waitingPeak, heap, statuses: [...statuses].map(([code, count]) => `${code}: ${count}`).join(", ") };
}

function holdLine(h: Awaited<ReturnType<typeof holdWaiting>>): string {
  return `at most ${h.waitingPeak} waiting together; RSS ${h.restMb.toFixed(1)} MB before, ${h.rssMb.toFixed(1)} MB with them waiting ` +
    `(heap used ${h.heap.used.toFixed(1)} / total ${h.heap.total.toFixed(1)} MB, external ${h.heap.external.toFixed(1)} MB), ` +
    `${((h.rssMb - h.restMb) * 1024 / Math.max(1, h.waitingPeak)).toFixed(1)} kB more per waiting request; ` +
    `resident: the node binary ${h.parts.binary.toFixed(1)} MB, malloc's main heap ${h.parts.brk.toFixed(1)}, anonymous ${h.parts.anon.toFixed(1)} (V8's heap, other threads' arenas), ` +
    `other files ${h.parts.files.toFixed(1)}; answers ${h.statuses}; load ${os.loadavg()[0]!.toFixed(1)}`;
}

/** bench/waiting-floor.mjs started with the API's flags and environment, held like the API, stopped. */
async function floorHold(fakeUrl: string, controlUrl: string, keys: string[], n: number, nodeArgs: string[], env: Record<string, string>) {
  const port = await freePort();
  const floor = startProcess(process.execPath, [...nodeArgs, "bench/waiting-floor.mjs", String(port), `${fakeUrl}/waiting-floor`], childEnv(env));
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitForHttp(`${base}/health`, 60_000);
    // As the API was before its hold: warmed by requests, the fake answering at once.
    await setLatency(controlUrl, 0);
    await load(base, keys, 64, 5);
    const floorAgent = new Agent({ connections: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
    try {
      await waitingNow(base, floorAgent); // its one connection opened before the hold's thousand
      return await holdWaiting(base, controlUrl, keys, n, floor.child.pid!, floorAgent);
    } finally {
      await floorAgent.close();
    }
  } finally {
    await floor.stop();
  }
}

/** The API process's heap as it reports it (MB): used, total, external (buffers, WASM). */
let heapSeen = { used: 0, total: 0, external: 0 };

/** The API process's charges waiting on the processor now (its /metrics gauge). */
// One kept connection for these reads, opened before any load: with 1,024 clients connecting, a
// new connection can wait seconds in the listen backlog, and the reading would come too late.
const metricsAgent = new Agent({ connections: 1, keepAliveTimeout: 60_000, keepAliveMaxTimeout: 60_000 });
// NODE_ENV=production: /metrics answers only with this token (docs/deploy.md).
const METRICS_TOKEN = randomBytes(24).toString("hex");

async function waitingNow(base: string, agent = metricsAgent): Promise<number> {
  const text = await (await request(`${base}/metrics`, { dispatcher: agent, headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).body.text();
  const mb = (name: string) => Number(new RegExp(`^feira_${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text)?.[1] ?? 0) / 1024 / 1024;
  heapSeen = {
    used: Math.max(heapSeen.used, mb("nodejs_heap_size_used_bytes")), total: Math.max(heapSeen.total, mb("nodejs_heap_size_total_bytes")),
    external: Math.max(heapSeen.external, mb("nodejs_external_memory_bytes")),
  };
  const n = /^feira_processor_waiting_charges (\d+)$/m.exec(text)?.[1];
  if (n === undefined) throw new Error("no feira_processor_waiting_charges in /metrics: rebuild (`npm run build`)");
  return Number(n);
}

// Zero for two seconds in a row: requests a round's clients sent just before they stopped may
// still be on their way to the processor (authentication, the per-key limit) on a busy machine.
async function drained(base: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (let quietSince = Date.now(); Date.now() - quietSince < 2000;) {
    if ((await waitingNow(base)) > 0) quietSince = Date.now();
    if (Date.now() > deadline) throw new Error("charges still waiting on the processor a minute after their round");
    await new Promise((r) => setTimeout(r, 250));
  }
}

function vmRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? NaN) / 1024;
}

/** A process's resident memory by kind of mapping (MB), from /proc/<pid>/smaps. */
function rssParts(pid: number): { binary: number; brk: number; anon: number; files: number } {
  const parts = { binary: 0, brk: 0, anon: 0, files: 0 };
  let kind: keyof typeof parts = "anon";
  for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
    const mapping = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (mapping) {
      const name = mapping[1]!;
      kind = name === "" ? "anon" : name === "[heap]" ? "brk" : name === process.execPath || name.endsWith("/bin/node") ? "binary" : name.startsWith("[") ? "anon" : "files";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) parts[kind] += Number(rss[1]) / 1024;
  }
  return parts;
}

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * One autocannon run of `warmup + seconds`, measured over its last `seconds` only: the clients'
 * connections, opened in the warm-up, stay open into the measured window, as a service's
 * keep-alive clients do. (Two runs, warm-up then measure, would end the warm-up's connections
 * with their charges still in the server, which the measured round's first requests then queue
 * behind, and open 1,024 new ones at once, whose SYNs overflow the listen backlog and wait a
 * retransmission: both figures of the benchmark, not of the charge path.)
 */
async function measured(
  base: string, keys: string[], clients: number, warmup: number, seconds: number,
  p: { apiPid: number; fakePid: number; dbName: string; controlUrl: string },
) {
  const probe = cpuProbe(p.apiPid, p.dbName);
  let opened: { probe: { server: number; db: number }; fake: number; orders: Promise<number>; at: number } | undefined;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let timeouts = 0;
  const loads: number[] = [];
  const rss: number[] = [];
  let waitingPeak = 0;
  let sampler: NodeJS.Timeout | undefined;
  let gauge: NodeJS.Timeout | undefined;
  const opening = setTimeout(() => {
    heapSeen = { used: 0, total: 0, external: 0 };
    loads.push(os.loadavg()[0]!);
    const orders = fakeOrders(p.controlUrl);
    orders.catch(() => undefined); // awaited, and its failure thrown, after the run
    opened = { probe: probe(), fake: cpuSeconds(p.fakePid), orders, at: performance.now() };
    sampler = setInterval(() => { rss.push(vmRssMb(p.apiPid)); loads.push(os.loadavg()[0]!); }, 200);
    // Once a second: /metrics costs the API a little CPU each time.
    gauge = setInterval(() => void waitingNow(base).then((n) => { waitingPeak = Math.max(waitingPeak, n); }, () => undefined), 1000);
  }, warmup * 1000);
  const run = load(base, keys, clients, warmup + seconds);
  run.on("response", (_client, statusCode, _bytes, responseTime) => {
    if (!opened) return;
    latencies.push(responseTime);
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  run.on("reqError", (error) => {
    if (!opened) return;
    errors++;
    if (error.message === "request timed out") timeouts++;
  });
  try {
    await run;
  } finally {
    clearTimeout(opening);
    clearInterval(sampler);
    clearInterval(gauge);
  }
  if (!opened) throw new Error("the measured window never opened");
  const end = { probe: probe(), fake: cpuSeconds(p.fakePid), at: performance.now() };
  rss.push(vmRssMb(p.apiPid));
  // Charges the processor made: a 201 can also be a charge failed at once by an open circuit
  // breaker (after calls that timed out), which never reached the processor.
  const processorOrders = (await fakeOrders(p.controlUrl)) - (await opened.orders);
  const n = Math.max(1, latencies.length);
  const perCharge = (a: number, b: number) => ((b - a) * 1000) / n;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => Math.round(percentile(latencies, q));
  return {
    rate: latencies.length / ((end.at - opened.at) / 1000), p50: at(0.5), p90: at(0.9), p99: at(0.99), max: at(1),
    requests: latencies.length,
    statuses: [...statuses].sort(([a], [b]) => a - b).map(([code, count]) => `${code}: ${count}`).join(", ") || "none",
    errors, timeouts, waitingPeak, heapMb: heapSeen, rssPeakMb: Math.max(...rss), rssEndMb: rss.at(-1)!, processorOrders,
    apiCpuMs: perCharge(opened.probe.server, end.probe.server), dbCpuMs: perCharge(opened.probe.db, end.probe.db),
    fakeCpuMs: perCharge(opened.fake, end.fake),
    load: `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
  };
}

// ---- The fake's own process: `tsx bench/slow-processor.ts fake`.
if (process.argv[2] === "fake") {
  const fake = await startFakePagarme({ latencyMs: 0, keepAlive: true });
  // What the fake records of each call is for tests; a benchmark's hundreds of thousands of
  // calls would only grow this process.
  setInterval(() => { fake.requests.length = 0; }, 1000).unref();
  console.log(JSON.stringify({ url: fake.url, controlUrl: fake.controlUrl, secretKey: fake.secretKey }));
  process.once("SIGTERM", () => void fake.close().then(() => process.exit(0)));
} else {
  await main();
}
