import { CHARGE_STATUSES, type toChargeResponse } from "../../../modules/charges/index.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { badge, cursorPager, field, formErrors, link, select, table } from "../ui.js";

// The charges list: the API's filters (status, method, customer, dates), search by id or e-mail,
// pagination and the CSV export of the same filtered list. The table is shared with the pages
// that list a customer's, a link's or the latest charges.

/** A charge as the API answers it, which is what the panel shows. */
export type ChargeView = ReturnType<typeof toChargeResponse>;
export type ChargesFilter = { q?: string; status?: string; paymentMethod?: string; customerId?: string; from?: string; to?: string; startingAfter?: string; endingBefore?: string };

const METHODS = ["credit_card", "debit_card", "pix", "pix_automatico", "boleto", "open_finance", "qr_code", "bank_transfer", "oxxo", "spei", "pse"];

/** A charge's buyer as a list shows them: the name, the e-mail under it. */
export type Buyer = { name: string; email: string | null };
export const buyerCell = (b: Buyer | undefined): Html | string => (b ? html`${b.name}${b.email && html`<br><span class="muted">${b.email}</span>`}` : "—");

/** The charges of a list; with `buyers` (by customer id) a column says who paid each. */
export function chargeTable(p: PanelCtx, rows: ChargeView[], buyers?: Map<string, Buyer>): Html {
  const { t } = p;
  // The method under the amount, not a column of its own: with the buyer's the table still fits a desktop card.
  return table([t("col.id"), ...(buyers ? [t("col.customer")] : []), t("col.status"), t("col.amount"), t("col.created")], rows.map((c) => [
    link(`/panel/charges/${c.id}`, c.id),
    ...(buyers ? [buyerCell(c.customerId ? buyers.get(c.customerId) : undefined)] : []),
    badge(c.status, t(`status.${c.status}`)),
    html`${p.units(c.amount, c.currency)}<br><span class="muted">${t(`method.${c.paymentMethod.type}`)}</span>`,
    p.date(c.createdAt),
  ]), t("charges.empty"));
}

export function chargesPage(p: PanelCtx, o: { q: ChargesFilter; errors: FieldErrors | null; noCustomer: boolean; page: { data: ChargeView[]; hasMore: boolean }; buyers: Map<string, Buyer>; exportQuery: string }): Html {
  const { t } = p;
  const { q } = o;
  const errors = o.errors ?? undefined;
  const filters = html`<form method="get" action="/panel/charges" class="filters" role="search">
${field({ name: "q", label: t("charges.search"), value: q.q, hint: t("charges.searchHint"), errors })}
${select({ name: "status", label: t("col.status"), value: q.status, options: [["", t("filter.any")], ...CHARGE_STATUSES.map((s): [string, string] => [s, t(`status.${s}`)])], errors })}
${select({ name: "paymentMethod", label: t("col.method"), value: q.paymentMethod, options: [["", t("filter.any")], ...METHODS.map((m): [string, string] => [m, t(`method.${m}`)])], errors })}
${field({ name: "customerId", label: t("charges.customerId"), value: q.customerId, errors })}
${field({ name: "from", label: t("filter.from"), type: "date", value: q.from, errors })}
${field({ name: "to", label: t("filter.to"), type: "date", value: q.to, errors })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button> ${link("/panel/charges", t("filter.clear"))}</div>
</form>`;
  return html`${filters}${formErrors(p, errors)}
<p class="toolbar"><a class="button" href="/panel/charges.csv?${o.exportQuery}" download>${t("charges.export")}</a></p>
${o.noCustomer ? html`<p class="empty">${t("charges.noCustomer")}</p>` : chargeTable(p, o.page.data, o.buyers)}
${cursorPager(p, "/panel/charges", q, o.page)}`;
}
