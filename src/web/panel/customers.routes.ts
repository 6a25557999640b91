import type { FastifyInstance } from "fastify";
import { toCustomer } from "../../modules/customers/customers.service.js";
import { ListCustomersQuery } from "../../modules/customers/customers.schemas.js";
import { attempt, checkBody, compact } from "./forms.js";
import type { PanelKit } from "./kit.js";
import { customerPage, customersPage } from "./pages/customers.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { CursorQuery, CustomersQuery } from "./panel.schemas.js";
import { panelRouter } from "./router.js";

// Customers: the list and one customer with their charges (pages/customers.ts).

export function customerRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  return async (app: FastifyInstance) => {
    const route = panelRouter(app);

    route.get("/panel/customers", CustomersQuery, async ({ p, form: q, errors: formErrors, url }, reply) => {
      const query = compact({ limit: 20, email: q.email, documentId: q.documentId?.replace(/[.\-/\s]/g, "") || undefined, startingAfter: q.startingAfter, endingBefore: q.endingBefore });
      const errors = formErrors ?? checkBody(ListCustomersQuery, query, p.t) ?? undefined;
      const page = errors ? { data: [], hasMore: false } : await services.customers.list(p.ctx, query);
      const body = customersPage(p, q, errors, page);
      return kit.html(reply, renderPage(p, { title: p.t("nav.customers"), area: "customers", body, path: url }), errors ? 422 : 200);
    });

    route.get("/panel/customers/:id", CursorQuery, async ({ p, params, form: q }, reply) => {
      const found = await attempt(async () => toCustomer(await services.customers.get(p.ctx, params.id)), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "customers", message: p.t("notFound.customer"), path: "/panel/customers" }), 404);
      const c = found.value;
      const charges = await services.charges.list(p.ctx, compact({ customerId: c.id, limit: 20, ...q }));
      return kit.html(reply, renderPage(p, { title: c.name, area: "customers", body: customerPage(p, c, q, charges), path: `/panel/customers/${c.id}` }));
    });
  };
}
