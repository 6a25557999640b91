import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { LINK_PRODUCT_ROWS } from "../panel.schemas.js";
import { actionButton, badge, checkbox, csrfInput, cursorPager, dl, field, fieldError, formErrors, link, select, table, type Attrs } from "../ui.js";
import { chargeTable, type Buyer, type ChargeView } from "./charges.js";

// Payment links: the list and the creation form (products, freight mode, success URL), and one
// link with its URL (a copy button and a QR code), deactivation and the payments made through it.

type Cursor = { startingAfter?: string; endingBefore?: string };
type LinkRow = { id: string; title: string; subtotal: number; currency: string; freightMode: "free" | "fixed" | "checkout" | "pickup"; active: boolean; createdAt: string };
export type LinkView = LinkRow & { url: string; successUrl: string | null; products: { title: string; unitPrice: number; quantity: number }[] };

function productInputs(p: PanelCtx, i: number, v: Record<string, unknown>, errors?: FieldErrors): Html {
  const { t } = p;
  const n = (name: string) => `products.${i}.${name}`;
  const f = (name: string, label: string, attrs: Attrs = {}) => field({ name: n(name), label, value: v[n(name)], errors, attrs, prefix: "link" });
  const decimal = { inputmode: "decimal" };
  return html`<fieldset><legend>${t("links.product", { n: i + 1 })}</legend><div class="grid2">
${f("title", t("links.productTitle"))}${f("unitPrice", t("links.unitPrice"), decimal)}${f("quantity", t("col.quantity"), { inputmode: "numeric" })}
${checkbox({ name: n("physical"), label: t("links.physical"), checked: v[n("physical")] === "on", prefix: "link" })}
${f("width", t("links.width"), decimal)}${f("height", t("links.height"), decimal)}${f("length", t("links.length"), decimal)}${f("weight", t("links.weight"), decimal)}
</div></fieldset>`;
}

export function linksPage(p: PanelCtx, q: Cursor, page: { data: LinkRow[]; hasMore: boolean }, errors?: FieldErrors, v: Record<string, unknown> = {}): Html {
  const { t } = p;
  const rows = page.data.map((l) => [link(`/panel/links/${l.id}`, l.title), p.units(l.subtotal, l.currency), t(`links.freight.${l.freightMode}`), l.active ? badge("active", t("links.active")) : badge("inactive", t("links.inactive")), p.date(l.createdAt)]);
  return html`<section class="card" aria-labelledby="ll"><h2 id="ll">${t("nav.links")}</h2>${table([t("links.title"), t("links.subtotal"), t("links.freightMode"), t("col.status"), t("col.created")], rows, t("links.empty"))}${cursorPager(p, "/panel/links", q, page)}</section>
<section class="card" aria-labelledby="nl"><h2 id="nl">${t("links.new")}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/links">${csrfInput(p)}<div class="grid2">
${field({ name: "title", label: t("links.title"), value: v.title, errors, required: true, prefix: "link" })}
${field({ name: "currency", label: t("home.currency"), value: v.currency ?? "BRL", errors, required: true, prefix: "link" })}
${select({ name: "freightMode", label: t("links.freightMode"), value: v.freightMode ?? "free", errors, prefix: "link", options: (["free", "fixed", "checkout", "pickup"] as const).map((m): [string, string] => [m, t(`links.freight.${m}`)]) })}
${field({ name: "fixedFreightAmount", label: t("links.fixedFreight"), value: v.fixedFreightAmount, errors, prefix: "link", attrs: { inputmode: "decimal" }, hint: t("links.fixedFreightHint") })}
${field({ name: "successUrl", label: t("links.successUrl"), type: "url", value: v.successUrl, errors, prefix: "link" })}
</div>${field({ name: "description", label: t("dev.description"), type: "textarea", value: v.description, errors, prefix: "link" })}
${fieldError(errors?.products)}
${Array.from({ length: LINK_PRODUCT_ROWS }, (_, i) => productInputs(p, i, v, errors))}
<button type="submit" class="primary">${t("links.create")}</button></form></section>`;
}

/** `qr` is the link's URL as a QR code (qrFigure). */
export function linkPage(p: PanelCtx, l: LinkView, qr: Html, q: Cursor, payments: { data: ChargeView[]; hasMore: boolean }, buyers: Map<string, Buyer>): Html {
  const { t } = p;
  const base = `/panel/links/${l.id}`;
  return html`<p>${link("/panel/links", t("links.back"))}</p>
<section class="card" aria-labelledby="lu"><h2 id="lu">${t("links.share")}</h2>
<div class="field"><label for="link-url">${t("links.url")}</label><input id="link-url" type="text" readonly value="${l.url}"></div>
<p><button type="button" class="copy" data-copy="${l.url}">${t("action.copy")}</button> <a href="${l.url}">${t("links.open")}</a></p>
${qr}</section>
<section class="card" aria-labelledby="ld"><h2 id="ld">${l.title}</h2>${dl([
    [t("col.status"), l.active ? badge("active", t("links.active")) : badge("inactive", t("links.inactive"))], [t("links.subtotal"), p.units(l.subtotal, l.currency)],
    [t("links.freightMode"), t(`links.freight.${l.freightMode}`)], [t("links.successUrl"), l.successUrl ?? "—"], [t("col.created"), p.date(l.createdAt)],
  ])}
${table([t("links.productTitle"), t("links.unitPrice"), t("col.quantity")], l.products.map((x) => [x.title, p.units(x.unitPrice, l.currency), x.quantity]), "")}
${l.active && actionButton(p, `${base}/deactivate`, t("links.deactivate"), { danger: true })}</section>
<section class="card" aria-labelledby="lp"><h2 id="lp">${t("links.payments")}</h2>${chargeTable(p, payments.data, buyers)}${cursorPager(p, base, q, payments)}</section>`;
}
