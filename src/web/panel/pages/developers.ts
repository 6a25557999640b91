import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { actionButton, cursorPager, dl, field, formErrors, link, table } from "../ui.js";
import { deliveryList, type DeliveryView } from "./webhooks.js";

// Developers: the secret keys (masked), links to the webhook endpoints, and the event log with
// each event's deliveries.

/** sk_test_••••••••3f9a: the prefix says the environment, the last four tell keys apart. */
export const maskKey = (key: string) => `${key.slice(0, 8)}••••••••${key.slice(-4)}`;

export function developersPage(p: PanelCtx, keys: { environment: string; key: string; createdAt: string }[], endpointCount: number): Html {
  const { t } = p;
  const rows = keys.map((k) => [t(k.environment === "production" ? "env.production" : "env.sandbox"), html`<code>${maskKey(k.key)}</code>`, p.date(k.createdAt)]);
  return html`<section class="card" aria-labelledby="keys"><h2 id="keys">${t("dev.keys")}</h2>
${table([t("dev.environment"), t("dev.key"), t("col.created")], rows, t("dev.noKeys"))}
<p>${t("dev.rollHint")}</p>${actionButton(p, "/panel/developers/keys/roll", t("dev.roll"), { danger: true, confirm: t("dev.rollConfirm") })}</section>
<section class="card" aria-labelledby="wh"><h2 id="wh">${t("dev.webhooks")}</h2><p>${t("dev.endpointCount", { n: endpointCount })}</p><p>${link("/panel/developers/webhooks", t("dev.manageEndpoints"))}</p></section>
<section class="card" aria-labelledby="ev"><h2 id="ev">${t("dev.events")}</h2><p>${link("/panel/developers/events", t("dev.eventLog"))}</p>
<p>${link("/docs", t("dev.apiReference"))}</p></section>`;
}

type EventRow = { id: string; type: string; objectId: string | null; createdAt: string };

export function eventsPage(p: PanelCtx, q: { type?: string; startingAfter?: string; endingBefore?: string }, errors: FieldErrors | undefined, page: { data: EventRow[]; hasMore: boolean }): Html {
  const { t } = p;
  const rows = page.data.map((e) => [link(`/panel/developers/events/${e.id}`, e.id), html`<code>${e.type}</code>`, e.objectId ?? "—", p.date(e.createdAt)]);
  return html`<p>${link("/panel/developers", t("dev.back"))}</p>
<form method="get" action="/panel/developers/events" class="filters" role="search">${field({ name: "type", label: t("col.type"), value: q.type, errors, hint: t("dev.typeHint") })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button> ${link("/panel/developers/events", t("filter.clear"))}</div></form>${formErrors(p, errors)}
${table([t("col.id"), t("col.type"), t("dev.object"), t("col.created")], rows, t("dev.noEvents"))}${cursorPager(p, "/panel/developers/events", q, page)}`;
}

export function eventPage(p: PanelCtx, e: EventRow & { data: unknown; deliveries: DeliveryView[] }): Html {
  const { t } = p;
  return html`<p>${link("/panel/developers/events", t("dev.eventLog"))}</p>
<section class="card" aria-labelledby="evd"><h2 id="evd">${e.type}</h2>${dl([[t("col.id"), html`<code>${e.id}</code>`], [t("dev.object"), e.objectId ?? "—"], [t("col.created"), p.date(e.createdAt)]])}
<h3>${t("dev.request")}</h3><pre>${JSON.stringify(e.data, null, 2)}</pre></section>
<section class="card" aria-labelledby="evdl"><h2 id="evdl">${t("dev.deliveries")}</h2>${deliveryList(p, e.deliveries, { resend: true })}</section>`;
}
