import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { rmSync } from "node:fs";
import path from "node:path";
import { openDatabase, queryRows, sql, type Database } from "../../src/db/client.js";
import { emails } from "../../src/db/schema.js";
import { createSealer } from "../../src/lib/crypto.js";
import { createMerchantService } from "../../src/modules/merchants/merchants.service.js";
import { messageIdOf } from "../../src/modules/mail/mail.service.js";
import { freshDatabase, migratedDataDir } from "../helpers/db.js";
import { feiraEntry } from "../helpers/feira-bundle.js";
import { until } from "../helpers/wait.js";
import { startSmtpCatcher } from "./smtp-catcher.js";
// run-suite: waits: a feira worker process killed by its fault point, then restarted to wait out the e-mail's lease

// kill -9 between the SMTP server's 250 and recording it (the fault point mail.after-send): the
// e-mail stays claimed until its lease ends, and the restarted worker sends it again under the
// same Message-ID, derived from the charge and the kind, so the buyer's mail client shows one
// (docs/guarantees.md). Nothing else is sent twice, and the row ends sent.
const ROOT = path.resolve(import.meta.dirname, "../..");
const onPostgres = Boolean(process.env.DATABASE_URL);
const encryptionKey = randomBytes(32).toString("base64");
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => {
  for (const c of cleanups.reverse()) await c();
});

async function feira(args: string[], env: Record<string, string>): Promise<ChildProcess> {
  const clean: NodeJS.ProcessEnv = { ...process.env };
  for (const k of ["DATABASE_URL", "DATA_DIR", "NODE_TEST_CONTEXT", "PORT", "LOG_LEVEL", "FEIRA_FAULT"]) delete clean[k];
  const child = spawn(process.execPath, [...await feiraEntry(), ...args], {
    cwd: ROOT, stdio: ["ignore", "ignore", "inherit"],
    env: { ...clean, ...env, ENCRYPTION_KEY: encryptionKey, JWT_SECRET: randomBytes(32).toString("hex"), ADMIN_API_KEY: `adm_${randomBytes(16).toString("hex")}`, PORT: "0", LOG_LEVEL: "error", WEBHOOK_RETRY_SCALE: "0.001" },
  });
  cleanups.push(() => { if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL"); });
  return child;
}

test(`a worker killed between sending an e-mail and recording it: sent again under the same Message-ID once its lease ends (${onPostgres ? "PostgreSQL" : "PGlite"})`, { timeout: 180_000 }, async () => {
  const smtp = await startSmtpCatcher();
  cleanups.push(() => smtp.close());
  let database: Database;
  let env: Record<string, string>;
  if (onPostgres) {
    const fresh = await freshDatabase();
    database = fresh;
    env = { DATABASE_URL: fresh.url! };
    cleanups.push(() => fresh.close());
  } else {
    const dataDir = await migratedDataDir("feira-mail-crash-");
    database = await openDatabase({ dataDir });
    env = { DATA_DIR: dataDir };
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
  }
  const merchant = await createMerchantService({ db: database.db, sealer: createSealer(encryptionKey), adminApiKey: undefined })
    .createMerchant({ name: "Crash", email: `crash-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery" });
  const chargeId = "ch_crashmail0000000000000001";
  const messageId = messageIdOf(chargeId, "receipt", "cobranca@feira.example");
  // Queued as the mail subscriber queues it (the subscriber's own path is tested over HTTP).
  await database.db.insert(emails).values({
    id: "eml_crash00000000000000000001", merchantId: merchant.id, environment: "production", chargeId, kind: "receipt",
    to: "buyer@example.com", fromName: "Crash", subject: "Recibo", text: "ok", html: "<p>ok</p>", messageId,
  });
  const inspect = async () => {
    if (onPostgres) return database;
    return openDatabase({ dataDir: env.DATA_DIR! });
  };
  if (!onPostgres) await database.close(); // PGlite admits one process: the child's
  const mailEnv = { ...env, SMTP_URL: smtp.url, MAIL_FROM: "cobranca@feira.example", SMTP_CA_FILE: smtp.caFile };
  const args = onPostgres ? ["worker"] : [];

  const first = await feira(args, { ...mailEnv, FEIRA_FAULT: "mail.after-send" });
  const [, signal] = await once(first, "exit") as [number | null, string | null];
  assert.equal(signal, "SIGKILL", "the worker died at the fault point");
  assert.equal(smtp.mails.length, 1, "the server took the e-mail before the crash");

  const second = await feira(args, mailEnv);
  await until("the e-mail was sent again once the lease ended", () => smtp.mails.length >= 2, 90_000);
  // Recorded: on PostgreSQL watched in the table; on PGlite read once the child is gone.
  if (onPostgres) {
    await until("the resend was recorded", async () => (await queryRows<{ status: string }>(database.db, sql`select status from emails`))[0]?.status === "sent", 20_000);
  } else {
    await new Promise((r) => setTimeout(r, 1_500));
  }
  const exited = once(second, "exit");
  second.kill("SIGTERM");
  await exited;
  const check = await inspect();
  try {
    const rows = await queryRows<{ status: string; attempts: number }>(check.db, sql`select status, attempts from emails`);
    assert.deepEqual(rows.map((r) => [r.status, Number(r.attempts)]), [["sent", 2]]);
  } finally {
    if (!onPostgres) await check.close();
  }
  assert.equal(smtp.mails.length, 2, "sent twice, never a third time");
  assert.deepEqual(smtp.mails.map((m) => m.headers.get("message-id")), [messageId, messageId], "both under the Message-ID of (charge, kind)");
});
