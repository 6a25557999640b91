import type { FastifyInstance } from "fastify";
import { CreateEndpointBody } from "../../modules/webhooks/endpoints.schemas.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { attempt, checkBody, compact } from "./forms.js";
import type { PanelKit } from "./kit.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { endpointPage, endpointsPage } from "./pages/webhooks.js";
import { CursorQuery, EndpointActionForm, EndpointForm, NoFields } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { urlPath } from "../../lib/url-path.js";

// Webhook endpoints: create (the signing secret is shown once, on the page the creation
// redirects to, through a flash cookie that the page consumes), enable and disable, rotate the
// secret (shown once too), and resend a delivery. The pages are pages/webhooks.ts.

export function webhookRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const { endpoints, events } = services.webhooks;

  async function listPage(p: PanelCtx, errors?: FieldErrors, values?: Record<string, unknown>) {
    const page = await endpoints.list(p.ctx, { limit: 100 });
    return renderPage(p, { title: p.t("dev.webhooks"), area: "developers", body: endpointsPage(p, page.data, errors, values), path: "/panel/developers/webhooks" });
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel/developers/webhooks", NoFields, async ({ p }, reply) => kit.html(reply, await listPage(p)));

    route.post("/panel/developers/webhooks", EndpointForm, async ({ p, form, errors: formErrors, sent }, reply) => {
      const chosen = form.events ?? [];
      const input = compact({ url: form.url ?? "", events: chosen.includes("*") || chosen.length === 0 ? ["*"] : chosen, description: form.description });
      let errors = formErrors ?? checkBody(CreateEndpointBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => endpoints.create(p.ctx, input), p.t, { url: "", events: "", description: "" });
        if (done.ok) {
          return kit.redirect(reply, p, urlPath`/panel/developers/webhooks/${done.value.id}`, {
            notice: p.t("dev.created"), secret: [{ label: p.t("dev.signingSecret"), value: done.value.secret }],
          });
        }
        errors = done.errors;
      }
      // "events.0" and the like belong to the event fieldset.
      const byField = Object.fromEntries(Object.entries(errors).map(([k, v]) => [k.startsWith("events") ? "events" : k, v]));
      return kit.html(reply, await listPage(p, byField, sent), 422);
    });

    route.get("/panel/developers/webhooks/:id", CursorQuery, async ({ p, params, form: q }, reply) => {
      const found = await attempt(() => endpoints.get(p.ctx, params.id), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "developers", message: p.t("notFound.generic"), path: "/panel/developers" }), 404);
      const e = found.value;
      const deliveries = await events.endpointDeliveries(p.ctx, e.id, compact({ limit: 20, ...q }));
      const base = urlPath`/panel/developers/webhooks/${e.id}`;
      return kit.html(reply, renderPage(p, { title: e.url, area: "developers", body: endpointPage(p, e, q, deliveries), path: base }));
    });

    route.post("/panel/developers/webhooks/:id/:action", EndpointActionForm, async ({ p, params: { id, action }, form }, reply) => {
      const base = urlPath`/panel/developers/webhooks/${id}`;
      if (action === "enable" || action === "disable") {
        const done = await attempt(() => endpoints.update(p.ctx, id, { enabled: action === "enable" }), p.t);
        return kit.redirect(reply, p, base, { notice: done.ok ? p.t(action === "enable" ? "dev.nowEnabled" : "dev.nowDisabled") : Object.values(done.errors)[0] });
      }
      if (action === "rotate") {
        const done = await attempt(() => endpoints.rotateSecret(p.ctx, id), p.t);
        if (!done.ok) return kit.redirect(reply, p, base, { notice: Object.values(done.errors)[0] });
        return kit.redirect(reply, p, base, { notice: p.t("dev.rotated", { until: p.date(done.value.previousSecretExpiresAt) }), secret: [{ label: p.t("dev.signingSecret"), value: done.value.secret }] });
      }
      if (action === "resend") {
        const done = await attempt(() => events.redeliver(p.ctx, form.eventId ?? "", id), p.t);
        return kit.redirect(reply, p, base, { notice: done.ok ? p.t("dev.resent") : Object.values(done.errors)[0] });
      }
      return reply.callNotFound();
    });
  };
}
