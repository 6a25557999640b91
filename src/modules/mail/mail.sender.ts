import nodemailer from "nodemailer";
import type { FastifyBaseLogger } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { claimLeased, finishLeased, type Claimed } from "../../db/leased-queue.js";
import { headerText, isEmailAddress } from "../../lib/email-address.js";
import { faultPoint } from "../../lib/faults.js";
import type { Task } from "../../jobs/runner.js";
import * as repo from "./mail.repo.js";

// Sends queued e-mails: claimed under a lease as webhook deliveries are, sent over SMTP outside
// any transaction, then recorded while the lease is still ours. An SMTP failure is retried with
// the webhooks' backoff (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, times WEBHOOK_RETRY_SCALE);
// a permanent refusal (5xx) fails at once. Nothing here is on a charge's path: a dead SMTP
// server only leaves e-mails queued.
//
// A worker that dies between the server's 250 and the UPDATE leaves the row claimed; when its
// lease ends another worker sends it again, under the same Message-ID (docs/guarantees.md).
// The sandbox's e-mails never leave the machine: they are recorded sent as they are queued
// (mail.service.ts), and GET /v1/emails is their outbox; one still queued (written before that)
// is recorded sent here.

const DELAYS_S = [5, 300, 1800, 7200, 18000, 36000, 36000];
const BATCH = 20;

export interface SenderOptions { leaseMs: number }

export function createMailSender(deps: { db: Db; config: Config; options: SenderOptions }) {
  const { db, config } = deps;
  const transport = config.smtpUrl
    ? nodemailer.createTransport({
        url: config.smtpUrl,
        // STARTTLS is used whenever the server offers it (nodemailer's default for smtp://);
        // smtps:// is TLS from the first byte.
        tls: config.smtpCa ? { ca: [config.smtpCa] } : undefined,
        connectionTimeout: 5_000, greetingTimeout: 5_000, socketTimeout: 10_000,
      })
    : undefined;

  async function sendOne(c: Claimed, log?: FastifyBaseLogger): Promise<void> {
    const e = await repo.emailById(db, c.id);
    if (!e) return;
    if (e.environment === "sandbox") {
      await finishLeased(db, "emails", c, { status: "sent", sentAt: true });
      return;
    }
    if (!transport || !config.mailFrom || !isEmailAddress(e.to)) {
      await finishLeased(db, "emails", c, { status: "failed", error: !transport ? "SMTP_URL is not set" : "invalid address" });
      return;
    }
    try {
      await transport.sendMail({
        // In the merchant's name, from the operator's address: a name with no CR or LF.
        from: { name: headerText(e.fromName), address: config.mailFrom },
        to: e.to,
        subject: headerText(e.subject, 200),
        messageId: e.messageId,
        text: e.text,
        html: e.html,
        // Only what is given above: no header comes from typed text.
        disableFileAccess: true,
        disableUrlAccess: true,
      });
      faultPoint("mail.after-send");
      await finishLeased(db, "emails", c, { status: "sent", sentAt: true });
    } catch (err) {
      const code = (err as { responseCode?: number }).responseCode;
      const message = err instanceof Error ? err.message : String(err);
      log?.warn({ email: e.id, err: message, code }, "e-mail not sent");
      const permanent = code !== undefined && code >= 500 && code < 600;
      const last = c.attempts > DELAYS_S.length;
      const delay = DELAYS_S[Math.min(c.attempts - 1, DELAYS_S.length - 1)]! * 1000 * config.webhookRetryScale;
      await finishLeased(db, "emails", c, permanent || last ? { status: "failed", error: message.slice(0, 500) } : { status: "queued", retryInMs: delay, error: message.slice(0, 500) });
    }
  }

  async function runOnce(log?: FastifyBaseLogger): Promise<number> {
    const claimed = await claimLeased(db, "emails", "queued", BATCH, deps.options.leaseMs);
    for (const c of claimed) await sendOne(c, log);
    return claimed.length;
  }

  return {
    runOnce,
    task: (log?: FastifyBaseLogger): Task => ({ name: "mail.send", intervalMs: config.workerPollMs, run: () => runOnce(log), stop: async () => transport?.close() }),
  };
}
