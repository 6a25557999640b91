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

  const settingsOf = (row: repo.SettingsRow | undefined): NotificationSettingsBody =>
    row ? { receipts: row.receipts, reminders: { daysBefore: row.reminderDaysBefore, overdue: row.overdue }, language: row.language } : DEFAULTS;

  async function settings(scope: Scope): Promise<NotificationSettingsBody> {
    return settingsOf(await repo.settingsOf(db, scope));
  }

  /**
   * Queues each e-mail of a kind about a charge, once: a second call (the reaction retried, two
   * workers, the reminder task run again) finds the row and writes nothing. Production e-mails
   * are not queued at all without SMTP_URL and MAIL_FROM; the sandbox's never leave the machine,
   * so they are recorded sent as they are queued, its outbox. A buyer with no valid e-mail gets
   * none. One statement reads the settings and one writes every e-mail; answers how many were written.
   */
  async function queueAll(wanted: { charge: repo.ChargeForMail; kind: MailKind }[]): Promise<number> {
    const eligible = new Map<string, { charge: repo.ChargeForMail; kind: MailKind }>();
    for (const w of wanted) {
      const c = w.charge;
      if (!c.buyer_email || !isEmailAddress(c.buyer_email) || (c.environment === "production" && !sending("production"))) continue;
      eligible.set(`${c.id} ${w.kind}`, w);
    }
    const scopeKey = (s: Scope) => `${s.merchantId} ${s.environment}`;
    const scopes = new Map<string, Scope>();
    for (const { charge: c } of eligible.values()) scopes.set(scopeKey({ merchantId: c.merchant_id, environment: c.environment }), { merchantId: c.merchant_id, environment: c.environment });
    const saved = new Map((await repo.settingsOfAll(db, [...scopes.values()])).map((row) => [scopeKey(row), row]));
    const rows = [...eligible.values()].flatMap(({ charge: c, kind }) => {
      const s = settingsOf(saved.get(scopeKey({ merchantId: c.merchant_id, environment: c.environment })));
      if (kind === "receipt" && !s.receipts) return [];
      const details = c.payment_details ?? {};
      const str = (k: string) => (typeof details[k] === "string" ? (details[k] as string) : undefined);
      const rendered = renderMail(kind, s.language, {
        merchantName: c.merchant_name,
        buyerName: c.buyer_name ?? "",
        amount: formatMoney(c.amount, c.currency, s.language),
        howToPay: { boletoLine: str("formattedLine") ?? str("digitableLine"), pixCode: str("pixQrCode") ?? str("qrCode"), dueDate: str("dueDate") },
        pageUrl: c.page_token ? chargePageUrl(config, c.page_token) : null,
      });
      const recorded = c.environment === "sandbox" ? { status: "sent", sentAt: new Date() } : {};
      return [{
        id: newId("eml"), merchantId: c.merchant_id, environment: c.environment, chargeId: c.id, kind, to: c.buyer_email!,
        fromName: c.merchant_name, ...rendered, messageId: messageIdOf(c.id, kind, config.mailFrom), ...recorded,
      }];
    });
    return (await repo.queueEmails(db, rows)).size;
  }

  /** Queues the e-mail of `kind` about a charge, once (queueAll); whether it was written now. */
  async function queue(chargeId: string, kind: MailKind): Promise<boolean> {
    const charge = await repo.chargeForMail(db, chargeId);
    return charge ? (await queueAll([{ charge, kind }])) > 0 : false;
  }

  /**
   * The subscriber of the outbox (webhooks' SUBSCRIBERS.mail): which e-mail each event asks for,
   * its charges read in one statement and the e-mails written in another.
   */
  async function onEvents(events: ReactedEvent[]): Promise<void> {
    const ids = [...new Set(events.flatMap((e) => (e.objectId ? [e.objectId] : [])))];
    const charges = await repo.chargesForMail(db, ids);
    await queueAll(events.flatMap((e) => {
      const charge = e.objectId ? charges.get(e.objectId) : undefined;
      const kind = charge && kindFor(e.type, charge);
      return charge && kind ? [{ charge, kind }] : [];
    }));
  }

  function kindFor(type: string, c: repo.ChargeForMail): MailKind | undefined {
    switch (type) {
      case "charge.paid": return "receipt";
      case "charge.refunded": return "refund";
      // Payment instructions go where the buyer pays later by a line or a code with a date:
      // a boleto, or a Pix with a due date.
      case "charge.pending":
        return c.payment_method_type === "boleto" || (c.payment_method_type === "pix" && typeof c.payment_details?.dueDate === "string") ? "payment_instructions" : undefined;
      case "charge.updated":
      case "charge.failed":
        return c.subscription_id && (c.status === "refused" || c.status === "failed") ? "renewal_failed" : undefined;
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
    onEvents,
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
