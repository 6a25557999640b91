import { ENDPOINT_EVENT_TYPES } from "../../../modules/webhooks/catalog.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { actionButton, badge, checkbox, csrfInput, cursorPager, dl, field, fieldError, formErrors, link, table } from "../ui.js";

// Webhook endpoints: the list and the creation form (with an event filter), one endpoint with its
// actions, and the delivery log with each attempt's answer (also shown on an event's and a
// submerchant's page).

export interface DeliveryView {
  id: string; eventId: string; eventType: string; endpointId: string | null; url: string; status: string; createdAt: string;
  attempts: { attempt: number; startedAt: string; responseStatus: number | null; error: string | null; responseExcerpt: string | null; durationMs: number | null }[];
}
export interface EndpointView {
  id: string; url: string; events: string[]; enabled: boolean; disabledReason?: string | null; description?: string | null; createdAt: string | Date;
}

/**
 * `eventLinks` false where the events are not the merchant's own (a submerchant's status
 * notifications, which the master's event pages would not find).
 */
export function deliveryList(p: PanelCtx, deliveries: DeliveryView[], o: { resend: boolean; eventLinks?: boolean }): Html {
  const { t } = p;
  const { resend } = o;
  return table([t("col.created"), t("col.type"), t("col.status"), t("dev.answers"), ...(resend ? [t("col.actions")] : [])], deliveries.map((d) => [
    p.date(d.createdAt),
    html`${o.eventLinks === false ? d.eventType : link(`/panel/developers/events/${d.eventId}`, d.eventType)}<br><span class="muted">${d.url}</span>`,
    badge(d.status, t(`delivery.${d.status}`)),
    d.attempts.length === 0 ? t("dev.noAttempt") : html`<ul>${d.attempts.map((a) => html`<li>${t("timeline.attempt", { n: a.attempt })}: ${a.responseStatus ? `HTTP ${a.responseStatus}` : a.error ?? "—"}${a.durationMs !== null && ` · ${a.durationMs} ms`}${a.responseExcerpt && html`<pre>${a.responseExcerpt}</pre>`}</li>`)}</ul>`,
    ...(resend && d.endpointId ? [actionButton(p, `/panel/developers/webhooks/${d.endpointId}/resend`, t("dev.resend"), { hidden: { eventId: d.eventId } })] : resend ? [""] : []),
  ]), t("dev.noDeliveries"));
}

function createForm(p: PanelCtx, errors?: FieldErrors, values: Record<string, unknown> = {}): Html {
  const { t } = p;
  const chosen = new Set(Array.isArray(values.events) ? values.events : []);
  const all = chosen.size === 0 || chosen.has("*");
  return html`<section class="card" aria-labelledby="new-wh"><h2 id="new-wh">${t("dev.newEndpoint")}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/developers/webhooks">${csrfInput(p)}
${field({ name: "url", label: t("col.url"), type: "url", value: values.url, errors, required: true, hint: t("dev.urlHint") })}
${field({ name: "description", label: t("dev.description"), value: values.description, errors })}
<fieldset${errors?.events && html` aria-describedby="events-error"`}><legend>${t("col.events")}</legend>
${checkbox({ name: "events", value: "*", label: t("dev.allEvents"), checked: all })}
${ENDPOINT_EVENT_TYPES.map((e) => checkbox({ name: "events", value: e, label: e, checked: !all && chosen.has(e) }))}
${fieldError(errors?.events, "events-error")}</fieldset>
<button type="submit" class="primary">${t("dev.create")}</button></form></section>`;
}

export function endpointsPage(p: PanelCtx, endpoints: EndpointView[], errors?: FieldErrors, values?: Record<string, unknown>): Html {
  const { t } = p;
  const rows = endpoints.map((e) => [
    link(`/panel/developers/webhooks/${e.id}`, e.url), e.events.join(", "),
    e.enabled ? badge("active", t("dev.enabled")) : badge("inactive", t("dev.disabled")), p.date(e.createdAt),
  ]);
  return html`<p>${link("/panel/developers", t("dev.back"))}</p>
<section class="card" aria-labelledby="wh-list"><h2 id="wh-list">${t("dev.endpoints")}</h2>${table([t("col.url"), t("col.events"), t("col.status"), t("col.created")], rows, t("dev.noEndpoints"))}</section>
${createForm(p, errors, values)}`;
}

export function endpointPage(p: PanelCtx, e: EndpointView, q: Record<string, string | undefined>, deliveries: { data: DeliveryView[]; hasMore: boolean }): Html {
  const { t } = p;
  const base = `/panel/developers/webhooks/${e.id}`;
  return html`<p>${link("/panel/developers/webhooks", t("dev.allEndpoints"))}</p>
<section class="card" aria-labelledby="ep"><h2 id="ep">${t("dev.endpoint")}</h2>${dl([
    [t("col.url"), e.url], [t("col.events"), e.events.join(", ")],
    [t("col.status"), e.enabled ? badge("active", t("dev.enabled")) : html`${badge("inactive", t("dev.disabled"))}${e.disabledReason && ` ${e.disabledReason}`}`],
    [t("dev.description"), e.description ?? "—"], [t("dev.signingSecret"), t("dev.secretHidden")], [t("col.created"), p.date(e.createdAt)],
  ])}
<div class="button-row">${actionButton(p, `${base}/${e.enabled ? "disable" : "enable"}`, t(e.enabled ? "dev.disable" : "dev.enable"))}${actionButton(p, `${base}/rotate`, t("dev.rotate"))}</div></section>
<section class="card" aria-labelledby="dl"><h2 id="dl">${t("dev.deliveries")}</h2>${deliveryList(p, deliveries.data, { resend: true })}${cursorPager(p, base, q, deliveries)}</section>`;
}
