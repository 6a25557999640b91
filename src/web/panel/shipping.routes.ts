import type { FastifyInstance } from "fastify";
import { CredentialsBody, SettingsBody } from "../../modules/shipping/shipping.schemas.js";
import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { attempt, checkBody, list, text } from "./forms.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { actionButton, badge, checkbox, csrfInput, dl, field, formErrors } from "./ui.js";

// Shipping: the Melhor Envio connection of this environment. The app's credentials, the OAuth
// round trip (the provider sends the browser back to feira's callback, which redirects to
// PANEL_URL with the outcome; /panel forwards it here), origin CEP and enabled services, and
// disconnect. The authorize URL is shown as a link: a form cannot redirect to another origin
// under the page's CSP (form-action 'self').

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
const REASONS = ["invalid_state", "access_denied", "code_refused", "provider_unavailable", "no_credentials"] as const;

export function shippingRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const shipping = services.shipping;

  async function view(p: PanelCtx, o: { result?: string; reason?: string; errors?: FieldErrors; values?: Record<string, unknown>; authorizeUrl?: string } = {}) {
    const { t } = p;
    const s = await shipping.status(p.ctx);
    const result = o.result === "connected" ? `<div class="alert ok" role="status">${esc(t("ship.connected"))}</div>`
      : o.result === "error" ? `<div class="alert error" role="alert">${esc(t("ship.failed", { reason: (REASONS as readonly string[]).includes(o.reason ?? "") ? t(`ship.reason.${o.reason as (typeof REASONS)[number]}`) : t("ship.reason.unknown") }))}</div>` : "";
    let servicesBlock = "";
    if (s.connected) {
      const available = await attempt(() => shipping.services(p.ctx), t);
      const enabled = new Set(o.values ? list(o.values, "enabledServices").map(Number) : s.enabledServices);
      servicesBlock = `<section class="card" aria-labelledby="ss"><h2 id="ss">${esc(t("ship.settings"))}</h2>${formErrors(p, o.errors)}
<form method="post" action="/panel/shipping/settings">${csrfInput(p)}
${field({ name: "originPostalCode", label: t("ship.origin"), value: o.values?.originPostalCode ?? s.originPostalCode ?? "", errors: o.errors, attrs: 'inputmode="numeric" autocomplete="postal-code"', required: true })}
<fieldset><legend>${esc(t("ship.services"))}</legend>${available.ok ? available.value.map((x) => checkbox({ name: "enabledServices", value: String(x.id), label: `${x.company.name} ${x.name}`, checked: enabled.has(x.id) })).join("") : `<p class="error">${esc(Object.values(available.errors)[0] ?? "")}</p>`}
${o.errors?.enabledServices ? `<p class="error">${esc(o.errors.enabledServices)}</p>` : ""}</fieldset>
<button type="submit" class="primary">${esc(t("ship.save"))}</button></form></section>`;
    }
    const connectBlock = o.authorizeUrl
      ? `<p><a class="button primary" href="${esc(o.authorizeUrl)}">${esc(t("ship.continue"))}</a></p><p class="hint">${esc(t("ship.continueHint"))}</p>`
      : s.hasCredentials ? `<form method="post" action="/panel/shipping/connect" class="inline">${csrfInput(p)}<button type="submit" class="primary">${esc(t(s.connected ? "ship.reconnect" : "ship.connect"))}</button></form>` : "";
    return `${result}<section class="card" aria-labelledby="st"><h2 id="st">Melhor Envio</h2>${dl([
      [t("col.status"), s.connected ? badge("connected", t("ship.statusConnected")) : badge("inactive", t("ship.statusNot"))],
      [t("ship.clientId"), esc(s.clientId ?? "—")], [t("ship.origin"), esc(s.originPostalCode ?? "—")],
      [t("ship.tokenExpires"), esc(p.date(s.tokenExpiresAt))],
    ])}${connectBlock}${s.connected ? actionButton(p, "/panel/shipping/disconnect", t("ship.disconnect"), { danger: true }) : ""}</section>
${servicesBlock}
<section class="card" aria-labelledby="cr"><h2 id="cr">${esc(t("ship.credentials"))}</h2><p>${esc(t("ship.credentialsHint", { callback: `${kit.deps.config.publicBaseUrl}/v1/shipping-provider/oauth/callback` }))}</p>
<form method="post" action="/panel/shipping/credentials">${csrfInput(p)}
${field({ name: "clientId", label: t("ship.clientId"), value: o.values?.clientId ?? s.clientId ?? "", errors: o.errors, required: true, attrs: 'autocomplete="off"' })}
${field({ name: "clientSecret", label: t("ship.clientSecret"), type: "password", errors: o.errors, required: true, attrs: 'autocomplete="off"', hint: t("ship.secretHint") })}
<button type="submit">${esc(t("ship.saveCredentials"))}</button></form></section>`;
  }

  const page = async (p: PanelCtx, o: Parameters<typeof view>[1] = {}) => renderPage(p, { title: t(p), area: "shipping", body: await view(p, o), path: "/panel/shipping" });
  const t = (p: PanelCtx) => p.t("nav.shipping");

  return async (app: FastifyInstance) => {
    app.get<{ Querystring: { shipping?: string; reason?: string } }>("/panel/shipping", hidden, async (req, reply) =>
      kit.html(reply, await page(req.panel!, { result: req.query.shipping, reason: req.query.reason })));

    app.post("/panel/shipping/credentials", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const input = { clientId: text(form, "clientId") ?? "", clientSecret: typeof form.clientSecret === "string" ? form.clientSecret : "" };
      let errors = checkBody(CredentialsBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => shipping.saveCredentials(p.ctx, input), p.t, { clientId: "", clientSecret: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/shipping", { notice: p.t("ship.credentialsSaved") });
        errors = done.errors;
      }
      // The secret typed is never sent back into the page.
      return kit.html(reply, await page(p, { errors, values: { clientId: form.clientId } }), 422);
    });

    app.post("/panel/shipping/connect", hidden, async (req, reply) => {
      const p = req.panel!;
      const done = await attempt(() => shipping.authorizeUrl(p.ctx), p.t);
      if (!done.ok) return kit.redirect(reply, p, "/panel/shipping", { notice: Object.values(done.errors)[0] });
      return kit.html(reply, await page(p, { authorizeUrl: done.value.url }));
    });

    app.post("/panel/shipping/settings", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const input = { originPostalCode: text(form, "originPostalCode") ?? "", enabledServices: list(form, "enabledServices").map((s) => (/^\d+$/.test(s) ? Number(s) : s)) };
      let errors = checkBody(SettingsBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => shipping.updateSettings(p.ctx, input as { originPostalCode: string; enabledServices: number[] }), p.t, { originPostalCode: "", enabledServices: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/shipping", { notice: p.t("ship.saved") });
        errors = done.errors;
      }
      return kit.html(reply, await page(p, { errors, values: form }), 422);
    });

    app.post("/panel/shipping/disconnect", hidden, async (req, reply) => {
      const p = req.panel!;
      await shipping.disconnect(p.ctx);
      return kit.redirect(reply, p, "/panel/shipping", { notice: p.t("ship.disconnected") });
    });
  };
}
