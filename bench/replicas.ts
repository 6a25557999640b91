// The list endpoints with one read replica against the primary alone, in the same run: a
// PostgreSQL 15 primary and one streaming standby of it (test/helpers/replica-pair.ts:
// initdb, pg_basebackup -R, in a temporary directory, removed at the end, also on failure); feira
// started as an operator starts it, once with DATABASE_URL alone and once with
// DATABASE_REPLICA_URL too, in turns (primary, replica, primary, replica...), on the same data;
// autocannon on GET /v1/customers and GET /v1/charges (50 a page) with the demo merchant's key.
// Reports requests per second, latency, and the share of list reads the standby served
// (/metrics: feira_list_reads_total). The key writes nothing during the load, so each list of it
// asks the primary its WAL position (one small query) and reads the standby once it has
// replayed that far: the path of a caller the process saw no write of (docs/deploy.md, "Read replicas").
//
//   npm run build && BENCH_COMPILED=1 node --import tsx bench/replicas.ts [rounds] [seconds] [connections]
//
// Defaults: 2 rounds of 10 s per list and configuration, 16 connections.
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { BenchServer, Scenario } from "./scenarios.js";
import { freePort, load, serverEnv, startServer, type ServerProcess } from "./harness.js";
import { startReplicaPair } from "../test/helpers/replica-pair.js";

const rounds = Number(process.argv[2] ?? 2);
const seconds = Number(process.argv[3] ?? 10);
const connections = Number(process.argv[4] ?? 16);
const SEED = 300;

const auth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
const list = (name: string, url: string): Scenario => ({
  name, description: `GET ${url}`, expectStatus: 200,
  request: (s) => ({ method: "GET", path: url, headers: { authorization: auth(s.sandboxKey) } }),
});
const scenarios = [list("customers", "/v1/customers?limit=50"), list("charges", "/v1/charges?limit=50")];

const pair = await startReplicaPair();
const dataDir = mkdtempSync(path.join(os.tmpdir(), "feira-bench-replicas-"));
let server: ServerProcess | undefined;
try {
  // No per-key limit: one key sends all the load, as in bench/growth.ts.
  const secrets = serverEnv({ port: 0, dataDir, databaseUrl: pair.primaryUrl(), extra: { RATE_LIMIT_PER_KEY: "0" } });
  const start = async (withReplica: boolean, keys?: Omit<BenchServer, "baseUrl">) => {
    const port = await freePort();
    const env = { ...secrets, PORT: String(port), ...(withReplica ? { DATABASE_REPLICA_URL: pair.standbyUrl() } : {}) };
    if (!withReplica) delete env.DATABASE_REPLICA_URL;
    server = startServer(env);
    return server.ready(keys);
  };
  let keys: Omit<BenchServer, "baseUrl"> | undefined;
  const rows: Record<string, unknown>[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const withReplica of [false, true]) {
      const s = await start(withReplica, keys);
      if (!keys) {
        keys = { sandboxKey: s.sandboxKey, adminKey: s.adminKey, merchantId: s.merchantId };
        await seed(s);
      }
      for (const scenario of scenarios) {
        const r = await load(s, scenario, seconds, connections);
        const bad = r.non2xx + r.errors;
        rows.push({
          round, database: withReplica ? "primary + replica" : "primary alone", list: scenario.name,
          requestsPerSecond: Math.round(r.requests.average), p50: r.latency.p50, p99: r.latency.p99, requests: r.requests.total, failed: bad,
        });
        console.error(JSON.stringify(rows.at(-1)));
      }
      if (withReplica) {
        const metrics = await (await fetch(`${s.baseUrl}/metrics`)).text();
        const count = (db: string) => Number(new RegExp(`feira_list_reads_total\\{database="${db}"\\} (\\d+)`).exec(metrics)?.[1] ?? 0);
        console.error(JSON.stringify({ round, listReads: { replica: count("replica"), primary: count("primary") } }));
        rows.push({ round, listReads: { replica: count("replica"), primary: count("primary") } });
      }
      await server!.stop();
      server = undefined;
    }
  }
  console.log(JSON.stringify({ rounds, seconds, connections, seeded: { customers: SEED, charges: SEED }, rows }, null, 1));
} finally {
  await server?.stop();
  await pair.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

/** SEED customers and SEED card charges of the demo merchant, through the API. */
async function seed(s: BenchServer) {
  const post = (url: string, body: unknown) => fetch(`${s.baseUrl}${url}`, {
    method: "POST", headers: { authorization: auth(s.sandboxKey), "content-type": "application/json" }, body: JSON.stringify(body),
  }).then(async (r) => { if (r.status !== 201) throw new Error(`${url}: ${r.status} ${await r.text()}`); });
  for (let i = 0; i < SEED; i += 10) {
    await Promise.all(Array.from({ length: 10 }, (_, j) => post("/v1/customers", {
      name: `Customer ${i + j}`, email: `c${i + j}@example.com`, documentType: "cpf", documentId: "52998224725",
    })));
    await Promise.all(Array.from({ length: 10 }, () => post("/v1/charges", {
      amount: 25, currency: "BRL", customer: { name: "Maria Silva", email: "maria@example.com", document: { type: "cpf", id: "529.982.247-25" } },
      paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1 },
    })));
  }
}
