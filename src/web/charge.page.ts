import type { ChargePageView, HowToPay } from "../modules/charges/index.js";
import type { ChargeStatus } from "../modules/charges/index.js";
import { html, type Html } from "./html.js";
import { page } from "./page.js";
import { formatDate, formatMoney } from "./panel/format.js";
import { qrFigure } from "./panel/ui.js";
import { localeOf, translator, type Lang, type MessageKey, type T } from "./panel/i18n/i18n.js";

// The buyer's page of a charge (GET /r/{token}): the hosted checkout's look (its stylesheet, its
// layout: header, summary beside the panel), in the language the buyer's browser prefers. What a
// buyer needs of one charge: the merchant, what is due, how to pay it while it is pending, the
// receipt once paid; never the buyer's own data, so a forwarded link gives nothing else away.

const STATUS: Record<ChargeStatus, MessageKey> = {
  pending: "r.status.pending", paid: "r.status.paid", refunded: "r.status.refunded", failed: "r.status.failed",
  refused: "r.status.refused", in_analysis: "r.status.in_analysis",
  authentication_required: "r.status.authentication_required", charged_back: "r.status.charged_back",
};

/** Which story the page tells for a status. */
type Stage = "pending" | "paid" | "refunded" | "closed" | "review";
const STAGE: Record<ChargeStatus, Stage> = {
  pending: "pending", paid: "paid", refunded: "refunded", charged_back: "paid",
  failed: "closed", refused: "closed", in_analysis: "review", authentication_required: "review",
};
const HEADING: Record<Stage, MessageKey> = {
  pending: "r.heading.pending", paid: "r.heading.paid", refunded: "r.heading.refunded", closed: "r.heading.closed", review: "r.heading.review",
};

/** A read-only code with its label and a copy button (assets/charge.js copies it). */
function copyable(id: string, label: string, value: string, button: string, t: T, rows = 4): Html {
  return html`<label for="${id}">${label}</label>
    <textarea id="${id}" readonly rows="${rows}">${value}</textarea>
    <button type="button" class="secondary" data-copy="${id}" data-copied="${t("r.copied")}" aria-describedby="${id}-copied">${button}</button>
    <p class="status" id="${id}-copied" role="status" aria-live="polite"></p>`;
}

async function howToPaySection(how: HowToPay, t: T): Promise<Html> {
  switch (how.kind) {
    case "pix":
      return html`<section class="panel" aria-labelledby="pix-title">
    <h2 id="pix-title">${t("r.pix.title")}</h2>
    <p>${t("r.pix.help")}</p>
    ${await qrFigure(how.code, t("r.pix.qr"))}
    ${copyable("pix-code", t("r.pix.code"), how.code, t("r.copy"), t)}
    <p class="hint">${t("r.pix.payee")}</p>
  </section>`;
    case "boleto":
      return html`<section class="panel" aria-labelledby="boleto-title">
    <h2 id="boleto-title">${t("r.boleto.title")}</h2>
    <p>${t("r.boleto.help")}</p>
    ${copyable("boleto-line", t("r.boleto.line"), how.formattedLine ?? how.line, t("r.copyLine"), t, 3)}
    ${how.pixCode ? html`<h3 id="boleto-pix-title">${t("r.boleto.pixTitle")}</h3>
    <p>${t("r.boleto.pixHelp")}</p>
    ${await qrFigure(how.pixCode, t("r.pix.qr"))}
    ${copyable("boleto-pix-code", t("r.pix.code"), how.pixCode, t("r.copy"), t)}` : ""}
  </section>`;
    case "other":
      return html`<section class="panel"><p>${t("r.other")}</p></section>`;
  }
}

export async function renderChargePage(v: ChargePageView, lang: Lang): Promise<string> {
  const t = translator(lang);
  const locale = localeOf(lang);
  const money = (minor: number) => formatMoney(minor, v.currency, locale);
  const when = (d: Date | string | null, withTime = true) => formatDate(d, locale, withTime, v.timezone);
  const stage = STAGE[v.status];
  const status = t(v.status === "failed" && v.reason === "expired" ? "r.status.expired" : STATUS[v.status]);
  // A card is named as its buyer knows it: "Cartão Visa •••• 1111".
  const brand = v.card?.brand ? ` ${v.card.brand.charAt(0).toUpperCase()}${v.card.brand.slice(1)}` : "";
  const method = v.card?.lastFour ? `${t(`method.${v.method}`)}${brand} •••• ${v.card.lastFour}` : t(`method.${v.method}`);
  const boleto = v.howToPay?.kind === "boleto" ? v.howToPay : null;
  const settled = stage === "paid" || stage === "refunded";

  const receipt = settled ? html`<section class="panel" aria-labelledby="receipt-title">
    <h2 id="receipt-title">${t("r.receipt")}</h2>
    <dl class="totals">
      <div><dt>${t("r.paidAmount")}</dt><dd>${money(v.amountMinor)}</dd></div>
      <div><dt>${t("r.paidAt")}</dt><dd>${when(v.paidAt)}</dd></div>
      <div><dt>${t("r.method")}</dt><dd>${method}</dd></div>
      ${v.amountRefundedMinor > 0 ? html`<div><dt>${t("r.refunded")}</dt><dd>${money(v.amountRefundedMinor)}</dd></div>` : ""}
      <div><dt>${t("r.reference")}</dt><dd><strong>${v.chargeId}</strong></dd></div>
    </dl>
    <p class="hint">${t("r.keep")}</p>
  </section>` : "";

  const body = html`
<main class="checkout charge-page">
  <header class="top">
    <p class="merchant">${v.merchantName}</p>
    ${v.livemode ? "" : html`<p class="badge">${t("r.sandbox")}</p>`}
    <h1>${t(HEADING[stage])}</h1>
  </header>

  <section class="summary" aria-labelledby="summary-title">
    <h2 id="summary-title">${t("r.summary")}</h2>
    <dl class="totals">
      <div><dt>${t("r.status")}</dt><dd id="charge-status">${status}</dd></div>
      <div><dt>${t("r.method")}</dt><dd>${method}</dd></div>
      ${boleto?.dueDate ? html`<div><dt>${t("r.dueDate")}</dt><dd>${when(boleto.dueDate, false)}</dd></div>` : ""}
      ${stage === "pending" && v.expiresAt ? html`<div><dt>${t("r.payUntil")}</dt><dd>${when(v.expiresAt)}</dd></div>` : ""}
      <div class="grand"><dt>${t(stage === "pending" ? "r.amountDue" : "r.amount")}</dt><dd id="amount">${money(stage === "pending" ? v.amountDueMinor : v.amountMinor)}</dd></div>
    </dl>
  </section>

  ${v.howToPay ? await howToPaySection(v.howToPay, t) : ""}
  ${receipt}
  ${stage === "closed" ? html`<section class="panel"><p>${t("r.closed")}</p></section>` : ""}
  ${stage === "review" ? html`<section class="panel"><p>${t("r.review")}</p></section>` : ""}
</main>`;
  return page({ title: `${t("r.title", { merchant: v.merchantName })}`, body, lang, script: "charge.js" });
}

/** Any token that names no charge: the same page, with nothing about why. */
export function renderChargeNotFound(lang: Lang): string {
  const t = translator(lang);
  return page({
    title: t("r.notFound"),
    lang,
    script: "charge.js",
    body: html`
<main class="checkout notfound">
  <h1>${t("r.notFound")}</h1>
  <p>${t("r.notFoundText")}</p>
</main>`,
  });
}
