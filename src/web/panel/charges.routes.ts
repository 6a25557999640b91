import type { FastifyInstance } from "fastify";
import { CHARGE_STATUSES, ListChargesQuery, RefundBody, toChargeResponse } from "../../modules/charges/index.js";
import { toCustomer } from "../../modules/customers/customers.service.js";
import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact } from "./forms.js";
import { renderPage } from "./layout.js";
import { renderChargeDetail, type ChargeView, type Timeline } from "./charge-detail.js";

export type { ChargeView };
import type { PanelKit } from "./kit.js";
import { badge, cursorPager, field, formErrors, link, select, table } from "./ui.js";

// Charges: the list with the API's filters (status, method, customer, dates), search by id or
// e-mail, pagination, CSV export of the same filtered list, and the detail with its actions.

type Query = Record<string, string | undefined>;
const METHODS = ["credit_card", "debit_card", "pix", "boleto", "open_finance", "qr_code", "bank_transfer", "oxxo", "spei", "pse"];
const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };

export function chargeRow(p: PanelCtx, c: ChargeView): string[] {
  return [
    link(`/panel/charges/${c.id}`, c.id),
    badge(c.status, p.t(`status.${c.status}`)),
    esc(p.units(c.amount, c.currency)),
    esc(p.t(`method.${c.paymentMethod.type}`)),
    esc(p.date(c.createdAt)),
  ];
}

export function chargeTable(p: PanelCtx, rows: ChargeView[]): string {
  const { t } = p;
  return table([t("col.id"), t("col.status"), t("col.amount"), t("col.method"), t("col.created")], rows.map((c) => chargeRow(p, c)), t("charges.empty"));
}

/** The API's list query from the filter form, with date fields as whole UTC days. */
function listQuery(q: Query, customerId: string | undefined, limit: number) {
  return compact({
    limit,
    status: CHARGE_STATUSES.find((s) => s === q.status),
    paymentMethod: q.paymentMethod || undefined,
    customerId: customerId || undefined,
    createdGte: q.from ? `${q.from}T00:00:00.000Z` : undefined,
    createdLte: q.to ? `${q.to}T23:59:59.999Z` : undefined,
    startingAfter: q.startingAfter || undefined,
    endingBefore: q.endingBefore || undefined,
  });
}

export function chargeRoutes(kit: PanelKit) {
  const { services } = kit.deps;

  /**
   * Resolves the search box: an e-mail lists the charges of every customer with it (customers
   * created through POST /v1/customers may share one), not only the first one's.
   */
  async function resolve(p: PanelCtx, q: Query, limit: number) {
    const search = q.q?.trim();
    const customerEmail = search?.includes("@") ? search : undefined;
    const none = customerEmail ? (await services.customers.list(p.ctx, { email: customerEmail, limit: 1 })).data.length === 0 : false;
    const filters = listQuery(q, q.customerId, limit);
    const errors = checkBody(ListChargesQuery, filters, p.t);
    const renamed: FieldErrors | null = errors ? Object.fromEntries(Object.entries(errors).map(([k, v]) => [k === "createdGte" ? "from" : k === "createdLte" ? "to" : k, v])) : null;
    return { query: { ...filters, customerEmail }, errors: renamed, none };
  }

  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>("/panel/charges", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const q = req.query;
      const search = q.q?.trim();
      if (search && /^ch_[A-Za-z0-9]+$/.test(search)) return reply.redirect(`/panel/charges/${search}`, 303);
      const { query, errors, none } = await resolve(p, q, 20);
      const page = errors || none ? { data: [], hasMore: false } : await services.charges.list(p.ctx, query);
      const filters = `<form method="get" action="/panel/charges" class="filters" role="search">
${field({ name: "q", label: t("charges.search"), value: q.q, hint: t("charges.searchHint"), errors: errors ?? undefined })}
${select({ name: "status", label: t("col.status"), value: q.status, options: [["", t("filter.any")], ...CHARGE_STATUSES.map((s): [string, string] => [s, t(`status.${s}`)])], errors: errors ?? undefined })}
${select({ name: "paymentMethod", label: t("col.method"), value: q.paymentMethod, options: [["", t("filter.any")], ...METHODS.map((m): [string, string] => [m, t(`method.${m}`)])], errors: errors ?? undefined })}
${field({ name: "customerId", label: t("charges.customerId"), value: q.customerId, errors: errors ?? undefined })}
${field({ name: "from", label: t("filter.from"), type: "date", value: q.from, errors: errors ?? undefined })}
${field({ name: "to", label: t("filter.to"), type: "date", value: q.to, errors: errors ?? undefined })}
<div class="actions"><button type="submit" class="primary">${esc(t("filter.apply"))}</button> ${link("/panel/charges", t("filter.clear"))}</div>
</form>`;
      const exportQuery = new URLSearchParams(compact({ q: q.q, status: q.status, paymentMethod: q.paymentMethod, customerId: q.customerId, from: q.from, to: q.to }) as Record<string, string>);
      const body = `${filters}${formErrors(p, errors ?? undefined)}
<p class="toolbar"><a class="button" href="/panel/charges.csv?${esc(exportQuery.toString())}" download>${esc(t("charges.export"))}</a></p>
${none ? `<p class="empty">${esc(t("charges.noCustomer"))}</p>` : chargeTable(p, page.data)}
${cursorPager(p, "/panel/charges", q, page)}`;
      return kit.html(reply, renderPage(p, { title: t("nav.charges"), area: "charges", body, path: req.url }), errors ? 422 : 200);
    });

    // The filtered list as CSV, page by page through the same service (at most 10,000 rows).
    app.get<{ Querystring: Query }>("/panel/charges.csv", hidden, async (req, reply) => {
      const p = req.panel!;
      const { query, errors, none } = await resolve(p, { ...req.query, startingAfter: undefined, endingBefore: undefined }, 100);
      const cell = (v: unknown) => {
        let s = v === null || v === undefined ? "" : String(v);
        // A cell starting like a formula is not run by a spreadsheet (CSV injection).
        if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
        return /[",\n\r;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      };
      const lines = [["id", "status", "amount", "amount_refunded", "currency", "payment_method", "customer_id", "customer_name", "customer_email", "net", "created_at", "paid_at"].join(",")];
      let cursor: string | undefined;
      for (let i = 0; !errors && !none && i < 100; i++) {
        const page = await services.charges.list(p.ctx, { ...query, startingAfter: cursor });
        // The buyers of the page in one read: a spreadsheet of charges is read by who paid.
        const buyers = await services.customers.getMany(p.ctx, page.data.flatMap((c) => (c.customerId ? [c.customerId] : [])));
        for (const c of page.data) {
          const buyer = c.customerId ? buyers.get(c.customerId) : undefined;
          lines.push([c.id, c.status, c.amount, c.amountRefunded, c.currency, c.paymentMethod.type, c.customerId, buyer?.name, buyer?.email, c.net, c.createdAt, c.paidAt].map(cell).join(","));
        }
        if (!page.hasMore || page.data.length === 0) break;
        cursor = page.data[page.data.length - 1]!.id;
      }
      const name = `charges-${p.ctx.environment}-${new Date().toISOString().slice(0, 10)}.csv`;
      return reply.code(errors ? 422 : 200).header("cache-control", "no-store").header("content-disposition", `attachment; filename="${name}"`)
        .type("text/csv; charset=utf-8").send(`${lines.join("\r\n")}\r\n`);
    });

    async function timeline(p: PanelCtx, c: ChargeView): Promise<Timeline> {
      // The charge's events (charge.*, refunds included) among the first 100 since its creation.
      const page = await services.webhooks.events.list(p.ctx, { type: "charge.*", createdGte: c.createdAt, limit: 100 });
      // By id, not by created_at: the events of one change share its transaction's time, and
      // their ids are a millisecond apart in the order they were recorded (charge.created first).
      const events = page.data.filter((e) => e.objectId === c.id).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      return Promise.all(events.map((e) => services.webhooks.events.get(p.ctx, e.id)));
    }

    async function detail(p: PanelCtx, id: string, errors?: FieldErrors, values?: Record<string, unknown>) {
      const row = await services.charges.get(p.ctx, id);
      const charge = toChargeResponse(row);
      // The customer as the buyer typed it for this charge: a customer found again by e-mail
      // keeps its first name, the charge shows the one typed for it.
      const customer = charge.customerId ? toCustomer({ ...(await services.customers.get(p.ctx, charge.customerId)), ...row.buyer }) : null;
      const body = renderChargeDetail(p, charge, customer, await timeline(p, charge), await services.refunds.list(p.ctx, id), errors, values);
      return renderPage(p, { title: `${p.t("charges.charge")} ${charge.id}`, area: "charges", body, path: `/panel/charges/${id}` });
    }

    app.get<{ Params: { id: string } }>("/panel/charges/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      const found = await attempt(() => detail(p, req.params.id), p.t);
      if (!found.ok) return kit.html(reply, renderPage(p, { title: p.t("notFound.title"), area: "charges", body: `<p>${esc(p.t("notFound.charge"))}</p><p>${link("/panel/charges", p.t("nav.charges"))}</p>`, path: "/panel/charges" }), 404);
      return kit.html(reply, found.value);
    });

    app.post<{ Params: { id: string } }>("/panel/charges/:id/refund", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const apiBody = compact({ amount: form.mode === "partial" ? amount(form, "amount") ?? "" : undefined });
      let errors = checkBody(RefundBody, apiBody, p.t);
      if (form.mode === "partial" && apiBody.amount === "") errors = { amount: p.t("v.required") };
      // Money leaves a production account: the form must say so, on purpose.
      if (!errors && p.ctx.environment === "production" && form.confirm !== "on") errors = { confirm: p.t("confirm.required") };
      if (!errors) {
        const done = await attempt(() => services.refunds.refund(p.ctx, req.params.id, apiBody.amount as number | undefined), p.t, { amount: "" });
        if (done.ok) return kit.redirect(reply, p, `/panel/charges/${req.params.id}`, { notice: p.t("refund.done", { amount: p.units(done.value.amount, done.value.currency) }) });
        errors = done.errors;
      }
      return kit.html(reply, await detail(p, req.params.id, errors, form), 422);
    });

    // The sandbox simulator: the payer paying, the clock expiring, the 3DS page and the review.
    app.post<{ Params: { id: string; action: string } }>("/panel/charges/:id/sandbox/:action", hidden, async (req, reply) => {
      const p = req.panel!;
      const { id, action } = req.params;
      const c = services.charges;
      const run = {
        pay: () => c.pay(p.ctx, id),
        expire: () => c.expire(p.ctx, id),
        "3ds-succeeded": () => c.authenticate(p.ctx, id, "succeeded"),
        "3ds-failed": () => c.authenticate(p.ctx, id, "failed"),
        "review-approved": () => c.review(p.ctx, id, "approved"),
        "review-rejected": () => c.review(p.ctx, id, "rejected"),
      }[action];
      if (!run) return reply.callNotFound();
      const done = await attempt(run, p.t);
      if (done.ok) return kit.redirect(reply, p, `/panel/charges/${id}`, { notice: p.t("sandbox.done", { status: p.t(`status.${done.value.status}`) }) });
      return kit.html(reply, await detail(p, id, done.errors), 422);
    });
  };
}
