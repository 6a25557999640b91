import type { FastifyInstance } from "fastify";
import { CreatePlanBody } from "../../modules/subscriptions/plans.schemas.js";
import { CancelBody, ListSubscriptionsQuery } from "../../modules/subscriptions/subscriptions.schemas.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, integer } from "./forms.js";
import type { PanelKit } from "./kit.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { subscriptionPage, subscriptionsPage } from "./pages/subscriptions.js";
import { NoFields, PlanForm, SubscriptionActionForm, SubscriptionsQuery } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { qrFigure } from "./ui.js";
import { urlPath } from "../../lib/url-path.js";

// Subscriptions: plans (create, archive), the list, and one subscription's pause, resume and
// cancel. The pages are pages/subscriptions.ts.

type Query = Record<string, string | undefined>;

export function subscriptionRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const { service: subs, plans } = services.subscriptions;

  async function listPage(p: PanelCtx, q: Query, errors?: FieldErrors, values?: Record<string, unknown>) {
    const query = compact({ status: q.status, search: q.search, customerId: q.customerId, page: integer(q.page) ?? 1, limit: 20 });
    const filterErrors = checkBody(ListSubscriptionsQuery, query, p.t) ?? undefined;
    const list = filterErrors ? { data: [], meta: { page: 1, totalPages: 0, total: 0 } } : await subs.list(p.ctx, query as Parameters<typeof subs.list>[1]);
    const planPage = await plans.list(p.ctx, compact({ limit: 50, startingAfter: q.plansAfter }));
    const body = subscriptionsPage(p, { q, filterErrors, list, plans: planPage, errors, values });
    return renderPage(p, { title: p.t("nav.subscriptions"), area: "subscriptions", body, path: "/panel/subscriptions" });
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel/subscriptions", SubscriptionsQuery, async ({ p, form }, reply) => kit.html(reply, await listPage(p, form)));

    route.post("/panel/subscriptions/plans", PlanForm, async ({ p, form, errors: formErrors, sent }, reply) => {
      const input = compact({
        name: form.name ?? "", description: form.description, price: amount(form.price) ?? "",
        currency: (form.currency ?? "").toUpperCase(), interval: form.interval ?? "",
        intervalCount: integer(form.intervalCount), trialDays: integer(form.trialDays),
      });
      let errors = formErrors ?? checkBody(CreatePlanBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => plans.create(p.ctx, input as Parameters<typeof plans.create>[1]), p.t, { name: "", price: "", currency: "", interval: "", intervalCount: "", trialDays: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/subscriptions", { notice: p.t("sub.planCreated", { name: String(input.name) }) });
        errors = done.errors;
      }
      return kit.html(reply, await listPage(p, {}, errors, sent), 422);
    });

    route.post("/panel/subscriptions/plans/:id/archive", NoFields, async ({ p, params }, reply) => {
      const done = await attempt(() => plans.archive(p.ctx, params.id), p.t);
      return kit.redirect(reply, p, "/panel/subscriptions", { notice: done.ok ? p.t("sub.planArchived") : Object.values(done.errors)[0] });
    });

    route.get("/panel/subscriptions/:id", NoFields, async ({ p, params }, reply) => {
      const found = await attempt(() => subs.get(p.ctx, params.id), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "subscriptions", message: p.t("notFound.generic"), path: "/panel/subscriptions" }), 404);
      const s = found.value;
      const qr = s.mandate?.status === "pending" ? await qrFigure(s.mandate.qrCode, p.t("sub.mandateQr")) : null;
      return kit.html(reply, renderPage(p, { title: `${p.t("sub.subscription")} ${s.id}`, area: "subscriptions", body: subscriptionPage(p, s, qr), path: `/panel/subscriptions/${s.id}` }));
    });

    route.post("/panel/subscriptions/:id/:action", SubscriptionActionForm, async ({ p, params: { id, action }, form, errors }, reply) => {
      const base = urlPath`/panel/subscriptions/${id}`;
      let run: (() => Promise<unknown>) | undefined;
      if (action === "pause") run = () => subs.pause(p.ctx, id);
      if (action === "resume") run = () => subs.resume(p.ctx, id);
      if (action === "cancel") {
        const body = { atPeriodEnd: form.when === "period_end" };
        if (errors || checkBody(CancelBody, body, p.t)) return reply.callNotFound();
        if (!body.atPeriodEnd && form.confirm !== "on") return kit.redirect(reply, p, base, { notice: p.t("sub.notConfirmed") });
        run = () => subs.cancel(p.ctx, id, body);
      }
      if (!run) return reply.callNotFound();
      const done = await attempt(run, p.t);
      return kit.redirect(reply, p, base, { notice: done.ok ? p.t(`sub.done.${action}` as Parameters<typeof p.t>[0]) : Object.values(done.errors)[0] });
    });
  };
}
