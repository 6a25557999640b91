import type { FastifyInstance } from "fastify";
import { CreateLinkBody } from "../../modules/payment-links/payment-links.schemas.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, rowText } from "./forms.js";
import { buyersOf } from "./buyers.js";
import type { PanelKit } from "./kit.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { linkPage, linksPage } from "./pages/links.js";
import { CursorQuery, LINK_PRODUCT_ROWS, LinkForm, NoFields } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { qrFigure } from "./ui.js";
import { urlPath } from "../../lib/url-path.js";

// Payment links: create, deactivate, and the link's page with its QR code (SVG made here by the
// qrcode library). The pages are pages/links.ts.

const PRODUCT_FIELDS = ["title", "unitPrice", "quantity", "width", "height", "length", "weight"];

/** The API body from the form; product rows left without a title are not products. */
function linkBody(form: Record<string, unknown> & { title?: string; description?: string; currency?: string; freightMode?: string; fixedFreightAmount?: string; successUrl?: string }) {
  const products = [];
  for (let i = 0; i < LINK_PRODUCT_ROWS; i++) {
    const g = (name: string) => rowText(form, `products.${i}.${name}`);
    if (!g("title") && i > 0) continue;
    products.push(compact({
      title: g("title") ?? "", unitPrice: amount(g("unitPrice")) ?? "", quantity: amount(g("quantity")) ?? 1,
      physical: g("physical") === "on", width: amount(g("width")), height: amount(g("height")), length: amount(g("length")), weight: amount(g("weight")),
    }));
  }
  return compact({
    title: form.title ?? "", description: form.description, currency: (form.currency ?? "").toUpperCase(),
    freightMode: form.freightMode ?? "", fixedFreightAmount: amount(form.fixedFreightAmount), products, successUrl: form.successUrl,
  });
}

export function linkRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const links = services.paymentLinks.service;

  async function listPage(p: PanelCtx, q: { startingAfter?: string; endingBefore?: string }, errors?: FieldErrors, values?: Record<string, unknown>) {
    const page = await links.list(p.ctx, compact({ limit: 20, startingAfter: q.startingAfter, endingBefore: q.endingBefore }));
    return renderPage(p, { title: p.t("nav.links"), area: "links", body: linksPage(p, q, page, errors, values), path: "/panel/links" });
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel/links", CursorQuery, async ({ p, form }, reply) => kit.html(reply, await listPage(p, form)));

    route.post("/panel/links", LinkForm, async ({ p, form, errors: formErrors, sent }, reply) => {
      const input = linkBody(form);
      let errors = formErrors ?? checkBody(CreateLinkBody, input, p.t);
      if (!errors) {
        const fields = Object.fromEntries(["title", "currency", "freightMode", "fixedFreightAmount", "successUrl", "description", "products"].map((f) => [f, ""]));
        for (let i = 0; i < LINK_PRODUCT_ROWS; i++) for (const f of PRODUCT_FIELDS) fields[`products.${i}.${f}`] = "";
        const done = await attempt(() => links.create(p.ctx, input as Parameters<typeof links.create>[1]), p.t, fields);
        if (done.ok) return kit.redirect(reply, p, urlPath`/panel/links/${done.value.id}`, { notice: p.t("links.created") });
        errors = done.errors;
      }
      return kit.html(reply, await listPage(p, {}, errors, sent), 422);
    });

    route.get("/panel/links/:id", CursorQuery, async ({ p, params, form: q }, reply) => {
      const found = await attempt(() => links.get(p.ctx, params.id), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "links", message: p.t("notFound.generic"), path: "/panel/links" }), 404);
      const l = found.value;
      const payments = await links.payments(p.ctx, l.id, compact({ limit: 20, ...q }));
      const qr = await qrFigure(l.url, p.t("links.qr"));
      return kit.html(reply, renderPage(p, { title: l.title, area: "links", body: linkPage(p, l, qr, q, payments, await buyersOf(kit.deps.services, p, payments.data)), path: `/panel/links/${l.id}` }));
    });

    route.post("/panel/links/:id/deactivate", NoFields, async ({ p, params }, reply) => {
      const done = await attempt(() => links.deactivate(p.ctx, params.id), p.t);
      return kit.redirect(reply, p, urlPath`/panel/links/${params.id}`, { notice: done.ok ? p.t("links.deactivated") : Object.values(done.errors)[0] });
    });
  };
}
