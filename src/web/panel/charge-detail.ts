import type { RefundService, toChargeResponse } from "../../modules/charges/index.js";
import type { EventService } from "../../modules/webhooks/events.service.js";
import { toCustomer } from "../../modules/customers/customers.service.js";
import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { formatDocument } from "./format.js";
import { actionButton, badge, checkbox, csrfInput, dl, field, formErrors, link, table } from "./ui.js";

/** A charge as the API answers it, which is what the panel shows. */
export type ChargeView = ReturnType<typeof toChargeResponse>;

// One charge: its facts, the refund form (full or partial; in production with an explicit
// confirmation), the sandbox simulator's actions that apply to its status, and the timeline of
// its status changes, events and webhook deliveries with the receivers' answers.

export type Timeline = Awaited<ReturnType<EventService["get"]>>[];
export type RefundList = Awaited<ReturnType<RefundService["list"]>>;

/** The charge's refunds with their status now (a live refund may wait at the processor, then succeed or fail). */
function renderRefunds(p: PanelCtx, refunds: RefundList): string {
  const { t } = p;
  const rows = refunds.data.map((r) => [esc(r.id), esc(p.units(r.amount, r.currency)), badge(r.status, t(`refundStatus.${r.status}`)), esc(p.date(r.createdAt))]);
  return `<section aria-labelledby="refunds-title" class="card"><h2 id="refunds-title">${esc(t("refunds.title"))}</h2>
${table([t("col.id"), t("col.amount"), t("col.status"), t("col.created")], rows, t("refunds.none"))}</section>`;
}

function refundForm(p: PanelCtx, c: ChargeView, errors?: FieldErrors, values?: Record<string, unknown>): string {
  const { t } = p;
  if (c.status !== "paid") return "";
  const left = Math.round((c.amount - c.amountRefunded) * 1e6) / 1e6;
  const partial = values?.mode === "partial";
  const production = p.ctx.environment === "production";
  return `<section aria-labelledby="refund-title" class="card"><h2 id="refund-title">${esc(t("refund.title"))}</h2>
${formErrors(p, errors)}
<form method="post" action="/panel/charges/${esc(c.id)}/refund">${csrfInput(p)}
<fieldset><legend>${esc(t("refund.how"))}</legend>
<div class="check"><input type="radio" id="refund-full" name="mode" value="full"${partial ? "" : " checked"}><label for="refund-full">${esc(t("refund.full", { amount: p.units(left, c.currency) }))}</label></div>
<div class="check"><input type="radio" id="refund-partial" name="mode" value="partial"${partial ? " checked" : ""}><label for="refund-partial">${esc(t("refund.partial"))}</label></div>
</fieldset>
${field({ name: "amount", label: t("refund.amount", { currency: c.currency }), value: values?.amount, errors, attrs: 'inputmode="decimal"', hint: t("refund.amountHint") })}
${production ? checkbox({ name: "confirm", label: t("confirm.refund"), required: false }) + (errors?.confirm ? `<p class="error" id="f-confirm-error">${esc(errors.confirm)}</p>` : "") : ""}
<button type="submit" class="danger">${esc(t("refund.submit"))}</button>
</form></section>`;
}

function sandboxActions(p: PanelCtx, c: ChargeView): string {
  if (p.ctx.environment !== "sandbox") return "";
  const { t } = p;
  const act = (action: string, key: Parameters<typeof t>[0]) => actionButton(p, `/panel/charges/${c.id}/sandbox/${action}`, t(key));
  const payerPaid = c.paymentMethod.type !== "credit_card";
  const buttons = [
    c.status === "pending" && payerPaid ? act("pay", "sandbox.pay") + act("expire", "sandbox.expire") : "",
    c.status === "authentication_required" ? act("3ds-succeeded", "sandbox.3dsOk") + act("3ds-failed", "sandbox.3dsFail") : "",
    c.status === "in_analysis" ? act("review-approved", "sandbox.approve") + act("review-rejected", "sandbox.reject") : "",
  ].join("");
  if (!buttons) return "";
  return `<section aria-labelledby="sim-title" class="card"><h2 id="sim-title">${esc(t("sandbox.title"))}</h2><p>${esc(t("sandbox.hint"))}</p><div class="button-row">${buttons}</div></section>`;
}

function renderTimeline(p: PanelCtx, c: ChargeView, events: Timeline): string {
  const { t } = p;
  const steps: { at: string; html: string }[] = [{ at: c.createdAt, html: esc(t("timeline.created")) }];
  if (c.paidAt) steps.push({ at: c.paidAt, html: esc(t("timeline.paid")) });
  if (c.status !== "paid" && c.status !== "pending") steps.push({ at: c.updatedAt, html: `${esc(t("timeline.now"))} ${badge(c.status, t(`status.${c.status}`))}${c.failureReason ? ` (${esc(c.failureReason)})` : ""}` });
  for (const e of events) {
    const deliveries = e.deliveries.map((d) => {
      const attempts = d.attempts.map((a) => `<li>${esc(t("timeline.attempt", { n: a.attempt }))} · ${esc(p.date(a.startedAt))} · ${a.responseStatus ? `HTTP ${a.responseStatus}` : esc(a.error ?? "—")}${a.responseExcerpt ? `<pre>${esc(a.responseExcerpt)}</pre>` : ""}</li>`).join("");
      return `<li>${badge(d.status, t(`delivery.${d.status}`))} <span class="url">${esc(d.url)}</span>${attempts ? `<ul>${attempts}</ul>` : ""}</li>`;
    }).join("");
    steps.push({ at: e.createdAt, html: `${esc(t("timeline.event"))} <code>${esc(e.type)}</code> ${link(`/panel/developers/events/${e.id}`, e.id)}${deliveries ? `<ul class="deliveries">${deliveries}</ul>` : `<p class="muted">${esc(t("timeline.noDelivery"))}</p>`}` });
  }
  steps.sort((a, b) => a.at.localeCompare(b.at));
  return `<section aria-labelledby="tl-title" class="card"><h2 id="tl-title">${esc(t("timeline.title"))}</h2><ol class="timeline">${steps.map((s) => `<li><time datetime="${esc(s.at)}">${esc(p.date(s.at))}</time> ${s.html}</li>`).join("")}</ol></section>`;
}

export function renderChargeDetail(
  p: PanelCtx, c: ChargeView, customer: ReturnType<typeof toCustomer> | null, events: Timeline, refunds: RefundList,
  errors?: FieldErrors, values?: Record<string, unknown>,
): string {
  const { t } = p;
  const facts = dl([
    [t("col.status"), badge(c.status, t(`status.${c.status}`))],
    [t("col.amount"), esc(p.units(c.amount, c.currency))],
    [t("charges.refunded"), esc(p.units(c.amountRefunded, c.currency))],
    [t("charges.fees"), esc(p.units(c.spread, c.currency))],
    [t("charges.net"), esc(p.units(c.net, c.currency))],
    [t("col.method"), esc(t(`method.${c.paymentMethod.type}`))],
    [t("col.customer"), customer ? `${link(`/panel/customers/${customer.id}`, customer.name)} ${customer.email ? `&lt;${esc(customer.email)}&gt;` : ""} ${esc(formatDocument(customer.documentType, customer.documentId))}` : "—"],
    [t("col.created"), esc(p.date(c.createdAt))],
    [t("charges.paidAt"), esc(p.date(c.paidAt))],
    ...(c.paymentLinkId ? [[t("nav.links"), link(`/panel/links/${c.paymentLinkId}`, c.paymentLinkId)] as [string, string]] : []),
    ...(c.failureReason ? [[t("charges.reason"), esc(c.failureReason)] as [string, string]] : []),
  ]);
  const items = Array.isArray(c.items) && c.items.length > 0
    ? table([t("col.item"), t("col.quantity")], (c.items as { title?: string; name?: string; quantity?: number }[]).map((i) => [esc(i.title ?? i.name ?? ""), esc(i.quantity ?? 1)]), "")
    : "";
  return `<p>${link("/panel/charges", t("charges.back"))}</p>
<section class="card" aria-labelledby="facts-title"><h2 id="facts-title">${esc(t("charges.summary"))}</h2>${facts}${items}</section>
${refundForm(p, c, errors, values)}
${refunds.data.length > 0 ? renderRefunds(p, refunds) : ""}
${sandboxActions(p, c)}
${errors && !values ? formErrors(p, errors) : ""}
${renderTimeline(p, c, events)}`;
}
