import { SUBSCRIPTION_STATUSES } from "../../../modules/subscriptions/subscription-status.js";
import type { SubscriptionService } from "../../../modules/subscriptions/subscriptions.service.js";
import type { PlanService } from "../../../modules/subscriptions/plans.service.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { actionButton, badge, csrfInput, cursorPager, dl, field, formErrors, link, numberPager, select, table } from "../ui.js";

// Subscriptions: plans (create, archive), subscriptions with the API's filters and search, and
// one subscription with its invoices (a period each) and their payment attempts, its Pix
// Automático mandate, and the cancel (now or at the period's end), pause and resume actions.

type Query = Record<string, string | undefined>;
type SubscriptionList = Awaited<ReturnType<SubscriptionService["list"]>>;
type PlanPage = Awaited<ReturnType<PlanService["list"]>>;
type Subscription = Awaited<ReturnType<SubscriptionService["get"]>>;

function planForm(p: PanelCtx, errors?: FieldErrors, v: Record<string, unknown> = {}): Html {
  const { t } = p;
  return html`<section class="card" aria-labelledby="np"><h2 id="np">${t("sub.newPlan")}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/subscriptions/plans">${csrfInput(p)}<div class="grid2">
${field({ name: "name", label: t("col.name"), value: v.name, errors, required: true, prefix: "plan" })}
${field({ name: "price", label: t("sub.price"), value: v.price, errors, required: true, attrs: { inputmode: "decimal" }, prefix: "plan" })}
${field({ name: "currency", label: t("home.currency"), value: v.currency ?? "BRL", errors, required: true, prefix: "plan" })}
${select({ name: "interval", label: t("sub.interval"), value: v.interval ?? "month", errors, prefix: "plan", options: (["day", "week", "month", "year"] as const).map((i): [string, string] => [i, t(`sub.every.${i}`)]) })}
${field({ name: "intervalCount", label: t("sub.intervalCount"), type: "number", value: v.intervalCount ?? "1", errors, prefix: "plan", attrs: { min: 1, max: 12 } })}
${field({ name: "trialDays", label: t("sub.trialDays"), type: "number", value: v.trialDays ?? "0", errors, prefix: "plan", attrs: { min: 0 } })}
</div>${field({ name: "description", label: t("dev.description"), value: v.description, errors, prefix: "plan" })}
<button type="submit" class="primary">${t("sub.createPlan")}</button></form></section>`;
}

export function subscriptionsPage(p: PanelCtx, o: { q: Query; filterErrors?: FieldErrors; list: { data: SubscriptionList["data"]; meta: { page: number; totalPages: number; total: number } }; plans: PlanPage; errors?: FieldErrors; values?: Record<string, unknown> }): Html {
  const { t } = p;
  const { q, filterErrors, list } = o;
  const planRows = o.plans.data.map((pl) => [
    pl.name, p.units(pl.price, pl.currency), t("sub.cadence", { n: pl.intervalCount, interval: t(`sub.every.${pl.interval}`) }),
    pl.archived ? badge("archived", t("sub.archived")) : badge("active", t("sub.available")),
    !pl.archived && actionButton(p, `/panel/subscriptions/plans/${pl.id}/archive`, t("sub.archive")),
  ]);
  const rows = list.data.map((s) => [link(`/panel/subscriptions/${s.id}`, s.customer.name || s.id), s.customer.email ?? "—", s.plan.name, badge(s.status, t(`sub.${s.status}`)), p.date(s.currentPeriodEnd, false)]);
  return html`<section class="card" aria-labelledby="pl"><h2 id="pl">${t("sub.plans")}</h2>${table([t("col.name"), t("sub.price"), t("sub.interval"), t("col.status"), t("col.actions")], planRows, t("sub.noPlans"))}
${cursorPager(p, "/panel/subscriptions", { startingAfter: q.plansAfter }, o.plans, "plansAfter")}</section>
${planForm(p, o.errors, o.values)}
<form method="get" action="/panel/subscriptions" class="filters" role="search">
${field({ name: "search", label: t("charges.search"), value: q.search, errors: filterErrors, hint: t("sub.searchHint") })}
${select({ name: "status", label: t("col.status"), value: q.status, errors: filterErrors, options: [["", t("filter.any")], ...SUBSCRIPTION_STATUSES.map((s): [string, string] => [s, t(`sub.${s}`)])] })}
${field({ name: "customerId", label: t("charges.customerId"), value: q.customerId, errors: filterErrors })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button> ${link("/panel/subscriptions", t("filter.clear"))}</div></form>${formErrors(p, filterErrors)}
<section class="card" aria-labelledby="sl"><h2 id="sl">${t("sub.list", { n: list.meta.total })}</h2>
${table([t("col.customer"), t("col.email"), t("sub.plan"), t("col.status"), t("sub.periodEnd")], rows, t("sub.empty"))}
${numberPager(p, "/panel/subscriptions", q, list.meta.page, list.meta.totalPages)}</section>`;
}

/**
 * A Pix Automático subscription's mandate: what the payer authorized and, while it waits for
 * them, the QR code to send them (`qr`, drawn from its code by qrFigure; null once answered).
 */
function mandateSection(p: PanelCtx, m: NonNullable<Subscription["mandate"]>, qr: Html | null): Html {
  const { t } = p;
  const pending = qr && html`${qr}
<div class="field"><label for="mandate-qr">${t("sub.mandateQr")}</label><input id="mandate-qr" type="text" readonly value="${m.qrCode}"></div>
<p><button type="button" class="copy" data-copy="${m.qrCode}">${t("action.copy")}</button></p>`;
  return html`<section class="card" aria-labelledby="md"><h2 id="md">${t("sub.mandate")}</h2>${dl([
    [t("col.status"), badge(m.status, t(`sub.mandate.${m.status}`))], [t("sub.mandateId"), m.id],
    [t("sub.journey"), t(`sub.journey.${m.journey}`)], [t("sub.maxAmount"), p.units(m.maxAmount, m.currency)],
    [t("sub.retryPolicy"), t(`sub.retry.${m.retryPolicy}`)],
    ...(m.status === "pending" ? [[t("sub.mandateExpires"), p.date(m.expiresAt)] as [string, string]] : []),
    ...(m.cancelledBy ? [[t("sub.cancelledBy"), t(`sub.by.${m.cancelledBy}`)] as [string, string]] : []),
  ])}${pending}</section>`;
}

export function subscriptionPage(p: PanelCtx, s: Subscription, mandateQr: Html | null = null): Html {
  const { t } = p;
  // Invoices: one per period, each with the attempts (charges) made to collect it.
  const periods = new Map<string, typeof s.charges>();
  for (const c of s.charges) periods.set(c.periodStart, [...(periods.get(c.periodStart) ?? []), c]);
  const invoices = [...periods].map(([start, attempts]) => html`<li><strong>${p.date(start, false)} – ${p.date(attempts[0]!.periodEnd, false)}</strong><ul>${attempts.map((a) =>
    html`<li>${t("timeline.attempt", { n: a.attempt })}: ${link(`/panel/charges/${a.chargeId}`, a.chargeId)} ${badge(a.status, t(`status.${a.status}`))}${a.reason && ` ${t(`reason.${a.reason}`)}`} · ${p.date(a.createdAt)}</li>`)}</ul></li>`);
  const base = `/panel/subscriptions/${s.id}`;
  const actions = [
    s.status === "active" && actionButton(p, `${base}/pause`, t("sub.pause")),
    s.status === "paused" && actionButton(p, `${base}/resume`, t("sub.resume")),
    s.status === "active" && !s.cancelAtPeriodEnd && actionButton(p, `${base}/cancel`, t("sub.cancelAtEnd"), { hidden: { when: "period_end" } }),
    s.status !== "cancelled" && s.status !== "expired" && actionButton(p, `${base}/cancel`, t("sub.cancelNow"), { hidden: { when: "now" }, danger: true, confirm: t("sub.cancelConfirm") }),
  ];
  return html`<p>${link("/panel/subscriptions", t("sub.back"))}</p>
<section class="card" aria-labelledby="sd"><h2 id="sd">${t("charges.summary")}</h2>${dl([
    [t("col.status"), html`${badge(s.status, t(`sub.${s.status}`))}${s.cancelAtPeriodEnd && ` ${t("sub.endsAtPeriodEnd")}`}`],
    [t("col.customer"), s.customerId ? link(`/panel/customers/${s.customerId}`, s.customer.name) : s.customer.name], [t("sub.plan"), `${s.plan.name} · ${p.units(s.plan.price, s.plan.currency)}`],
    [t("sub.period"), `${p.date(s.currentPeriodStart, false)} – ${p.date(s.currentPeriodEnd, false)}`], [t("sub.nextBilling"), p.date(s.nextBillingAt)],
    [t("sub.trialEnd"), p.date(s.trialEnd, false)], [t("col.created"), p.date(s.createdAt)],
    ...(s.unpaidInvoice ? [[t("sub.unpaid"), `${p.units(s.unpaidInvoice.amount, s.plan.currency)} · ${t("sub.attempts", { n: s.unpaidInvoice.attempts })}`] as [string, string]] : []),
  ])}<div class="button-row">${actions}</div></section>
${s.mandate && mandateSection(p, s.mandate, mandateQr)}
<section class="card" aria-labelledby="inv"><h2 id="inv">${t("sub.invoices")}</h2>${invoices.length > 0 ? html`<ol class="timeline">${invoices}</ol>` : html`<p class="empty">${t("sub.noInvoices")}</p>`}</section>`;
}
