import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { actionButton, badge, checkbox, csrfInput, dl, field, fieldError, formErrors } from "../ui.js";

// Shipping: the Melhor Envio connection of this environment. The authorize URL is shown as a
// link: a form cannot redirect to another origin under the page's CSP (form-action 'self').

export const REASONS = ["invalid_state", "access_denied", "code_refused", "provider_unavailable", "no_credentials"] as const;

export interface ShippingView {
  status: { connected: boolean; hasCredentials: boolean; clientId: string | null; originPostalCode: string | null; tokenExpiresAt: string | Date | null; enabledServices: number[] };
  /** The provider's services when connected: the list, or why it could not be read. */
  services?: { ok: true; value: { id: number; name: string; company: { name: string } }[] } | { ok: false; errors: FieldErrors };
  callbackUrl: string;
}

export interface ShippingForm {
  result?: string;
  reason?: string;
  errors?: FieldErrors;
  values?: Record<string, unknown>;
  authorizeUrl?: string;
}

function outcome(p: PanelCtx, o: ShippingForm): Html | "" {
  const { t } = p;
  if (o.result === "connected") return html`<div class="alert ok" role="status">${t("ship.connected")}</div>`;
  if (o.result !== "error") return "";
  const reason = REASONS.find((r) => r === o.reason);
  return html`<div class="alert error" role="alert">${t("ship.failed", { reason: reason ? t(`ship.reason.${reason}`) : t("ship.reason.unknown") })}</div>`;
}

function servicesForm(p: PanelCtx, v: ShippingView, o: ShippingForm): Html | "" {
  const { t } = p;
  const s = v.status;
  if (!s.connected || !v.services) return "";
  const sentServices = o.values?.enabledServices;
  const enabled = new Set(o.values ? (Array.isArray(sentServices) ? sentServices.map(Number) : []) : s.enabledServices);
  const available = v.services;
  return html`<section class="card" aria-labelledby="ss"><h2 id="ss">${t("ship.settings")}</h2>${formErrors(p, o.errors)}
<form method="post" action="/panel/shipping/settings">${csrfInput(p)}
${field({ name: "originPostalCode", label: t("ship.origin"), value: o.values?.originPostalCode ?? s.originPostalCode ?? "", errors: o.errors, attrs: { inputmode: "numeric", autocomplete: "postal-code" }, required: true })}
<fieldset><legend>${t("ship.services")}</legend>${available.ok ? available.value.map((x) => checkbox({ name: "enabledServices", value: String(x.id), label: `${x.company.name} ${x.name}`, checked: enabled.has(x.id) })) : fieldError(Object.values(available.errors)[0] ?? "")}
${fieldError(o.errors?.enabledServices)}</fieldset>
<button type="submit" class="primary">${t("ship.save")}</button></form></section>`;
}

export function shippingPage(p: PanelCtx, v: ShippingView, o: ShippingForm = {}): Html {
  const { t } = p;
  const s = v.status;
  const connectBlock = o.authorizeUrl
    ? html`<p><a class="button primary" href="${o.authorizeUrl}">${t("ship.continue")}</a></p><p class="hint">${t("ship.continueHint")}</p>`
    : s.hasCredentials && html`<form method="post" action="/panel/shipping/connect" class="inline">${csrfInput(p)}<button type="submit" class="primary">${t(s.connected ? "ship.reconnect" : "ship.connect")}</button></form>`;
  return html`${outcome(p, o)}<section class="card" aria-labelledby="st"><h2 id="st">Melhor Envio</h2>${dl([
    [t("col.status"), s.connected ? badge("connected", t("ship.statusConnected")) : badge("inactive", t("ship.statusNot"))],
    [t("ship.clientId"), s.clientId ?? "—"], [t("ship.origin"), s.originPostalCode ?? "—"],
    [t("ship.tokenExpires"), p.date(s.tokenExpiresAt)],
  ])}${connectBlock}${s.connected && actionButton(p, "/panel/shipping/disconnect", t("ship.disconnect"), { danger: true })}</section>
${servicesForm(p, v, o)}
<section class="card" aria-labelledby="cr"><h2 id="cr">${t("ship.credentials")}</h2><p>${t("ship.credentialsHint", { callback: v.callbackUrl })}</p>
<form method="post" action="/panel/shipping/credentials">${csrfInput(p)}
${field({ name: "clientId", label: t("ship.clientId"), value: o.values?.clientId ?? s.clientId ?? "", errors: o.errors, required: true, attrs: { autocomplete: "off" } })}
${field({ name: "clientSecret", label: t("ship.clientSecret"), type: "password", errors: o.errors, required: true, attrs: { autocomplete: "off" }, hint: t("ship.secretHint") })}
<button type="submit">${t("ship.saveCredentials")}</button></form></section>`;
}
