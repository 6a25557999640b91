import type { FastifyInstance } from "fastify";
import { CredentialsBody, SettingsBody } from "../../modules/shipping/shipping.schemas.js";
import type { PanelCtx } from "./context.js";
import { attempt, checkBody } from "./forms.js";
import type { PanelKit } from "./kit.js";
import { renderPage } from "./pages/layout.js";
import { shippingPage, type ShippingForm } from "./pages/shipping.js";
import { CredentialsForm, NoFields, ReturnQuery, ShippingSettingsForm } from "./panel.schemas.js";
import { panelRouter } from "./router.js";

// Shipping: the app's credentials, the OAuth round trip (the provider sends the browser back to
// feira's callback, which redirects to PANEL_URL with the outcome; /panel forwards it here),
// origin CEP and enabled services, and disconnect. The page is pages/shipping.ts.

export function shippingRoutes(kit: PanelKit) {
  const shipping = kit.deps.services.shipping;

  async function page(p: PanelCtx, o: ShippingForm = {}) {
    const status = await shipping.status(p.ctx);
    const services = status.connected ? await attempt(() => shipping.services(p.ctx), p.t) : undefined;
    const callbackUrl = `${kit.deps.config.publicBaseUrl}/v1/shipping-provider/oauth/callback`;
    return renderPage(p, { title: p.t("nav.shipping"), area: "shipping", body: shippingPage(p, { status, services, callbackUrl }, o), path: "/panel/shipping" });
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel/shipping", ReturnQuery, async ({ p, form }, reply) => kit.html(reply, await page(p, { result: form.shipping, reason: form.reason })));

    route.post("/panel/shipping/credentials", CredentialsForm, async ({ p, form, errors: formErrors }, reply) => {
      const input = { clientId: form.clientId ?? "", clientSecret: form.clientSecret ?? "" };
      let errors = formErrors ?? checkBody(CredentialsBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => shipping.saveCredentials(p.ctx, input), p.t, { clientId: "", clientSecret: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/shipping", { notice: p.t("ship.credentialsSaved") });
        errors = done.errors;
      }
      // The secret typed is never sent back into the page.
      return kit.html(reply, await page(p, { errors, values: { clientId: form.clientId } }), 422);
    });

    route.post("/panel/shipping/connect", NoFields, async ({ p }, reply) => {
      const done = await attempt(() => shipping.authorizeUrl(p.ctx), p.t);
      if (!done.ok) return kit.redirect(reply, p, "/panel/shipping", { notice: Object.values(done.errors)[0] });
      return kit.html(reply, await page(p, { authorizeUrl: done.value.url }));
    });

    route.post("/panel/shipping/settings", ShippingSettingsForm, async ({ p, form, errors: formErrors, sent }, reply) => {
      const input = { originPostalCode: form.originPostalCode ?? "", enabledServices: (form.enabledServices ?? []).map((s) => (/^\d+$/.test(s) ? Number(s) : s)) };
      let errors = formErrors ?? checkBody(SettingsBody, input, p.t);
      if (!errors) {
        const done = await attempt(() => shipping.updateSettings(p.ctx, input as { originPostalCode: string; enabledServices: number[] }), p.t, { originPostalCode: "", enabledServices: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/shipping", { notice: p.t("ship.saved") });
        errors = done.errors;
      }
      return kit.html(reply, await page(p, { errors, values: sent }), 422);
    });

    route.post("/panel/shipping/disconnect", NoFields, async ({ p }, reply) => {
      await shipping.disconnect(p.ctx);
      return kit.redirect(reply, p, "/panel/shipping", { notice: p.t("ship.disconnected") });
    });
  };
}
