import type { FastifyInstance } from "fastify";
import { ListEventsQuery } from "../../modules/webhooks/events.schemas.js";
import { scopeOf } from "../../db/scope.js";
import { esc } from "../html.js";
import type { PanelCtx } from "./context.js";
import { attempt, checkBody, compact } from "./forms.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { actionButton, cursorPager, dl, field, formErrors, link, table } from "./ui.js";
import { deliveryList, webhookRoutes } from "./webhooks.routes.js";

// Developers: the secret keys (masked; rolling them shows the new ones once), links to the
// webhook endpoints, and the event log with each event's deliveries.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;

/** sk_test_••••••••3f9a: the prefix says the environment, the last four tell keys apart. */
export const maskKey = (key: string) => `${key.slice(0, 8)}••••••••${key.slice(-4)}`;

export function developerRoutes(kit: PanelKit) {
  const { services } = kit.deps;

  async function home(p: PanelCtx) {
    const { t } = p;
    // The key of the environment shown (masked): the other environment's is shown when switched.
    const keys = await services.merchants.revealKeys(scopeOf(p.ctx));
    const rows = keys.map((k) => [esc(t(k.environment === "production" ? "env.production" : "env.sandbox")), `<code>${esc(maskKey(k.key))}</code>`, esc(p.date(k.createdAt))]);
    const endpoints = await services.webhooks.endpoints.list(p.ctx, { limit: 100 });
    return `<section class="card" aria-labelledby="keys"><h2 id="keys">${esc(t("dev.keys"))}</h2>
${table([t("dev.environment"), t("dev.key"), t("col.created")], rows, t("dev.noKeys"))}
<p>${esc(t("dev.rollHint"))}</p>${actionButton(p, "/panel/developers/keys/roll", t("dev.roll"), { danger: true, confirm: t("dev.rollConfirm") })}</section>
<section class="card" aria-labelledby="wh"><h2 id="wh">${esc(t("dev.webhooks"))}</h2><p>${esc(t("dev.endpointCount", { n: endpoints.data.length }))}</p><p>${link("/panel/developers/webhooks", t("dev.manageEndpoints"))}</p></section>
<section class="card" aria-labelledby="ev"><h2 id="ev">${esc(t("dev.events"))}</h2><p>${link("/panel/developers/events", t("dev.eventLog"))}</p>
<p>${link("/docs", t("dev.apiReference"))}</p></section>`;
  }

  return async (app: FastifyInstance) => {
    app.get("/panel/developers", hidden, async (req, reply) => {
      const p = req.panel!;
      return kit.html(reply, renderPage(p, { title: p.t("nav.developers"), area: "developers", body: await home(p), path: "/panel/developers" }));
    });

    // Rolls the key of the environment shown (a sandbox roll never stops production traffic);
    // the new one is shown this once.
    app.post("/panel/developers/keys/roll", hidden, async (req, reply) => {
      const p = req.panel!;
      if ((req.body as Record<string, unknown> | undefined)?.confirm !== "on") return kit.redirect(reply, p, "/panel/developers", { notice: p.t("dev.rollNotConfirmed") });
      const rolled = await services.merchants.rotateKeys(p.merchant.id, p.ctx.environment);
      return kit.redirect(reply, p, "/panel/developers", {
        notice: p.t("dev.rolled"),
        secret: [{ label: p.t("dev.newSandboxKey"), value: rolled.apiKeys.sandbox }, { label: p.t("dev.newProductionKey"), value: rolled.apiKeys.production }]
          .flatMap((s) => (s.value ? [{ label: s.label, value: s.value }] : [])),
      });
    });

    app.get<{ Querystring: Query }>("/panel/developers/events", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const q = req.query;
      const query = compact({ limit: 25, type: q.type || undefined, startingAfter: q.startingAfter || undefined, endingBefore: q.endingBefore || undefined });
      const errors = checkBody(ListEventsQuery, query, t) ?? undefined;
      const page = errors ? { data: [], hasMore: false } : await services.webhooks.events.list(p.ctx, query);
      const rows = page.data.map((e) => [link(`/panel/developers/events/${e.id}`, e.id), `<code>${esc(e.type)}</code>`, esc(e.objectId ?? "—"), esc(p.date(e.createdAt))]);
      const body = `<p>${link("/panel/developers", t("dev.back"))}</p>
<form method="get" action="/panel/developers/events" class="filters" role="search">${field({ name: "type", label: t("col.type"), value: q.type, errors, hint: t("dev.typeHint") })}
<div class="actions"><button type="submit" class="primary">${esc(t("filter.apply"))}</button> ${link("/panel/developers/events", t("filter.clear"))}</div></form>${formErrors(p, errors)}
${table([t("col.id"), t("col.type"), t("dev.object"), t("col.created")], rows, t("dev.noEvents"))}${cursorPager(p, "/panel/developers/events", q, page)}`;
      return kit.html(reply, renderPage(p, { title: t("dev.events"), area: "developers", body, path: req.url }), errors ? 422 : 200);
    });

    app.get<{ Params: { id: string } }>("/panel/developers/events/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const found = await attempt(() => services.webhooks.events.get(p.ctx, req.params.id), t);
      if (!found.ok) return kit.html(reply, renderPage(p, { title: t("notFound.title"), area: "developers", body: `<p>${esc(t("notFound.generic"))}</p>`, path: "/panel/developers/events" }), 404);
      const e = found.value;
      const body = `<p>${link("/panel/developers/events", t("dev.eventLog"))}</p>
<section class="card" aria-labelledby="evd"><h2 id="evd">${esc(e.type)}</h2>${dl([[t("col.id"), `<code>${esc(e.id)}</code>`], [t("dev.object"), esc(e.objectId ?? "—")], [t("col.created"), esc(p.date(e.createdAt))]])}
<h3>${esc(t("dev.request"))}</h3><pre>${esc(JSON.stringify(e.data, null, 2))}</pre></section>
<section class="card" aria-labelledby="evdl"><h2 id="evdl">${esc(t("dev.deliveries"))}</h2>${deliveryList(p, e.deliveries, true)}</section>`;
      return kit.html(reply, renderPage(p, { title: `${t("timeline.event")} ${e.id}`, area: "developers", body, path: `/panel/developers/events/${e.id}` }));
    });

    await app.register(webhookRoutes(kit));
  };
}
