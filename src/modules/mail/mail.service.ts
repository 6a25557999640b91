import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { PageQuery } from "../../db/pagination.js";
import { isEmailAddress } from "../../lib/email-address.js";
import { newId } from "../../lib/ids.js";
import { formatMoney } from "../../web/panel/format.js";
import { chargePageUrl } from "../charges/index.js";
import type { ReactedEvent } from "../webhooks/index.js";
import * as repo from "./mail.repo.js";
import type { NotificationSettingsBody } from "./mail.schemas.js";
import { renderMail, type MailKind } from "./mail.templates.js";

const DEFAULTS: NotificationSettingsBody = { receipts: true, reminders: { daysBefore: null, overdue: false }, language: "pt-BR" };

/**
 * The Message-ID of a charge's e-mail of a kind: derived from both, so every attempt to send it
 * (a retry, another worker, the one after a crash between sending and recording) carries the
 * same one, and a mail client that got it twice shows it once (docs/guarantees.md).
 */
export function messageIdOf(chargeId: string, kind: MailKind, mailFrom: string | undefined): string {
  const domain = mailFrom?.slice(mailFrom.lastIndexOf("@") + 1) || "feira.invalid";
  return `<${chargeId}.${kind}@${domain}>`;
}

export function createMailService(deps: { db: Db; config: Config }) {
  const { db, config } = deps;
  /** Whether e-mails of this environment leave the machine. */
  const sending = (environment: Scope["environment"]) => environment === "production" && Boolean(config.smtpUrl && config.mailFrom);

  async function settings(scope: Scope): Promise<NotificationSettingsBody> {
    const row = await repo.settingsOf(db, scope);
    if (!row) return DEFAULTS;
    return { receipts: row.receipts, reminders: { daysBefore: row.reminderDaysBefore, overdue: row.overdue }, language: row.language };
  }

  /**
   * Queues the e-mail of `kind` about a charge, once: a second call (the reaction retried, two
   * workers, the reminder task run again) finds the row and writes nothing. Production e-mails
   * are not queued at all without SMTP_URL and MAIL_FROM; the sandbox queues them anyway, as
   * its outbox. A buyer with no valid e-mail gets none.
   */
  async function queue(chargeId: string, kind: MailKind): Promise<boolean> {
    const c = await repo.chargeForMail(db, chargeId);
    if (!c || !c.buyer_email || !isEmailAddress(c.buyer_email)) return false;
    const scope = { merchantId: c.merchant_id, environment: c.environment };
    if (scope.environment === "production" && !sending("production")) return false;
    const s = await settings(scope);
    if (kind === "receipt" && !s.receipts) return false;
    const details = c.payment_details ?? {};
    const str = (k: string) => (typeof details[k] === "string" ? (details[k] as string) : undefined);
    const rendered = renderMail(kind, s.language, {
      merchantName: c.merchant_name,
      buyerName: c.buyer_name ?? "",
      amount: formatMoney(c.amount, c.currency, s.language),
      howToPay: { boletoLine: str("formattedLine") ?? str("digitableLine"), pixCode: str("pixQrCode") ?? str("qrCode"), dueDate: str("dueDate") },
      pageUrl: c.page_token ? chargePageUrl(config, c.page_token) : null,
    });
    return repo.queueEmail(db, {
      id: newId("eml"), merchantId: c.merchant_id, environment: c.environment, chargeId, kind, to: c.buyer_email,
      fromName: c.merchant_name, ...rendered, messageId: messageIdOf(chargeId, kind, config.mailFrom),
    });
  }

  /** The subscriber of the outbox (webhooks' SUBSCRIBERS.mail): which e-mail an event asks for. */
  async function onEvent(event: ReactedEvent): Promise<void> {
    if (!event.objectId) return;
    const kind = await kindFor(event);
    if (kind) await queue(event.objectId, kind);
  }

  async function kindFor(event: ReactedEvent): Promise<MailKind | undefined> {
    switch (event.type) {
      case "charge.paid": return "receipt";
      case "charge.refunded": return "refund";
      case "charge.pending": {
        // Payment instructions go where the buyer pays later by a line or a code with a date:
        // a boleto, or a Pix with a due date.
        const c = await repo.chargeForMail(db, event.objectId!);
        const dueDate = c?.payment_details?.dueDate;
        return c && (c.payment_method_type === "boleto" || (c.payment_method_type === "pix" && typeof dueDate === "string")) ? "payment_instructions" : undefined;
      }
      case "charge.updated":
      case "charge.failed": {
        const c = await repo.chargeForMail(db, event.objectId!);
        return c?.subscription_id && (c.status === "refused" || c.status === "failed") ? "renewal_failed" : undefined;
      }
      default: return undefined;
    }
  }

  return {
    sending,
    settings,
    async saveSettings(scope: Scope, body: NotificationSettingsBody) {
      await repo.saveSettings(db, {
        merchantId: scope.merchantId, environment: scope.environment, receipts: body.receipts,
        reminderDaysBefore: body.reminders.daysBefore, overdue: body.reminders.overdue, language: body.language,
      });
      return settings(scope);
    },
    queue,
    onEvent,
    async list(scope: Scope, query: PageQuery & { chargeId?: string }) {
      const page = await repo.listEmails(db, scope, query);
      return {
        hasMore: page.hasMore,
        data: page.data.map((e) => ({
          id: e.id, chargeId: e.chargeId, kind: e.kind, to: e.to, subject: e.subject, status: e.status,
          sentAt: e.sentAt?.toISOString() ?? null, createdAt: e.createdAt.toISOString(),
        })),
      };
    },
  };
}

export type MailService = ReturnType<typeof createMailService>;
