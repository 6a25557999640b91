import type { FastifyInstance } from "fastify";
import { ENDPOINT_EVENT_TYPES } from "../../modules/webhooks/catalog.js";
import { CreateEndpointBody } from "../../modules/webhooks/endpoints.schemas.js";
import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { attempt, checkBody, compact, list, text } from "./forms.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { actionButton, badge, checkbox, csrfInput, cursorPager, dl, field, formErrors, link, table } from "./ui.js";

// Webhook endpoints: create (with an event filter; the signing secret is shown once, on the
// page the creation redirects to, through a flash cookie that the page consumes), enable and
// disable, rotate the secret (shown once too), and the delivery log with each attempt's answer
// and a resend.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;

export function deliveryList(p: PanelCtx, deliveries: { id: string; eventId: string; eventType: string; endpointId: string | null; url: string; status: string; createdAt: string; attempts: { attempt: number; startedAt: string; responseStatus: number | null; error: string | null; responseExcerpt: string | null; durationMs: number | null }[] }[], resend: boolean): string {
  const { t } = p;
  return table([t("col.created"), t("col.type"), t("col.status"), t("dev.answers"), ...(resend ? [t("col.actions")] : [])], deliveries.map((d) => [
    esc(p.date(d.createdAt)),
    `${link(`/panel/developers/events/${d.eventId}`, d.eventType)}<br><span class="muted">${esc(d.url)}</span>`,
    badge(d.status, t(`delivery.${d.status}`)),
    d.attempts.length === 0 ? esc(t("dev.noAttempt")) : `<ul>${d.attempts.map((a) => `<li>${esc(t("timeline.attempt", { n: a.attempt }))}: ${a.responseStatus ? `HTTP ${a.responseStatus}` : esc(a.error ?? "—")}${a.durationMs !== null ? ` · ${a.durationMs} ms` : ""}${a.responseExcerpt ? `<pre>${esc(a.responseExcerpt)}</pre>` : ""}</li>`).join("")}</ul>`,
    ...(resend && d.endpointId ? [actionButton(p, `/panel/developers/webhooks/${d.endpointId}/resend`, t("dev.resend"), { hidden: { eventId: d.eventId } })] : resend ? [""] : []),
  ]), t("dev.noDeliveries"));
}

function createForm(p: PanelCtx, errors?: FieldErrors, values: Record<string, unknown> = {}): string {
  const { t } = p;
  const chosen = new Set(list(values, "events"));
  const all = chosen.size === 0 || chosen.has("*");
  return `<section class="card" aria-labelledby="new-wh"><h2 id="new-wh">${esc(t("dev.newEndpoint"))}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/developers/webhooks">${csrfInput(p)}
${field({ name: "url", label: t("col.url"), type: "url", value: values.url, errors, required: true, hint: t("dev.urlHint") })}
${field({ name: "description", label: t("dev.description"), value: values.description, errors })}
<fieldset${errors?.events ? ' aria-describedby="events-error"' : ""}><legend>${esc(t("col.events"))}</legend>
${checkbox({ name: "events", value: "*", label: t("dev.allEvents"), checked: all })}
${ENDPOINT_EVENT_TYPES.map((e) => checkbox({ name: "events", value: e, label: e, checked: !all && chosen.has(e) })).join("")}
${errors?.events ? `<p class="error" id="events-error">${esc(errors.events)}</p>` : ""}</fieldset>
<button type="submit" class="primary">${esc(t("dev.create"))}</button></form></section>`;
}

export function webhookRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const { endpoints, events } = services.webhooks;

  async function listPage(p: PanelCtx, errors?: FieldErrors, values?: Record<string, unknown>) {
    const { t } = p;
    const page = await endpoints.list(p.ctx, { limit: 100 });
    const rows = page.data.map((e) => [
      link(`/panel/developers/webhooks/${e.id}`, e.url), esc(e.events.join(", ")),
      e.enabled ? badge("active", t("dev.enabled")) : badge("inactive", t("dev.disabled")), esc(p.date(e.createdAt)),
    ]);
    const body = `<p>${link("/panel/developers", t("dev.back"))}</p>
<section class="card" aria-labelledby="wh-list"><h2 id="wh-list">${esc(t("dev.endpoints"))}</h2>${table([t("col.url"), t("col.events"), t("col.status"), t("col.created")], rows, t("dev.noEndpoints"))}</section>
${createForm(p, errors, values)}`;
    return renderPage(p, { title: t("dev.webhooks"), area: "developers", body, path: "/panel/developers/webhooks" });
  }

  return async (app: FastifyInstance) => {
    app.get("/panel/developers/webhooks", hidden, async (req, reply) => kit.html(reply, await listPage(req.panel!)));

    app.post("/panel/developers/webhooks", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const chosen = list(form, "events");
      const input = compact({ url: text(form, "url") ?? "", events: chosen.includes("*") || chosen.length === 0 ? ["*"] : chosen, description: text(form, "description") });
      let errors = checkBody(CreateEndpointBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => endpoints.create(p.ctx, input), p.t, { url: "", events: "", description: "" });
        if (done.ok) {
          return kit.redirect(reply, p, `/panel/developers/webhooks/${done.value.id}`, {
            notice: p.t("dev.created"), secret: [{ label: p.t("dev.signingSecret"), value: done.value.secret }],
          });
        }
        errors = done.errors;
      }
      // "events.0" and the like belong to the event fieldset.
      const byField = Object.fromEntries(Object.entries(errors).map(([k, v]) => [k.startsWith("events") ? "events" : k, v]));
      return kit.html(reply, await listPage(p, byField, form), 422);
    });

    app.get<{ Params: { id: string }; Querystring: Query }>("/panel/developers/webhooks/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const found = await attempt(() => endpoints.get(p.ctx, req.params.id), t);
      if (!found.ok) return kit.html(reply, renderPage(p, { title: t("notFound.title"), area: "developers", body: `<p>${esc(t("notFound.generic"))}</p>`, path: "/panel/developers" }), 404);
      const e = found.value;
      const q = { startingAfter: req.query.startingAfter, endingBefore: req.query.endingBefore };
      const deliveries = await events.endpointDeliveries(p.ctx, e.id, compact({ limit: 20, ...q }));
      const base = `/panel/developers/webhooks/${e.id}`;
      const body = `<p>${link("/panel/developers/webhooks", t("dev.allEndpoints"))}</p>
<section class="card" aria-labelledby="ep"><h2 id="ep">${esc(t("dev.endpoint"))}</h2>${dl([
        [t("col.url"), esc(e.url)], [t("col.events"), esc(e.events.join(", "))],
        [t("col.status"), e.enabled ? badge("active", t("dev.enabled")) : `${badge("inactive", t("dev.disabled"))}${e.disabledReason ? ` ${esc(e.disabledReason)}` : ""}`],
        [t("dev.description"), esc(e.description ?? "—")], [t("dev.signingSecret"), esc(t("dev.secretHidden"))], [t("col.created"), esc(p.date(e.createdAt))],
      ])}
<div class="button-row">${actionButton(p, `${base}/${e.enabled ? "disable" : "enable"}`, t(e.enabled ? "dev.disable" : "dev.enable"))}${actionButton(p, `${base}/rotate`, t("dev.rotate"))}</div></section>
<section class="card" aria-labelledby="dl"><h2 id="dl">${esc(t("dev.deliveries"))}</h2>${deliveryList(p, deliveries.data, true)}${cursorPager(p, base, q, deliveries)}</section>`;
      return kit.html(reply, renderPage(p, { title: e.url, area: "developers", body, path: base }));
    });

    app.post<{ Params: { id: string; action: string } }>("/panel/developers/webhooks/:id/:action", hidden, async (req, reply) => {
      const p = req.panel!;
      const { id, action } = req.params;
      const base = `/panel/developers/webhooks/${id}`;
      const form = (req.body ?? {}) as Record<string, unknown>;
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
        const done = await attempt(() => events.redeliver(p.ctx, text(form, "eventId") ?? "", id), p.t);
        return kit.redirect(reply, p, base, { notice: done.ok ? p.t("dev.resent") : Object.values(done.errors)[0] });
      }
      return reply.callNotFound();
    });
  };
}
