import type { toCustomer } from "../../../modules/customers/customers.service.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { formatDocument } from "../format.js";
import { cursorPager, dl, field, formErrors, link, table } from "../ui.js";
import { chargeTable, type ChargeView } from "./charges.js";

// Customers: the list (exact e-mail or document filter, as the API offers) and one customer with
// their charges.

export type CustomerView = ReturnType<typeof toCustomer>;
type Cursor = { startingAfter?: string; endingBefore?: string };
type Page<T> = { data: T[]; hasMore: boolean };

export function customersPage(p: PanelCtx, q: Cursor & { email?: string; documentId?: string }, errors: FieldErrors | undefined, page: Page<CustomerView>): Html {
  const { t } = p;
  const rows = page.data.map((c) => [link(`/panel/customers/${c.id}`, c.name), c.email ?? "—", formatDocument(c.documentType, c.documentId), p.date(c.createdAt)]);
  return html`<form method="get" action="/panel/customers" class="filters" role="search">
${field({ name: "email", label: t("col.email"), type: "email", value: q.email, errors })}
${field({ name: "documentId", label: t("col.document"), value: q.documentId, errors })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button> ${link("/panel/customers", t("filter.clear"))}</div></form>
${formErrors(p, errors)}
${table([t("col.name"), t("col.email"), t("col.document"), t("col.created")], rows, t("customers.empty"))}
${cursorPager(p, "/panel/customers", q, page)}`;
}

export function customerPage(p: PanelCtx, c: CustomerView, q: Cursor, charges: Page<ChargeView>): Html {
  const { t } = p;
  return html`<p>${link("/panel/customers", t("customers.back"))}</p>
<section class="card" aria-labelledby="c-title"><h2 id="c-title">${t("customers.profile")}</h2>${dl([
    [t("col.id"), html`<code>${c.id}</code>`], [t("col.email"), c.email ?? "—"],
    [t("col.document"), formatDocument(c.documentType, c.documentId)], [t("customers.phone"), c.phoneNumber ?? "—"],
    [t("col.created"), p.date(c.createdAt)],
  ])}</section>
<section class="card" aria-labelledby="cc-title"><h2 id="cc-title">${t("nav.charges")}</h2>${chargeTable(p, charges.data)}${cursorPager(p, `/panel/customers/${c.id}`, q, charges)}</section>`;
}
