import type { RefundService } from "../../../modules/charges/index.js";
import type { toCustomer } from "../../../modules/customers/customers.service.js";
import type { EventService } from "../../../modules/webhooks/events.service.js";
import { html, type Html, type HtmlValue } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { formatDocument } from "../format.js";
import { actionButton, badge, checkbox, csrfInput, dl, field, fieldError, formErrors, link, table } from "../ui.js";
import type { ChargeView } from "./charges.js";

// One charge: its facts, the refund form (full or partial; in production with an explicit
// confirmation), the sandbox simulator's actions that apply to its status, and the timeline of
// its status changes, events and webhook deliveries with the receivers' answers.

export type Timeline = Awaited<ReturnType<EventService["get"]>>[];
export type RefundList = Awaited<ReturnType<RefundService["list"]>>;

/** The charge's refunds with their status now (a live refund may wait at the processor, then succeed or fail). */
function renderRefunds(p: PanelCtx, refunds: RefundList): Html {
  const { t } = p;
  const rows = refunds.data.map((r) => [r.id, p.units(r.amount, r.currency), badge(r.status, t(`refundStatus.${r.status}`)), p.date(r.createdAt)]);
  return html`<section aria-labelledby="refunds-title" class="card"><h2 id="refunds-title">${t("refunds.title")}</h2>
${table([t("col.id"), t("col.amount"), t("col.status"), t("col.created")], rows, t("refunds.none"))}</section>`;
}

function refundForm(p: PanelCtx, c: ChargeView, errors?: FieldErrors, values?: Record<string, unknown>): Html | "" {
  const { t } = p;
  if (c.status !== "paid") return "";
  const left = Math.round((c.amount - c.amountRefunded) * 1e6) / 1e6;
  const partial = values?.mode === "partial";
  const production = p.ctx.environment === "production";
  return html`<section aria-labelledby="refund-title" class="card"><h2 id="refund-title">${t("refund.title")}</h2>
${formErrors(p, errors)}
<form method="post" action="/panel/charges/${c.id}/refund">${csrfInput(p)}
<fieldset><legend>${t("refund.how")}</legend>
<div class="check"><input type="radio" id="refund-full" name="mode" value="full"${!partial && html` checked`}><label for="refund-full">${t("refund.full", { amount: p.units(left, c.currency) })}</label></div>
<div class="check"><input type="radio" id="refund-partial" name="mode" value="partial"${partial && html` checked`}><label for="refund-partial">${t("refund.partial")}</label></div>
</fieldset>
${field({ name: "amount", label: t("refund.amount", { currency: c.currency }), value: values?.amount, errors, attrs: { inputmode: "decimal" }, hint: t("refund.amountHint") })}
${production && html`${checkbox({ name: "confirm", label: t("confirm.refund"), required: false })}${fieldError(errors?.confirm, "f-confirm-error")}`}
<button type="submit" class="danger">${t("refund.submit")}</button>
</form></section>`;
}

function sandboxActions(p: PanelCtx, c: ChargeView): Html | "" {
  if (p.ctx.environment !== "sandbox") return "";
  const { t } = p;
  const act = (action: string, key: Parameters<typeof t>[0]) => actionButton(p, `/panel/charges/${c.id}/sandbox/${action}`, t(key));
  const payerPaid = c.paymentMethod.type !== "credit_card";
  const buttons = [
    c.status === "pending" && payerPaid && [act("pay", "sandbox.pay"), act("expire", "sandbox.expire")],
    c.status === "authentication_required" && [act("3ds-succeeded", "sandbox.3dsOk"), act("3ds-failed", "sandbox.3dsFail")],
    c.status === "in_analysis" && [act("review-approved", "sandbox.approve"), act("review-rejected", "sandbox.reject")],
    // The payer's bank disputing it (disputes.routes.ts): a card's chargeback, a Pix MED.
    c.status === "paid" && (c.paymentMethod.type === "credit_card" || c.paymentMethod.type === "pix") && act("dispute", "dispute.open"),
  ].filter((b) => b !== false);
  if (buttons.length === 0) return "";
  return html`<section aria-labelledby="sim-title" class="card"><h2 id="sim-title">${t("sandbox.title")}</h2><p>${t("sandbox.hint")}</p><div class="button-row">${buttons}</div></section>`;
}

function renderTimeline(p: PanelCtx, c: ChargeView, events: Timeline): Html {
  const { t } = p;
  const steps: { at: string; html: HtmlValue }[] = [{ at: c.createdAt, html: t("timeline.created") }];
  if (c.paidAt) steps.push({ at: c.paidAt, html: t("timeline.paid") });
  if (c.status !== "paid" && c.status !== "pending") steps.push({ at: c.updatedAt, html: html`${t("timeline.now")} ${badge(c.status, t(`status.${c.status}`))}${c.failureReason && html` (${t(`reason.${c.failureReason}`)})`}` });
  for (const e of events) {
    const deliveries = e.deliveries.map((d) => {
      const attempts = d.attempts.map((a) => html`<li>${t("timeline.attempt", { n: a.attempt })} · ${p.date(a.startedAt)} · ${a.responseStatus ? `HTTP ${a.responseStatus}` : a.error ?? "—"}${a.responseExcerpt && html`<pre>${a.responseExcerpt}</pre>`}</li>`);
      return html`<li>${badge(d.status, t(`delivery.${d.status}`))} <span class="url">${d.url}</span>${attempts.length > 0 && html`<ul>${attempts}</ul>`}</li>`;
    });
    steps.push({ at: e.createdAt, html: html`${t("timeline.event")} <code>${e.type}</code> ${link(`/panel/developers/events/${e.id}`, e.id)}${deliveries.length > 0 ? html`<ul class="deliveries">${deliveries}</ul>` : html`<p class="muted">${t("timeline.noDelivery")}</p>`}` });
  }
  steps.sort((a, b) => a.at.localeCompare(b.at));
  return html`<section aria-labelledby="tl-title" class="card"><h2 id="tl-title">${t("timeline.title")}</h2><ol class="timeline">${steps.map((s) => html`<li><time datetime="${s.at}">${p.date(s.at)}</time> ${s.html}</li>`)}</ol></section>`;
}

export function renderChargeDetail(
  p: PanelCtx, c: ChargeView, customer: ReturnType<typeof toCustomer> | null, events: Timeline, refunds: RefundList,
  errors?: FieldErrors, values?: Record<string, unknown>,
): Html {
  const { t } = p;
  const buyer = customer && html`${link(`/panel/customers/${customer.id}`, customer.name)} ${customer.email && html`&lt;${customer.email}&gt;`} ${formatDocument(customer.documentType, customer.documentId)}`;
  const facts = dl([
    [t("col.status"), badge(c.status, t(`status.${c.status}`))],
    [t("col.amount"), p.units(c.amount, c.currency)],
    [t("charges.refunded"), p.units(c.amountRefunded, c.currency)],
    [t("charges.fees"), p.units(c.spread, c.currency)],
    [t("charges.net"), p.units(c.net, c.currency)],
    [t("col.method"), t(`method.${c.paymentMethod.type}`)],
    [t("col.customer"), buyer || "—"],
    [t("col.created"), p.date(c.createdAt)],
    [t("charges.paidAt"), p.date(c.paidAt)],
    ...(c.paymentLinkId ? [[t("nav.links"), link(`/panel/links/${c.paymentLinkId}`, c.paymentLinkId)] as [string, Html]] : []),
    ...(c.failureReason ? [[t("charges.reason"), t(`reason.${c.failureReason}`)] as [string, string]] : []),
  ]);
  const items = Array.isArray(c.items) && c.items.length > 0
    && table([t("col.item"), t("col.quantity")], (c.items as { title?: string; name?: string; quantity?: number }[]).map((i) => [i.title ?? i.name ?? "", i.quantity ?? 1]), "");
  return html`<p>${link("/panel/charges", t("charges.back"))}</p>
<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">${t("charges.summary")}</h2>${facts}${items}</section>
${refundForm(p, c, errors, values)}
${refunds.data.length > 0 && renderRefunds(p, refunds)}
${sandboxActions(p, c)}
${errors && !values && formErrors(p, errors)}
${renderTimeline(p, c, events)}`;
}
