import type { FastifyInstance } from "fastify";
import { calendarDate, endOfDay, isoInZone, startOfDay } from "../../lib/calendar.js";
import { CHARGE_STATUSES, ListChargesQuery, RefundBody, toChargeResponse } from "../../modules/charges/index.js";
import { toCustomer } from "../../modules/customers/customers.service.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact } from "./forms.js";
import { buyersOf } from "./buyers.js";
import type { PanelKit } from "./kit.js";
import { renderChargeDetail, type Timeline } from "./pages/charge-detail.js";
import { chargesPage, type ChargeView, type ChargesFilter } from "./pages/charges.js";
import { chargeDisputes } from "./pages/disputes.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { ChargesQuery, NoFields, RefundForm } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { urlPath } from "../../lib/url-path.js";

// Charges: the list with the API's filters, the CSV export of the same filtered list, and one
// charge with its refund and the sandbox simulator's actions. The pages are pages/charges.ts
// and pages/charge-detail.ts.

/** The API's list query from the filter form, with date fields as whole days of the merchant's zone. */
function listQuery(q: ChargesFilter, limit: number, timeZone: string) {
  return compact({
    limit,
    status: CHARGE_STATUSES.find((s) => s === q.status),
    paymentMethod: q.paymentMethod,
    customerId: q.customerId,
    createdGte: q.from ? dayEdge(q.from, timeZone, startOfDay) : undefined,
    createdLte: q.to ? dayEdge(q.to, timeZone, endOfDay) : undefined,
    startingAfter: q.startingAfter,
    endingBefore: q.endingBefore,
  });
}

/** A day's first or last instant; a malformed day stays as typed, for the API's schema to refuse. */
function dayEdge(day: string, timeZone: string, edge: (day: string, timeZone: string) => Date): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) && !Number.isNaN(Date.parse(day)) ? edge(day, timeZone).toISOString() : day;
}

/** A cell that a spreadsheet shows as text: a formula-like start is quoted (CSV injection). */
function csvCell(v: unknown): string {
  let s = v === null || v === undefined ? "" : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r;]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function chargeRoutes(kit: PanelKit) {
  const { services } = kit.deps;

  /**
   * Resolves the search box: an e-mail lists the charges of every customer with it (customers
   * created through POST /v1/customers may share one), not only the first one's.
   */
  async function resolve(p: PanelCtx, q: ChargesFilter, formErrors: FieldErrors | null, limit: number) {
    const customerEmail = q.q?.includes("@") ? q.q : undefined;
    const none = customerEmail ? (await services.customers.list(p.ctx, { email: customerEmail, limit: 1 })).data.length === 0 : false;
    const filters = listQuery(q, limit, p.timeZone);
    const checked = formErrors ?? checkBody(ListChargesQuery, filters, p.t);
    const errors: FieldErrors | null = checked && Object.fromEntries(Object.entries(checked).map(([k, v]) => [k === "createdGte" ? "from" : k === "createdLte" ? "to" : k, v]));
    return { query: { ...filters, customerEmail }, errors, none };
  }

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
    const customer = charge.customerId ? toCustomer({ ...(await services.customers.get(p.ctx, charge.customerId, { deleted: true })), ...row.buyer }) : null;
    const body = renderChargeDetail(p, charge, customer, await timeline(p, charge), await services.refunds.list(p.ctx, id), errors, values);
    const disputes = chargeDisputes(p, await services.modules.disputes.service.ofCharge(p.ctx, id));
    return renderPage(p, { title: `${p.t("charges.charge")} ${charge.id}`, area: "charges", body: [body, disputes], path: `/panel/charges/${id}` });
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);

    route.get("/panel/charges", ChargesQuery, async ({ p, form: q, errors: formErrors, url }, reply) => {
      if (q.q && /^ch_[A-Za-z0-9]+$/.test(q.q)) return reply.redirect(`/panel/charges/${q.q}`, 303);
      const { query, errors, none } = await resolve(p, q, formErrors, 20);
      const page = errors || none ? { data: [], hasMore: false } : await services.charges.list(p.ctx, query);
      const exportQuery = new URLSearchParams(compact({ q: q.q, status: q.status, paymentMethod: q.paymentMethod, customerId: q.customerId, from: q.from, to: q.to }) as Record<string, string>).toString();
      const buyers = await buyersOf(services, p, page.data);
      const body = chargesPage(p, { q, errors, noCustomer: none, page, buyers, exportQuery });
      return kit.html(reply, renderPage(p, { title: p.t("nav.charges"), area: "charges", body, path: url }), errors ? 422 : 200);
    });

    // The filtered list as CSV, page by page through the same service (at most 10,000 rows).
    route.get("/panel/charges.csv", ChargesQuery, async ({ p, form, errors: formErrors }, reply) => {
      const { query, errors, none } = await resolve(p, { ...form, startingAfter: undefined, endingBefore: undefined }, formErrors, 100);
      const lines = [["id", "status", "amount", "amount_refunded", "currency", "payment_method", "customer_id", "customer_name", "customer_email", "net", "created_at", "paid_at"].join(",")];
      let cursor: string | undefined;
      for (let i = 0; !errors && !none && i < 100; i++) {
        const page = await services.charges.list(p.ctx, { ...query, startingAfter: cursor });
        // The buyers of the page in one read: a spreadsheet of charges is read by who paid.
        const buyers = await buyersOf(services, p, page.data);
        for (const c of page.data) {
          const buyer = c.customerId ? buyers.get(c.customerId) : undefined;
          // Times in the merchant's zone with their offset (2026-12-07T22:30:00.000-03:00): the
          // spreadsheet's day is the merchant's, and the instant is still exact.
          const at = (iso: string | null) => iso && isoInZone(new Date(iso), p.timeZone);
          lines.push([c.id, c.status, c.amount, c.amountRefunded, c.currency, c.paymentMethod.type, c.customerId, buyer?.name, buyer?.email, c.net, at(c.createdAt), at(c.paidAt)].map(csvCell).join(","));
        }
        if (!page.hasMore || page.data.length === 0) break;
        cursor = page.data[page.data.length - 1]!.id;
      }
      const name = `charges-${p.ctx.environment}-${calendarDate(new Date(), p.timeZone)}.csv`;
      return reply.code(errors ? 422 : 200).header("cache-control", "no-store").header("content-disposition", `attachment; filename="${name}"`)
        .type("text/csv; charset=utf-8").send(`${lines.join("\r\n")}\r\n`);
    });

    route.get("/panel/charges/:id", NoFields, async ({ p, params }, reply) => {
      const found = await attempt(() => detail(p, params.id), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "charges", message: p.t("notFound.charge"), back: ["/panel/charges", p.t("nav.charges")], path: "/panel/charges" }), 404);
      return kit.html(reply, found.value);
    });

    route.post("/panel/charges/:id/refund", RefundForm, async ({ p, params, form, errors: formErrors, sent }, reply) => {
      const partial = form.mode === "partial";
      const apiBody = compact({ amount: partial ? amount(form.amount) ?? "" : undefined });
      let errors = formErrors ?? checkBody(RefundBody, apiBody, p.t);
      if (partial && apiBody.amount === "") errors = { amount: p.t("v.required") };
      // Money leaves a production account: the form must say so, on purpose.
      if (!errors && p.ctx.environment === "production" && form.confirm !== "on") errors = { confirm: p.t("confirm.required") };
      if (!errors) {
        const done = await attempt(() => services.refunds.refund(p.ctx, params.id, apiBody.amount as number | undefined), p.t, { amount: "" });
        if (done.ok) return kit.redirect(reply, p, urlPath`/panel/charges/${params.id}`, { notice: p.t("refund.done", { amount: p.units(done.value.amount, done.value.currency) }) });
        errors = done.errors;
      }
      return kit.html(reply, await detail(p, params.id, errors, sent), 422);
    });

    // The sandbox simulator: the payer paying, the clock expiring, the 3DS page and the review.
    route.post("/panel/charges/:id/sandbox/:action", NoFields, async ({ p, params: { id, action } }, reply) => {
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
      if (done.ok) return kit.redirect(reply, p, urlPath`/panel/charges/${id}`, { notice: p.t("sandbox.done", { status: p.t(`status.${done.value.status}`) }) });
      return kit.html(reply, await detail(p, id, done.errors), 422);
    });
  };
}
