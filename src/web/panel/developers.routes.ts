import type { FastifyInstance } from "fastify";
import { scopeOf } from "../../db/scope.js";
import { ListEventsQuery } from "../../modules/webhooks/events.schemas.js";
import { attempt, checkBody, compact } from "./forms.js";
import type { PanelKit } from "./kit.js";
import { developersPage, eventPage, eventsPage } from "./pages/developers.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { ConfirmForm, EventsQuery, NoFields } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { webhookRoutes } from "./webhooks.routes.js";

// Developers: the secret keys (rolling them shows the new ones once), and the event log with
// each event's deliveries (pages/developers.ts); the webhook endpoints are webhooks.routes.ts.

export function developerRoutes(kit: PanelKit) {
  const { services } = kit.deps;

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel/developers", NoFields, async ({ p }, reply) => {
      // The key of the environment shown (masked): the other environment's is shown when switched.
      const keys = await services.merchants.revealKeys(scopeOf(p.ctx));
      const endpoints = await services.webhooks.endpoints.list(p.ctx, { limit: 100 });
      const body = developersPage(p, keys, endpoints.data.length);
      return kit.html(reply, renderPage(p, { title: p.t("nav.developers"), area: "developers", body, path: "/panel/developers" }));
    });

    // Rolls the key of the environment shown (a sandbox roll never stops production traffic);
    // the new one is shown this once.
    route.post("/panel/developers/keys/roll", ConfirmForm, async ({ p, form }, reply) => {
      if (form.confirm !== "on") return kit.redirect(reply, p, "/panel/developers", { notice: p.t("dev.rollNotConfirmed") });
      const rolled = await services.merchants.rotateKeys(p.merchant.id, p.ctx.environment);
      return kit.redirect(reply, p, "/panel/developers", {
        notice: p.t("dev.rolled"),
        secret: [{ label: p.t("dev.newSandboxKey"), value: rolled.apiKeys.sandbox }, { label: p.t("dev.newProductionKey"), value: rolled.apiKeys.production }]
          .flatMap((s) => (s.value ? [{ label: s.label, value: s.value }] : [])),
      });
    });

    route.get("/panel/developers/events", EventsQuery, async ({ p, form: q, errors: formErrors, url }, reply) => {
      const query = compact({ limit: 25, type: q.type, startingAfter: q.startingAfter, endingBefore: q.endingBefore });
      const errors = formErrors ?? checkBody(ListEventsQuery, query, p.t) ?? undefined;
      const page = errors ? { data: [], hasMore: false } : await services.webhooks.events.list(p.ctx, query);
      return kit.html(reply, renderPage(p, { title: p.t("dev.events"), area: "developers", body: eventsPage(p, q, errors, page), path: url }), errors ? 422 : 200);
    });

    route.get("/panel/developers/events/:id", NoFields, async ({ p, params }, reply) => {
      const found = await attempt(() => services.webhooks.events.get(p.ctx, params.id), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "developers", message: p.t("notFound.generic"), path: "/panel/developers/events" }), 404);
      const e = found.value;
      return kit.html(reply, renderPage(p, { title: `${p.t("timeline.event")} ${e.id}`, area: "developers", body: eventPage(p, e), path: `/panel/developers/events/${e.id}` }));
    });

    await app.register(webhookRoutes(kit));
  };
}
