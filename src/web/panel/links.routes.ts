import type { FastifyInstance } from "fastify";
import QRCode from "qrcode";
import { CreateLinkBody } from "../../modules/payment-links/payment-links.schemas.js";
import { esc } from "../html.js";
import { chargeTable } from "./charges.routes.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, text } from "./forms.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { actionButton, badge, checkbox, csrfInput, cursorPager, dl, field, formErrors, link, select, table } from "./ui.js";

// Payment links: create (products, freight mode, success URL), the link's URL with a copy
// button and a QR code (SVG made here), deactivate, and the payments made through it.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;
const PRODUCT_ROWS = 3;

function productInputs(p: PanelCtx, i: number, v: Record<string, unknown>, errors?: FieldErrors): string {
  const { t } = p;
  const n = (name: string) => `products.${i}.${name}`;
  const f = (name: string, label: string, attrs = "") => field({ name: n(name), label, value: v[n(name)], errors, attrs, prefix: "link" });
  return `<fieldset><legend>${esc(t("links.product", { n: i + 1 }))}</legend><div class="grid2">
${f("title", t("links.productTitle"))}${f("unitPrice", t("links.unitPrice"), 'inputmode="decimal"')}${f("quantity", t("col.quantity"), 'inputmode="numeric"')}
${checkbox({ name: n("physical"), label: t("links.physical"), checked: v[n("physical")] === "on", prefix: "link" })}
${f("width", t("links.width"), 'inputmode="decimal"')}${f("height", t("links.height"), 'inputmode="decimal"')}${f("length", t("links.length"), 'inputmode="decimal"')}${f("weight", t("links.weight"), 'inputmode="decimal"')}
</div></fieldset>`;
}

/** The API body from the form; product rows left without a title are not products. */
function linkBody(form: Record<string, unknown>) {
  const products = [];
  for (let i = 0; i < PRODUCT_ROWS; i++) {
    const g = (name: string) => `products.${i}.${name}`;
    if (!text(form, g("title")) && i > 0) continue;
    products.push(compact({
      title: text(form, g("title")) ?? "", unitPrice: amount(form, g("unitPrice")) ?? "", quantity: amount(form, g("quantity")) ?? 1,
      physical: form[g("physical")] === "on", width: amount(form, g("width")), height: amount(form, g("height")), length: amount(form, g("length")), weight: amount(form, g("weight")),
    }));
  }
  return compact({
    title: text(form, "title") ?? "", description: text(form, "description"), currency: (text(form, "currency") ?? "").toUpperCase(),
    freightMode: text(form, "freightMode") ?? "", fixedFreightAmount: amount(form, "fixedFreightAmount"), products, successUrl: text(form, "successUrl"),
  });
}

export function linkRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const links = services.paymentLinks.service;

  async function listPage(p: PanelCtx, q: Query, errors?: FieldErrors, v: Record<string, unknown> = {}) {
    const { t } = p;
    const page = await links.list(p.ctx, compact({ limit: 20, startingAfter: q.startingAfter || undefined, endingBefore: q.endingBefore || undefined }));
    const rows = page.data.map((l) => [link(`/panel/links/${l.id}`, l.title), esc(p.units(l.subtotal, l.currency)), esc(t(`links.freight.${l.freightMode}`)), l.active ? badge("active", t("links.active")) : badge("inactive", t("links.inactive")), esc(p.date(l.createdAt))]);
    return `<section class="card" aria-labelledby="ll"><h2 id="ll">${esc(t("nav.links"))}</h2>${table([t("links.title"), t("links.subtotal"), t("links.freightMode"), t("col.status"), t("col.created")], rows, t("links.empty"))}${cursorPager(p, "/panel/links", q, page)}</section>
<section class="card" aria-labelledby="nl"><h2 id="nl">${esc(t("links.new"))}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/links">${csrfInput(p)}<div class="grid2">
${field({ name: "title", label: t("links.title"), value: v.title, errors, required: true, prefix: "link" })}
${field({ name: "currency", label: t("home.currency"), value: v.currency ?? "BRL", errors, required: true, prefix: "link" })}
${select({ name: "freightMode", label: t("links.freightMode"), value: v.freightMode ?? "free", errors, prefix: "link", options: (["free", "fixed", "checkout", "pickup"] as const).map((m): [string, string] => [m, t(`links.freight.${m}`)]) })}
${field({ name: "fixedFreightAmount", label: t("links.fixedFreight"), value: v.fixedFreightAmount, errors, prefix: "link", attrs: 'inputmode="decimal"', hint: t("links.fixedFreightHint") })}
${field({ name: "successUrl", label: t("links.successUrl"), type: "url", value: v.successUrl, errors, prefix: "link" })}
</div>${field({ name: "description", label: t("dev.description"), type: "textarea", value: v.description, errors, prefix: "link" })}
${errors?.products ? `<p class="error">${esc(errors.products)}</p>` : ""}
${Array.from({ length: PRODUCT_ROWS }, (_, i) => productInputs(p, i, v, errors)).join("")}
<button type="submit" class="primary">${esc(t("links.create"))}</button></form></section>`;
  }

  const page = (p: PanelCtx, title: string, body: string, path: string) => renderPage(p, { title, area: "links", body, path });

  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>("/panel/links", hidden, async (req, reply) => {
      const p = req.panel!;
      return kit.html(reply, page(p, p.t("nav.links"), await listPage(p, req.query), "/panel/links"));
    });

    app.post("/panel/links", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const input = linkBody(form);
      let errors = checkBody(CreateLinkBody, input, p.t);
      if (!errors) {
        const fields = Object.fromEntries(["title", "currency", "freightMode", "fixedFreightAmount", "successUrl", "description", "products"].map((f) => [f, ""]));
        for (let i = 0; i < PRODUCT_ROWS; i++) for (const f of ["title", "unitPrice", "quantity", "width", "height", "length", "weight"]) fields[`products.${i}.${f}`] = "";
        const done = await attempt(() => links.create(p.ctx, input as Parameters<typeof links.create>[1]), p.t, fields);
        if (done.ok) return kit.redirect(reply, p, `/panel/links/${done.value.id}`, { notice: p.t("links.created") });
        errors = done.errors;
      }
      return kit.html(reply, page(p, p.t("nav.links"), await listPage(p, {}, errors, form), "/panel/links"), 422);
    });

    app.get<{ Params: { id: string }; Querystring: Query }>("/panel/links/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const found = await attempt(() => links.get(p.ctx, req.params.id), t);
      if (!found.ok) return kit.html(reply, page(p, t("notFound.title"), `<p>${esc(t("notFound.generic"))}</p>`, "/panel/links"), 404);
      const l = found.value;
      const q = { startingAfter: req.query.startingAfter, endingBefore: req.query.endingBefore };
      const payments = await links.payments(p.ctx, l.id, compact({ limit: 20, ...q }));
      const qr = await QRCode.toString(l.url, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
      const base = `/panel/links/${l.id}`;
      const body = `<p>${link("/panel/links", t("links.back"))}</p>
<section class="card" aria-labelledby="lu"><h2 id="lu">${esc(t("links.share"))}</h2>
<div class="field"><label for="link-url">${esc(t("links.url"))}</label><input id="link-url" type="text" readonly value="${esc(l.url)}"></div>
<p><button type="button" class="copy" data-copy="${esc(l.url)}">${esc(t("action.copy"))}</button> <a href="${esc(l.url)}">${esc(t("links.open"))}</a></p>
<figure class="qr"><div role="img" aria-label="${esc(t("links.qr"))}">${qr}</div><figcaption>${esc(t("links.qr"))}</figcaption></figure></section>
<section class="card" aria-labelledby="ld"><h2 id="ld">${esc(l.title)}</h2>${dl([
        [t("col.status"), l.active ? badge("active", t("links.active")) : badge("inactive", t("links.inactive"))], [t("links.subtotal"), esc(p.units(l.subtotal, l.currency))],
        [t("links.freightMode"), esc(t(`links.freight.${l.freightMode}`))], [t("links.successUrl"), esc(l.successUrl ?? "—")], [t("col.created"), esc(p.date(l.createdAt))],
      ])}
${table([t("links.productTitle"), t("links.unitPrice"), t("col.quantity")], l.products.map((x) => [esc(x.title), esc(p.units(x.unitPrice, l.currency)), esc(x.quantity)]), "")}
${l.active ? actionButton(p, `${base}/deactivate`, t("links.deactivate"), { danger: true }) : ""}</section>
<section class="card" aria-labelledby="lp"><h2 id="lp">${esc(t("links.payments"))}</h2>${chargeTable(p, payments.data)}${cursorPager(p, base, q, payments)}</section>`;
      return kit.html(reply, page(p, l.title, body, base));
    });

    app.post<{ Params: { id: string } }>("/panel/links/:id/deactivate", hidden, async (req, reply) => {
      const p = req.panel!;
      const done = await attempt(() => links.deactivate(p.ctx, req.params.id), p.t);
      return kit.redirect(reply, p, `/panel/links/${req.params.id}`, { notice: done.ok ? p.t("links.deactivated") : Object.values(done.errors)[0] });
    });
  };
}
