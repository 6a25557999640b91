import type { FastifyInstance } from "fastify";
import { CreateSubmerchantBody, ListSubmerchantsQuery } from "../../modules/connect/connect.schemas.js";
import { PUBLIC_STATUSES } from "../../modules/connect/submerchant-status.js";
import { esc } from "../html.js";
import { submerchantDetailRoutes } from "./connect-detail.js";
import { notMaster } from "./connect-guard.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, integer, text } from "./forms.js";
import { formatDocument } from "./format.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { badge, csrfInput, field, formErrors, link, numberPager, select, table } from "./ui.js";

// Connect, for masters only: submerchants with the API's filters and pages, and the
// registration form. One submerchant's page (documents, notifications, payouts) is in
// connect-detail.ts.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;
const REGISTER_FIELDS = ["tradeName", "legalName", "companyTaxId", "contactEmail", "website", "productType", "productDescription", "averageMonthlyRevenue", "averageOrderValue", "softDescriptor", "postbackUrl"] as const;


function registerForm(p: PanelCtx, errors?: FieldErrors, v: Record<string, unknown> = {}): string {
  const { t } = p;
  const f = (name: string, type = "text", required = true, attrs = "") => field({ name, label: t(`connect.f.${name}` as Parameters<typeof t>[0]), type, value: v[name], errors, required, attrs, prefix: "sm" });
  return `<section class="card" aria-labelledby="reg"><h2 id="reg">${esc(t("connect.register"))}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/connect">${csrfInput(p)}<div class="grid2">
${f("tradeName")}${f("legalName")}${f("companyTaxId", "text", true, 'inputmode="numeric" autocomplete="off"')}${f("contactEmail", "email")}${f("website", "url")}
${select({ name: "productType", label: t("connect.f.productType"), value: v.productType, errors, prefix: "sm", options: [["physical", t("connect.physical")], ["digital", t("connect.digital")], ["both", t("connect.both")]] })}
${f("averageMonthlyRevenue", "text", true, 'inputmode="decimal"')}${f("averageOrderValue", "text", true, 'inputmode="decimal"')}${f("softDescriptor", "text", false)}${f("postbackUrl", "url", false)}
</div>${field({ name: "productDescription", label: t("connect.f.productDescription"), type: "textarea", value: v.productDescription, errors, required: true, prefix: "sm" })}
<button type="submit" class="primary">${esc(t("connect.registerSubmit"))}</button></form></section>`;
}

export function connectRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const connect = services.connect.service;

  async function listPage(p: PanelCtx, q: Query, errors?: FieldErrors, values?: Record<string, unknown>) {
    const { t } = p;
    const query = compact({
      status: q.status || undefined, tradeName: q.tradeName || undefined, legalName: q.legalName || undefined,
      companyTaxId: q.companyTaxId || undefined, createdAt: q.createdAt || undefined, page: integer(q, "page") ?? 1, size: 20,
    });
    const filterErrors = checkBody(ListSubmerchantsQuery, query, t) ?? undefined;
    const page = filterErrors ? { data: [], page: 1, pages: 0, total: 0, size: 20 } : await connect.list(p.ctx, query as Parameters<typeof connect.list>[1]);
    const rows = page.data.map((s) => [link(`/panel/connect/${s.id}`, s.tradeName), esc(s.legalName), esc(formatDocument("cnpj", s.companyTaxId)), badge(s.status, t(`sm.${s.status}`)), esc(p.date(s.createdAt))]);
    return `<form method="get" action="/panel/connect" class="filters" role="search">
${select({ name: "status", label: t("col.status"), value: q.status, errors: filterErrors, options: [["", t("filter.any")], ...PUBLIC_STATUSES.map((s): [string, string] => [s, t(`sm.${s}`)])] })}
${field({ name: "tradeName", label: t("connect.f.tradeName"), value: q.tradeName, errors: filterErrors })}
${field({ name: "legalName", label: t("connect.f.legalName"), value: q.legalName, errors: filterErrors })}
${field({ name: "companyTaxId", label: t("connect.f.companyTaxId"), value: q.companyTaxId, errors: filterErrors })}
${field({ name: "createdAt", label: t("connect.createdOn"), type: "date", value: q.createdAt, errors: filterErrors })}
<div class="actions"><button type="submit" class="primary">${esc(t("filter.apply"))}</button> ${link("/panel/connect", t("filter.clear"))}</div></form>
${formErrors(p, filterErrors)}
<section class="card" aria-labelledby="sms"><h2 id="sms">${esc(t("connect.submerchants", { n: page.total }))}</h2>
${table([t("connect.f.tradeName"), t("connect.f.legalName"), t("connect.f.companyTaxId"), t("col.status"), t("col.created")], rows, t("connect.empty"))}
${numberPager(p, "/panel/connect", q, page.page, page.pages)}</section>
<p>${link("/panel/connect/payouts", t("connect.payouts"))} · ${link("/panel/settings", t("connect.defaultSplit"))}</p>
${registerForm(p, errors, values)}`;
  }

  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>("/panel/connect", hidden, async (req, reply) => {
      const p = req.panel!;
      if (!p.merchant.connectEnabled) return notMaster(kit, p, reply);
      return kit.html(reply, renderPage(p, { title: p.t("nav.connect"), area: "connect", body: await listPage(p, req.query), path: "/panel/connect" }));
    });

    app.post("/panel/connect", hidden, async (req, reply) => {
      const p = req.panel!;
      if (!p.merchant.connectEnabled) return notMaster(kit, p, reply);
      const form = (req.body ?? {}) as Record<string, unknown>;
      const input = compact({
        tradeName: text(form, "tradeName") ?? "", legalName: text(form, "legalName") ?? "", companyTaxId: text(form, "companyTaxId") ?? "",
        contactEmail: text(form, "contactEmail") ?? "", website: text(form, "website") ?? "", productType: text(form, "productType") ?? "",
        productDescription: text(form, "productDescription") ?? "", averageMonthlyRevenue: amount(form, "averageMonthlyRevenue") ?? "",
        averageOrderValue: amount(form, "averageOrderValue") ?? "", softDescriptor: text(form, "softDescriptor"), postbackUrl: text(form, "postbackUrl"),
      });
      let errors = checkBody(CreateSubmerchantBody, input, p.t);
      if (!errors) {
        const fields = Object.fromEntries(REGISTER_FIELDS.map((f) => [f, ""]));
        const done = await attempt(() => connect.create(p.ctx, input as Parameters<typeof connect.create>[1]), p.t, fields);
        if (done.ok) return kit.redirect(reply, p, `/panel/connect/${done.value.id}`, { notice: p.t("connect.registered") });
        errors = done.errors;
      }
      return kit.html(reply, renderPage(p, { title: p.t("nav.connect"), area: "connect", body: await listPage(p, {}, errors, form), path: "/panel/connect" }), 422);
    });

    await app.register(submerchantDetailRoutes(kit));
  };
}
