// What the webhook benchmarks share: a scratch PostgreSQL database next to DATABASE_URL's with
// one merchant and one endpoint pointing at the benchmark's receiver, events recorded through
// the real outbox, and `src/main.ts worker` processes against it.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { loadConfig } from "../src/config.js";
import { openDatabase, withTx } from "../src/db/client.js";
import { createSealer } from "../src/lib/crypto.js";
import { createMerchantService } from "../src/modules/merchants/merchants.service.js";
import { recordEvent } from "../src/modules/webhooks/outbox.js";
import { feiraMain } from "./harness.js";
import { createWebhookModule } from "../src/modules/webhooks/webhooks.module.js";

const ROOT = path.resolve(import.meta.dirname, "..");
/** The application_name of the workers' connections, to find their PostgreSQL backends. */
export const WORKER_APP_NAME = "feira-bench-worker";

export async function webhookBench(baseUrl: string, receiverUrl: string) {
  const dbName = `feira_bench_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database ${dbName}`);
  const url = new URL(baseUrl);
  url.pathname = `/${dbName}`;
  const workerUrl = new URL(url);
  workerUrl.searchParams.set("application_name", WORKER_APP_NAME);
  const encryptionKey = randomBytes(32).toString("base64");
  const env = {
    DATABASE_URL: url.toString(),
    ENCRYPTION_KEY: encryptionKey,
    JWT_SECRET: randomBytes(32).toString("hex"),
    ADMIN_API_KEY: `adm_${randomBytes(16).toString("hex")}`,
    WEBHOOK_ALLOW_PRIVATE_URLS: "true",
    RATE_LIMIT_PER_KEY: "0",
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

  const event = (i: number) => ({
    merchantId: merchant.id, environment: "sandbox" as const, type: "charge.paid" as const, objectId: `ch_${i}`,
    data: { id: `ch_${i}`, status: "paid", amount: 1000, currency: "BRL", net: 950, paid_at: new Date().toISOString() },
  });

  return {
    admin,
    /** Records `n` events, 500 per transaction (a backlog for the workers). */
    async seed(n: number): Promise<void> {
      for (let i = 0; i < n; i += 500) {
        await withTx(database.db, async (tx) => {
          for (let j = i; j < Math.min(n, i + 500); j++) await recordEvent(tx, event(j));
        });
      }
    },
    /** Records one event in a transaction of its own, as a charge does; resolves with its id at commit. */
    recordOne: (i: number): Promise<string> => withTx(database.db, (tx) => recordEvent(tx, event(i))),
    startWorker(nodeArgs: string[] = []): ChildProcess {
      return spawn(process.execPath, [...nodeArgs, ...feiraMain(), "worker"], {
        cwd: ROOT, stdio: ["ignore", "inherit", "inherit"], env: { ...process.env, ...env, DATABASE_URL: workerUrl.toString() },
      });
    },
    async close(): Promise<void> {
      await database.close();
      await admin.query(`drop database if exists ${dbName} with (force)`);
      await admin.end();
    },
  };
}
