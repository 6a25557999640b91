// Webhook delivery throughput: events delivered per second by one and by two worker processes
// (`src/main.ts worker`) on PostgreSQL, to a local receiver that answers 200 at once.
//
//   DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5432/feira npx tsx bench/webhooks.ts
//
// Options (environment): BENCH_EVENTS (default 5000), BENCH_WORKERS (default "1,2").
// It creates a scratch database next to DATABASE_URL's and drops it at the end. The rate is
// measured from the first to the last delivery of a round, so process start-up is excluded.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { openDatabase, withTx } from "../src/db/client.js";
import { loadConfig } from "../src/config.js";
import { createSealer } from "../src/lib/crypto.js";
import { createMerchantService } from "../src/modules/merchants/merchants.service.js";
import { recordEvent } from "../src/modules/webhooks/outbox.js";
import { createWebhookModule } from "../src/modules/webhooks/webhooks.module.js";

const ROOT = path.resolve(import.meta.dirname, "..");
const baseUrl = process.env.DATABASE_URL;
if (!baseUrl) {
  console.log("bench/webhooks.ts needs DATABASE_URL (a PostgreSQL server): skipped.");
  process.exit(0);
}
const EVENTS = Number(process.env.BENCH_EVENTS ?? 5000);
const WORKERS = (process.env.BENCH_WORKERS ?? "1,2").split(",").map(Number);

// ---- A receiver that counts distinct webhook-ids and when they arrived.
const seen = new Set<string>();
let duplicates = 0;
let firstAt = 0;
let lastAt = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    const id = String(req.headers["webhook-id"]);
    if (seen.has(id)) duplicates++;
    seen.add(id);
    const now = performance.now();
    if (firstAt === 0) firstAt = now;
    lastAt = now;
    res.writeHead(200, { "content-type": "text/plain" }).end("ok");
  });
});
server.listen(0, "127.0.0.1");
await once(server, "listening");
const receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

// ---- A scratch database with one merchant and one endpoint.
const dbName = `feira_bench_${randomBytes(4).toString("hex")}`;
const admin = new pg.Client({ connectionString: baseUrl });
await admin.connect();
await admin.query(`create database ${dbName}`);
const url = new URL(baseUrl);
url.pathname = `/${dbName}`;
const encryptionKey = randomBytes(32).toString("base64");
const env = {
  DATABASE_URL: url.toString(),
  ENCRYPTION_KEY: encryptionKey,
  JWT_SECRET: randomBytes(32).toString("hex"),
  ADMIN_API_KEY: `adm_${randomBytes(16).toString("hex")}`,
  WEBHOOK_ALLOW_PRIVATE_URLS: "true",
  LOG_LEVEL: "warn",
};
const database = await openDatabase({ databaseUrl: env.DATABASE_URL });
await database.migrate();
const config = loadConfig({ ...env, DATA_DIR: os.tmpdir() });
const sealer = createSealer(encryptionKey);
const merchant = await createMerchantService({ db: database.db, sealer, adminApiKey: undefined })
  .createMerchant({ name: "Bench", email: "bench@example.com", password: "correct horse battery" });
await createWebhookModule({ db: database.db, config, sealer }).endpoints.create(
  { merchantId: merchant.id, environment: "sandbox", actor: { type: "api_key", id: "bench" }, requestId: "bench" },
  { url: receiverUrl },
);

async function seedEvents(n: number): Promise<void> {
  for (let i = 0; i < n; i += 500) {
    await withTx(database.db, async (tx) => {
      for (let j = i; j < Math.min(n, i + 500); j++) {
        await recordEvent(tx, {
          merchantId: merchant.id, environment: "sandbox", type: "charge.paid", objectId: `ch_${j}`,
          data: { id: `ch_${j}`, status: "paid", amount: 1000, currency: "BRL", net: 950, paid_at: new Date().toISOString() },
        });
      }
    });
  }
}

function startWorker(): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", "src/main.ts", "worker"], {
    cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env },
  });
  return child;
}

const results: { workers: number; events: number; seconds: number; perSecond: number }[] = [];
try {
  for (const workers of WORKERS) {
    seen.clear();
    duplicates = 0;
    firstAt = 0;
    await seedEvents(EVENTS);
    const children = Array.from({ length: workers }, startWorker);
    const deadline = Date.now() + 600_000;
    while (seen.size < EVENTS) {
      if (Date.now() > deadline) throw new Error(`only ${seen.size} of ${EVENTS} delivered`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const seconds = (lastAt - firstAt) / 1000;
    for (const c of children) c.kill("SIGTERM");
    await Promise.all(children.map((c) => once(c, "exit")));
    if (duplicates > 0) throw new Error(`${duplicates} duplicate deliveries`);
    results.push({ workers, events: EVENTS, seconds: Number(seconds.toFixed(2)), perSecond: Math.round(EVENTS / seconds) });
    console.log(`${workers} worker(s): ${EVENTS} events in ${seconds.toFixed(2)} s = ${Math.round(EVENTS / seconds)} events/s`);
  }
  console.log(JSON.stringify({ cpus: os.cpus().length, node: process.version, results }));
} finally {
  await database.close();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.end();
  server.close();
}
