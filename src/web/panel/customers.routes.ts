import type { FastifyInstance } from "fastify";
import { toCustomer } from "../../modules/customers/customers.service.js";
import { ListCustomersQuery } from "../../modules/customers/customers.schemas.js";
import { esc } from "../html.js";
import { chargeTable } from "./charges.routes.js";
import { attempt, checkBody, compact } from "./forms.js";
import { formatDocument } from "./format.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { cursorPager, dl, field, formErrors, link, table } from "./ui.js";

// Customers: the list (exact e-mail or document filter, as the API offers) and a customer with
// their charges.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;

export function customerRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>("/panel/customers", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const q = req.query;
      const query = compact({ limit: 20, email: q.email || undefined, documentId: q.documentId?.replace(/[.\-/\s]/g, "") || undefined, startingAfter: q.startingAfter || undefined, endingBefore: q.endingBefore || undefined });
      const errors = checkBody(ListCustomersQuery, query, t) ?? undefined;
      const page = errors ? { data: [], hasMore: false } : await services.customers.list(p.ctx, query);
      const rows = page.data.map((c) => [link(`/panel/customers/${c.id}`, c.name), esc(c.email ?? "—"), esc(formatDocument(c.documentType, c.documentId)), esc(p.date(c.createdAt))]);
      const body = `<form method="get" action="/panel/customers" class="filters" role="search">
${field({ name: "email", label: t("col.email"), type: "email", value: q.email, errors })}
${field({ name: "documentId", label: t("col.document"), value: q.documentId, errors })}
<div class="actions"><button type="submit" class="primary">${esc(t("filter.apply"))}</button> ${link("/panel/customers", t("filter.clear"))}</div></form>
${formErrors(p, errors)}
${table([t("col.name"), t("col.email"), t("col.document"), t("col.created")], rows, t("customers.empty"))}
${cursorPager(p, "/panel/customers", q, page)}`;
      return kit.html(reply, renderPage(p, { title: t("nav.customers"), area: "customers", body, path: req.url }), errors ? 422 : 200);
    });

    app.get<{ Params: { id: string }; Querystring: Query }>("/panel/customers/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      const found = await attempt(async () => toCustomer(await services.customers.get(p.ctx, req.params.id)), t);
      if (!found.ok) return kit.html(reply, renderPage(p, { title: t("notFound.title"), area: "customers", body: `<p>${esc(t("notFound.customer"))}</p>`, path: "/panel/customers" }), 404);
      const c = found.value;
      const q = { startingAfter: req.query.startingAfter, endingBefore: req.query.endingBefore };
      const charges = await services.charges.list(p.ctx, compact({ customerId: c.id, limit: 20, ...q }));
      const body = `<p>${link("/panel/customers", t("customers.back"))}</p>
<section class="card" aria-labelledby="c-title"><h2 id="c-title">${esc(t("customers.profile"))}</h2>${dl([
        [t("col.id"), `<code>${esc(c.id)}</code>`], [t("col.email"), esc(c.email ?? "—")],
        [t("col.document"), esc(formatDocument(c.documentType, c.documentId))], [t("customers.phone"), esc(c.phoneNumber ?? "—")],
        [t("col.created"), esc(p.date(c.createdAt))],
      ])}</section>
<section class="card" aria-labelledby="cc-title"><h2 id="cc-title">${esc(t("nav.charges"))}</h2>${chargeTable(p, charges.data)}${cursorPager(p, `/panel/customers/${c.id}`, q, charges)}</section>`;
      return kit.html(reply, renderPage(p, { title: c.name, area: "customers", body, path: `/panel/customers/${c.id}` }));
    });
  };
}
