import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import type { MessageKey } from "../i18n/en.js";
import { checkbox, csrfInput, field, formErrors, select, table } from "../ui.js";

// Settings: e-mails to buyers (GET/PUT /v1/settings/notifications) and the e-mails of this
// environment (GET /v1/emails): in the sandbox, the outbox nothing leaves.

export interface NotificationsView {
  settings: { receipts: boolean; reminders: { daysBefore: number | null; overdue: boolean }; language: "pt-BR" | "en"; sending: boolean };
  emails: { id: string; chargeId: string; kind: string; to: string; subject: string; status: string; sentAt: string | null; createdAt: string }[];
}

const KIND: Record<string, MessageKey> = {
  receipt: "mail.kind.receipt", payment_instructions: "mail.kind.payment_instructions", reminder: "mail.kind.reminder",
  overdue: "mail.kind.overdue", refund: "mail.kind.refund", renewal_failed: "mail.kind.renewal_failed",
};
const STATUS: Record<string, MessageKey> = { queued: "mail.status.queued", sent: "mail.status.sent", failed: "mail.status.failed" };

export function notificationsSection(p: PanelCtx, v: NotificationsView, refused: { errors?: FieldErrors; values?: Record<string, unknown> } = {}): Html {
  const { t } = p;
  const s = v.settings;
  const sandbox = p.ctx.environment === "sandbox";
  const state = sandbox ? t("mail.sandboxOutbox") : s.sending ? t("mail.sending") : t("mail.notConfigured");
  const days = refused.values ? refused.values.daysBefore : s.reminders.daysBefore ?? "";
  const rows = v.emails.map((e) => [
    html`<a href="/panel/charges/${e.chargeId}"><code>${e.chargeId}</code></a>`, KIND[e.kind] ? t(KIND[e.kind]!) : e.kind, e.to, e.subject, STATUS[e.status] ? t(STATUS[e.status]!) : e.status, p.date(e.sentAt ?? e.createdAt, true),
  ]);
  return html`<section class="card" aria-labelledby="nt"><h2 id="nt">${t("mail.title")}</h2><p class="hint" role="status">${state}</p>${formErrors(p, refused.errors)}
<form method="post" action="/panel/settings/notifications">${csrfInput(p)}
${checkbox({ name: "receipts", label: t("mail.receipts"), checked: s.receipts, prefix: "mail" })}
${field({ name: "daysBefore", label: t("mail.daysBefore"), value: days, errors: refused.errors, hint: t("mail.daysBeforeHint"), attrs: { inputmode: "numeric", maxlength: 2 }, prefix: "mail" })}
${checkbox({ name: "overdue", label: t("mail.overdue"), checked: s.reminders.overdue, prefix: "mail" })}
${select({ name: "language", label: t("mail.language"), value: s.language, options: [["pt-BR", "Português (Brasil)"], ["en", "English"]], errors: refused.errors, prefix: "mail" })}
<button type="submit" class="primary">${t("mail.save")}</button></form>
${table([t("mail.charge"), t("mail.kind"), t("mail.to"), t("mail.subject"), t("mail.status"), t("mail.when")], rows, t("mail.none"), sandbox ? t("mail.outbox") : t("mail.sent"))}</section>`;
}
