import { DOCUMENT_KINDS, REQUIRED_DOCUMENTS, type DocumentKind } from "../../../modules/connect/connect.schemas.js";
import { PUBLIC_STATUSES } from "../../../modules/connect/submerchant-status.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { formatDocument } from "../format.js";
import { badge, checkbox, csrfInput, dl, field, fieldError, formErrors, link, numberPager, select, table, type Attrs } from "../ui.js";
import { deliveryList, type DeliveryView } from "./webhooks.js";

// Connect, for masters only: submerchants with the API's filters and pages and the registration
// form; one submerchant (facts, the five KYC documents, the status notifications sent to its
// postback URL, its payout requests); and the list of every payout request.

type Query = Record<string, string | undefined>;
type Submerchant = {
  id: string; tradeName: string; legalName: string; companyTaxId: string; status: string; statusReason?: string | null; createdAt: string;
  contactEmail: string; website: string; averageMonthlyRevenue: number; softDescriptor?: string | null; totalSales: number; postbackUrl?: string | null;
};
type Payout = {
  id: string; merchantId: string; amount: number; payoutFee: number; netAmount: number; status: string; createdAt: string; reason: string | null;
  endToEndId: string | null; transfer: { status: "sending" | "sent" | "failed" } | null; source: "platform" | "provider";
};

/** The Pix transfer's state (when a processor sends it) and the end-to-end id that paid the payout. */
function transferCell(p: PanelCtx, r: Payout): Html {
  if (!r.transfer && !r.endToEndId) return html`—`;
  return html`${r.transfer && badge(r.transfer.status, p.t(`transfer.${r.transfer.status}`))}${r.transfer && r.endToEndId && " "}${r.endToEndId && html`<code>${r.endToEndId}</code>`}`;
}

/**
 * The status, and who pays: feira (a request approved or rejected here) or the processor (provider
 * settlement: a record of its transfer from the seller's balance there, which nobody decides).
 */
function statusCell(p: PanelCtx, r: Payout): Html {
  const { t } = p;
  return html`${badge(r.status, t(`payout.${r.status}`))}${r.reason && ` ${t(`reason.${r.reason}`)}`}<br><span class="muted">${t(`payout.source.${r.source}`)}</span>`;
}

/**
 * Payout requests. With `names` (the payouts page) the first column is the submerchant, by its
 * trade name, with the payout's id under it: a column each for the two did not fit a desktop
 * card beside the end-to-end id. On a submerchant's own page it is the id alone.
 */
function payoutTable(p: PanelCtx, rows: Payout[], names?: Map<string, string>): Html {
  const { t } = p;
  return table([names ? t("connect.submerchant") : t("col.id"), t("col.amount"), t("charges.net"), t("col.status"), t("payout.transfer"), t("col.created")], rows.map((r) => [
    names ? html`${link(`/panel/connect/${r.merchantId}`, names.get(r.merchantId) ?? r.merchantId)}<br><code class="muted">${r.id}</code>` : html`<code>${r.id}</code>`,
    // The fee under the amount it is taken from, not a column of its own (the table fits a desktop card).
    html`${p.money(r.amount, "BRL")}<br><span class="muted">${t("connect.fee")}: ${p.money(r.payoutFee, "BRL")}</span>`,
    p.money(r.netAmount, "BRL"), statusCell(p, r), transferCell(p, r), p.date(r.createdAt),
  ]), t("connect.noPayouts"));
}

function registerForm(p: PanelCtx, errors?: FieldErrors, v: Record<string, unknown> = {}): Html {
  const { t } = p;
  const f = (name: string, type = "text", required = true, attrs: Attrs = {}) => field({ name, label: t(`connect.f.${name}` as Parameters<typeof t>[0]), type, value: v[name], errors, required, attrs, prefix: "sm" });
  return html`<section class="card" aria-labelledby="reg"><h2 id="reg">${t("connect.register")}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/connect">${csrfInput(p)}<div class="grid2">
${f("tradeName")}${f("legalName")}${f("companyTaxId", "text", true, { inputmode: "numeric", autocomplete: "off" })}${f("contactEmail", "email")}${f("website", "url")}
${select({ name: "productType", label: t("connect.f.productType"), value: v.productType, errors, prefix: "sm", options: [["physical", t("connect.physical")], ["digital", t("connect.digital")], ["both", t("connect.both")]] })}
${f("averageMonthlyRevenue", "text", true, { inputmode: "decimal" })}${f("averageOrderValue", "text", true, { inputmode: "decimal" })}${f("softDescriptor", "text", false)}${f("postbackUrl", "url", false)}
</div>${field({ name: "productDescription", label: t("connect.f.productDescription"), type: "textarea", value: v.productDescription, errors, required: true, prefix: "sm" })}
<button type="submit" class="primary">${t("connect.registerSubmit")}</button></form></section>`;
}

export function submerchantsPage(p: PanelCtx, o: { q: Query; filterErrors?: FieldErrors; page: { data: Submerchant[]; page: number; pages: number; total: number }; errors?: FieldErrors; values?: Record<string, unknown> }): Html {
  const { t } = p;
  const { q, filterErrors, page } = o;
  const rows = page.data.map((s) => [link(`/panel/connect/${s.id}`, s.tradeName), s.legalName, formatDocument("cnpj", s.companyTaxId), badge(s.status, t(`sm.${s.status}`)), p.date(s.createdAt)]);
  return html`<form method="get" action="/panel/connect" class="filters" role="search">
${select({ name: "status", label: t("col.status"), value: q.status, errors: filterErrors, options: [["", t("filter.any")], ...PUBLIC_STATUSES.map((s): [string, string] => [s, t(`sm.${s}`)])] })}
${field({ name: "tradeName", label: t("connect.f.tradeName"), value: q.tradeName, errors: filterErrors })}
${field({ name: "legalName", label: t("connect.f.legalName"), value: q.legalName, errors: filterErrors })}
${field({ name: "companyTaxId", label: t("connect.f.companyTaxId"), value: q.companyTaxId, errors: filterErrors })}
${field({ name: "createdAt", label: t("connect.createdOn"), type: "date", value: q.createdAt, errors: filterErrors })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button> ${link("/panel/connect", t("filter.clear"))}</div></form>
${formErrors(p, filterErrors)}
<section class="card" aria-labelledby="sms"><h2 id="sms">${t("connect.submerchants", { n: page.total })}</h2>
${table([t("connect.f.tradeName"), t("connect.f.legalName"), t("connect.f.companyTaxId"), t("col.status"), t("col.created")], rows, t("connect.empty"))}
${numberPager(p, "/panel/connect", q, page.page, page.pages)}</section>
<p>${link("/panel/connect/payouts", t("connect.payouts"))} · ${link("/panel/settings", t("connect.defaultSplit"))}</p>
${registerForm(p, o.errors, o.values)}`;
}

export interface SubmerchantView {
  s: Submerchant;
  docs: { documents: { kind: DocumentKind; uploadedAt: string | Date }[]; complete: boolean };
  deliveries: DeliveryView[];
  payouts: Payout[];
  /** Its accounts at processors and their reconciliation (pages/provider-accounts.ts). */
  providerAccounts?: Html;
}

export function submerchantPage(p: PanelCtx, v: SubmerchantView, errors: { docs?: FieldErrors; payout?: FieldErrors } = {}, values: Record<string, unknown> = {}): Html {
  const { t } = p;
  const { s, docs } = v;
  const have = new Map(docs.documents.map((d) => [d.kind, d]));
  const docRows = DOCUMENT_KINDS.map((k) => [t(`connect.doc.${k}`), have.has(k) ? html`${badge("approved", t("connect.onFile"))} ${p.date(have.get(k)!.uploadedAt)}` : REQUIRED_DOCUMENTS.includes(k) ? badge("pending", t("connect.missing")) : t("connect.optional")]);
  const docErr = errors.docs;
  return html`<p>${link("/panel/connect", t("connect.back"))}</p>
<section class="card" aria-labelledby="smf"><h2 id="smf">${t("connect.account")}</h2>${dl([
    [t("col.status"), html`${badge(s.status, t(`sm.${s.status}`))}${s.statusReason && ` ${s.statusReason}`}`], [t("col.id"), html`<code>${s.id}</code>`],
    [t("connect.f.legalName"), s.legalName], [t("connect.f.companyTaxId"), formatDocument("cnpj", s.companyTaxId)],
    [t("connect.f.contactEmail"), s.contactEmail], [t("connect.f.website"), s.website],
    [t("connect.f.averageMonthlyRevenue"), p.units(s.averageMonthlyRevenue, "BRL")], [t("connect.f.softDescriptor"), s.softDescriptor ?? "—"],
    [t("connect.totalSales"), String(s.totalSales)], [t("col.created"), p.date(s.createdAt)],
  ])}</section>
<section class="card" aria-labelledby="docs"><h2 id="docs">${t("connect.documents")}</h2>
${table([t("connect.document"), t("col.status")], docRows, "")}
${docs.complete && html`<p>${t("connect.docsComplete")}</p>`}
${formErrors(p, docErr)}
<form method="post" action="/panel/connect/${s.id}/documents" enctype="multipart/form-data">${csrfInput(p)}
${DOCUMENT_KINDS.map((k) => field({ name: k, label: t(`connect.doc.${k}`), type: "file", errors: docErr, attrs: { accept: "application/pdf,image/jpeg,image/png" }, prefix: "doc" }))}
<p class="hint">${t("connect.docHint")}</p><button type="submit" class="primary">${t("connect.upload")}</button></form></section>
<section class="card" aria-labelledby="notif"><h2 id="notif">${t("connect.notifications")}</h2>${s.postbackUrl ? html`<p>${t("connect.postbackTo", { url: s.postbackUrl })}</p>` : html`<p>${t("connect.noPostback")}</p>`}
${deliveryList(p, v.deliveries, { resend: false, eventLinks: false })}</section>
${v.providerAccounts}
<section class="card" aria-labelledby="po"><h2 id="po">${t("connect.payouts")}</h2>${payoutTable(p, v.payouts)}
${formErrors(p, errors.payout)}
<form method="post" action="/panel/connect/${s.id}/payouts">${csrfInput(p)}
${field({ name: "amount", label: t("connect.payoutAmount"), value: values.amount, errors: errors.payout, attrs: { inputmode: "decimal" }, required: true, prefix: "po", hint: t("connect.payoutAmountHint") })}
${p.ctx.environment === "production" && html`${checkbox({ name: "confirm", label: t("confirm.payout"), prefix: "po" })}${fieldError(errors.payout?.confirm)}`}
<button type="submit">${t("connect.requestPayout")}</button></form></section>`;
}

export function payoutsPage(p: PanelCtx, q: Query, errors: FieldErrors | undefined, list: { data: Payout[]; page: number; pages: number }, names: Map<string, string>): Html {
  const { t } = p;
  return html`<p>${link("/panel/connect", t("connect.back"))}</p><form method="get" action="/panel/connect/payouts" class="filters" role="search">
${select({ name: "status", label: t("col.status"), value: q.status, errors, options: [["", t("filter.any")], ...["pending", "approved", "rejected", "returned"].map((s): [string, string] => [s, t(`payout.${s}`)])] })}
${field({ name: "merchantId", label: t("connect.submerchant"), value: q.merchantId, errors })}${field({ name: "createdAt", label: t("connect.createdOn"), type: "date", value: q.createdAt, errors })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button></div></form>${formErrors(p, errors)}
${payoutTable(p, list.data, names)}${numberPager(p, "/panel/connect/payouts", q, list.page, list.pages)}`;
}
