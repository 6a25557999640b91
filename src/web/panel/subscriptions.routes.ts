import type { FastifyInstance } from "fastify";
import { CreatePlanBody } from "../../modules/subscriptions/plans.schemas.js";
import { SUBSCRIPTION_STATUSES } from "../../modules/subscriptions/subscription-status.js";
import { CancelBody, ListSubscriptionsQuery } from "../../modules/subscriptions/subscriptions.schemas.js";
import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, integer, text } from "./forms.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { actionButton, badge, csrfInput, cursorPager, dl, field, formErrors, link, numberPager, select, table } from "./ui.js";

// Subscriptions: plans (create, archive), subscriptions with the API's filters and search, and
// one subscription with its invoices (a period each) and their payment attempts, and the
// cancel (now or at the period's end), pause and resume actions.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;

function planForm(p: PanelCtx, errors?: FieldErrors, v: Record<string, unknown> = {}): string {
  const { t } = p;
  return `<section class="card" aria-labelledby="np"><h2 id="np">${esc(t("sub.newPlan"))}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/subscriptions/plans">${csrfInput(p)}<div class="grid2">
${field({ name: "name", label: t("col.name"), value: v.name, errors, required: true, prefix: "plan" })}
${field({ name: "price", label: t("sub.price"), value: v.price, errors, required: true, attrs: 'inputmode="decimal"', prefix: "plan" })}
${field({ name: "currency", label: t("home.currency"), value: v.currency ?? "BRL", errors, required: true, prefix: "plan" })}
${select({ name: "interval", label: t("sub.interval"), value: v.interval ?? "month", errors, prefix: "plan", options: (["day", "week", "month", "year"] as const).map((i): [string, string] => [i, t(`sub.every.${i}`)]) })}
${field({ name: "intervalCount", label: t("sub.intervalCount"), type: "number", value: v.intervalCount ?? "1", errors, prefix: "plan", attrs: 'min="1" max="12"' })}
${field({ name: "trialDays", label: t("sub.trialDays"), type: "number", value: v.trialDays ?? "0", errors, prefix: "plan", attrs: 'min="0"' })}
</div>${field({ name: "description", label: t("dev.description"), value: v.description, errors, prefix: "plan" })}
<button type="submit" class="primary">${esc(t("sub.createPlan"))}</button></form></section>`;
}

export function subscriptionRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const { service: subs, plans } = services.subscriptions;

  async function listPage(p: PanelCtx, q: Query, errors?: FieldErrors, values?: Record<string, unknown>) {
    const { t } = p;
    const query = compact({ status: q.status || undefined, search: q.search || undefined, customerId: q.customerId || undefined, page: integer(q, "page") ?? 1, limit: 20 });
    const filterErrors = checkBody(ListSubscriptionsQuery, query, t) ?? undefined;
    const list = filterErrors ? { data: [], meta: { page: 1, totalPages: 0, total: 0 } } : await subs.list(p.ctx, query as Parameters<typeof subs.list>[1]);
    const planPage = await plans.list(p.ctx, compact({ limit: 50, startingAfter: q.plansAfter || undefined }));
    const planRows = planPage.data.map((pl) => [
      esc(pl.name), esc(p.units(pl.price, pl.currency)), esc(t("sub.cadence", { n: pl.intervalCount, interval: t(`sub.every.${pl.interval}`) })),
      pl.archived ? badge("archived", t("sub.archived")) : badge("active", t("sub.available")),
      pl.archived ? "" : actionButton(p, `/panel/subscriptions/plans/${pl.id}/archive`, t("sub.archive")),
    ]);
    const rows = list.data.map((s) => [link(`/panel/subscriptions/${s.id}`, s.customer.name || s.id), esc(s.customer.email ?? "—"), esc(s.plan.name), badge(s.status, t(`sub.${s.status}`)), esc(p.date(s.currentPeriodEnd, false))]);
    return `<section class="card" aria-labelledby="pl"><h2 id="pl">${esc(t("sub.plans"))}</h2>${table([t("col.name"), t("sub.price"), t("sub.interval"), t("col.status"), t("col.actions")], planRows, t("sub.noPlans"))}
${cursorPager(p, "/panel/subscriptions", { startingAfter: q.plansAfter }, planPage).replace(/startingAfter=/g, "plansAfter=")}</section>
${planForm(p, errors, values)}
<form method="get" action="/panel/subscriptions" class="filters" role="search">
${field({ name: "search", label: t("charges.search"), value: q.search, errors: filterErrors, hint: t("sub.searchHint") })}
${select({ name: "status", label: t("col.status"), value: q.status, errors: filterErrors, options: [["", t("filter.any")], ...SUBSCRIPTION_STATUSES.map((s): [string, string] => [s, t(`sub.${s}`)])] })}
${field({ name: "customerId", label: t("charges.customerId"), value: q.customerId, errors: filterErrors })}
<div class="actions"><button type="submit" class="primary">${esc(t("filter.apply"))}</button> ${link("/panel/subscriptions", t("filter.clear"))}</div></form>${formErrors(p, filterErrors)}
<section class="card" aria-labelledby="sl"><h2 id="sl">${esc(t("sub.list", { n: list.meta.total }))}</h2>
${table([t("col.customer"), t("col.email"), t("sub.plan"), t("col.status"), t("sub.periodEnd")], rows, t("sub.empty"))}
${numberPager(p, "/panel/subscriptions", q, list.meta.page, list.meta.totalPages)}</section>`;
  }

  const page = (p: PanelCtx, title: string, body: string, path: string) => renderPage(p, { title, area: "subscriptions", body, path });

  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>("/panel/subscriptions", hidden, async (req, reply) => {
      const p = req.panel!;
      return kit.html(reply, page(p, p.t("nav.subscriptions"), await listPage(p, req.query), "/panel/subscriptions"));
    });

    app.post("/panel/subscriptions/plans", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const input = compact({
        name: text(form, "name") ?? "", description: text(form, "description"), price: amount(form, "price") ?? "",
        currency: (text(form, "currency") ?? "").toUpperCase(), interval: text(form, "interval") ?? "",
        intervalCount: integer(form, "intervalCount"), trialDays: integer(form, "trialDays"),
      });
      let errors = checkBody(CreatePlanBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => plans.create(p.ctx, input as Parameters<typeof plans.create>[1]), p.t, { name: "", price: "", currency: "", interval: "", intervalCount: "", trialDays: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/subscriptions", { notice: p.t("sub.planCreated", { name: String(input.name) }) });
        errors = done.errors;
      }
      return kit.html(reply, page(p, p.t("nav.subscriptions"), await listPage(p, {}, errors, form), "/panel/subscriptions"), 422);
    });

    app.post<{ Params: { id: string } }>("/panel/subscriptions/plans/:id/archive", hidden, async (req, reply) => {
      const p = req.panel!;
      const done = await attempt(() => plans.archive(p.ctx, req.params.id), p.t);
      return kit.redirect(reply, p, "/panel/subscriptions", { notice: done.ok ? p.t("sub.planArchived") : Object.values(done.errors)[0] });
    });

    app.get<{ Params: { id: string } }>("/panel/subscriptions/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const found = await attempt(() => subs.get(p.ctx, req.params.id), t);
      if (!found.ok) return kit.html(reply, page(p, t("notFound.title"), `<p>${esc(t("notFound.generic"))}</p>`, "/panel/subscriptions"), 404);
      const s = found.value;
      // Invoices: one per period, each with the attempts (charges) made to collect it.
      const periods = new Map<string, typeof s.charges>();
      for (const c of s.charges) periods.set(c.periodStart, [...(periods.get(c.periodStart) ?? []), c]);
      const invoices = [...periods].map(([start, attempts]) => `<li><strong>${esc(p.date(start, false))} – ${esc(p.date(attempts[0]!.periodEnd, false))}</strong><ul>${attempts.map((a) =>
        `<li>${esc(t("timeline.attempt", { n: a.attempt }))}: ${link(`/panel/charges/${a.chargeId}`, a.chargeId)} ${badge(a.status, t(`status.${a.status}`))}${a.reason ? ` ${esc(a.reason)}` : ""} · ${esc(p.date(a.createdAt))}</li>`).join("")}</ul></li>`).join("");
      const base = `/panel/subscriptions/${s.id}`;
      const actions = [
        s.status === "active" ? actionButton(p, `${base}/pause`, t("sub.pause")) : "",
        s.status === "paused" ? actionButton(p, `${base}/resume`, t("sub.resume")) : "",
        s.status === "active" && !s.cancelAtPeriodEnd ? actionButton(p, `${base}/cancel`, t("sub.cancelAtEnd"), { hidden: { when: "period_end" } }) : "",
        s.status !== "cancelled" && s.status !== "expired" ? actionButton(p, `${base}/cancel`, t("sub.cancelNow"), { hidden: { when: "now" }, danger: true, confirm: t("sub.cancelConfirm") }) : "",
      ].join("");
      const body = `<p>${link("/panel/subscriptions", t("sub.back"))}</p>
<section class="card" aria-labelledby="sd"><h2 id="sd">${esc(t("charges.summary"))}</h2>${dl([
        [t("col.status"), `${badge(s.status, t(`sub.${s.status}`))}${s.cancelAtPeriodEnd ? ` ${esc(t("sub.endsAtPeriodEnd"))}` : ""}`],
        [t("col.customer"), s.customerId ? link(`/panel/customers/${s.customerId}`, s.customer.name) : esc(s.customer.name)], [t("sub.plan"), `${esc(s.plan.name)} · ${esc(p.units(s.plan.price, s.plan.currency))}`],
        [t("sub.period"), `${esc(p.date(s.currentPeriodStart, false))} – ${esc(p.date(s.currentPeriodEnd, false))}`], [t("sub.nextBilling"), esc(p.date(s.nextBillingAt))],
        [t("sub.trialEnd"), esc(p.date(s.trialEnd, false))], [t("col.created"), esc(p.date(s.createdAt))],
        ...(s.unpaidInvoice ? [[t("sub.unpaid"), esc(`${p.units(s.unpaidInvoice.amount, s.plan.currency)} · ${t("sub.attempts", { n: s.unpaidInvoice.attempts })}`)] as [string, string]] : []),
      ])}<div class="button-row">${actions}</div></section>
<section class="card" aria-labelledby="inv"><h2 id="inv">${esc(t("sub.invoices"))}</h2>${invoices ? `<ol class="timeline">${invoices}</ol>` : `<p class="empty">${esc(t("sub.noInvoices"))}</p>`}</section>`;
      return kit.html(reply, page(p, `${t("sub.subscription")} ${s.id}`, body, base));
    });

    app.post<{ Params: { id: string; action: string } }>("/panel/subscriptions/:id/:action", hidden, async (req, reply) => {
      const p = req.panel!;
      const { id, action } = req.params;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const base = `/panel/subscriptions/${id}`;
      let run: (() => Promise<unknown>) | undefined;
      if (action === "pause") run = () => subs.pause(p.ctx, id);
      if (action === "resume") run = () => subs.resume(p.ctx, id);
      if (action === "cancel") {
        const body = { atPeriodEnd: form.when === "period_end" };
        if (checkBody(CancelBody, body, p.t)) return reply.callNotFound();
        if (!body.atPeriodEnd && form.confirm !== "on") return kit.redirect(reply, p, base, { notice: p.t("sub.notConfirmed") });
        run = () => subs.cancel(p.ctx, id, body);
      }
      if (!run) return reply.callNotFound();
      const done = await attempt(run, p.t);
      return kit.redirect(reply, p, base, { notice: done.ok ? p.t(`sub.done.${action}` as Parameters<typeof p.t>[0]) : Object.values(done.errors)[0] });
    });
  };
}
