import type { FastifyInstance, FastifyReply } from "fastify";
import { toMinor } from "../../lib/money.js";
import { CreateSubmerchantBody, DOCUMENT_KINDS, ListSubmerchantsQuery } from "../../modules/connect/connect.schemas.js";
import { CreatePayoutBody, ListPayoutsQuery } from "../../modules/connect/payouts.schemas.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, integer } from "./forms.js";
import type { PanelKit } from "./kit.js";
import { payoutsPage, submerchantPage, submerchantsPage } from "./pages/connect.js";
import { providerAccountsSection } from "./pages/provider-accounts.js";
import { AccountForm, openProviderAccount } from "./provider-accounts.form.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { NoFields, PayoutForm, PayoutsQuery, SubmerchantForm, SubmerchantsQuery } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { urlPath } from "../../lib/url-path.js";

// Connect, for masters only: submerchants (list, registration), one submerchant (KYC upload as
// multipart, to the same document service the API uses; payout requests), and every payout
// request. The pages are pages/connect.ts.

type Query = Record<string, string | undefined>;
const REGISTER_FIELDS = ["tradeName", "legalName", "companyTaxId", "contactEmail", "website", "productType", "productDescription", "averageMonthlyRevenue", "averageOrderValue", "softDescriptor", "postbackUrl"] as const;

export function connectRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const { service: connect, documents, payouts } = services.connect;

  /** The answer of every Connect page to a merchant without Connect (masters only). */
  const notMaster = (p: PanelCtx, reply: FastifyReply) =>
    kit.html(reply, messagePage(p, { title: p.t("nav.connect"), area: "connect", message: p.t("connect.notEnabled"), path: "/panel/connect" }), 403);
  const page = (p: PanelCtx, title: string, body: Parameters<typeof renderPage>[1]["body"], path: string) => renderPage(p, { title, area: "connect", body, path });

  async function listPage(p: PanelCtx, q: Query, errors?: FieldErrors, values?: Record<string, unknown>) {
    const query = compact({ status: q.status, tradeName: q.tradeName, legalName: q.legalName, companyTaxId: q.companyTaxId, createdAt: q.createdAt, page: integer(q.page) ?? 1, size: 20 });
    const filterErrors = checkBody(ListSubmerchantsQuery, query, p.t) ?? undefined;
    const list = filterErrors ? { data: [], page: 1, pages: 0, total: 0, size: 20 } : await connect.list(p.ctx, query as Parameters<typeof connect.list>[1]);
    return page(p, p.t("nav.connect"), submerchantsPage(p, { q, filterErrors, page: list, errors, values }), "/panel/connect");
  }

  async function detail(p: PanelCtx, id: string, errors: { docs?: FieldErrors; payout?: FieldErrors; accounts?: FieldErrors } = {}, values: Record<string, unknown> = {}) {
    const s = await connect.get(p.ctx, id);
    const docs = await documents.list(s.id);
    // Its status notifications are the submerchant's own events (connect.service's setStatus
    // records them under its id, as they go to its postback URL), not the master's: read in its
    // scope, which connect.get has just checked is this master's, in this environment.
    const own = { ...p.ctx, merchantId: s.id };
    const notices = await services.webhooks.events.list(own, { type: "submerchant.*", limit: 10 });
    const mine = await Promise.all(notices.data.map((e) => services.webhooks.events.get(own, e.id)));
    const payoutPage = await payouts.list(p.ctx, { merchantId: s.id, page: 1, size: 20 });
    const accounts = await services.connect.providerAccounts.list(p.ctx, s.id);
    const recs = await services.connect.reconciliations.last(p.ctx, s.id);
    const providerAccounts = providerAccountsSection(p, {
      submerchantId: s.id, accounts: accounts.data, reconciliations: recs.accounts, processors: bankProcessors(p),
      errors: errors.accounts, values: errors.accounts ? values : {},
    });
    const body = submerchantPage(p, { s, docs, deliveries: mine.flatMap((e) => e.deliveries), payouts: payoutPage.data, providerAccounts }, errors, values);
    return page(p, s.tradeName, body, `/panel/connect/${id}`);
  }

  /**
   * The processors whose sellers' accounts take a bank account in this environment (the
   * simulator in the sandbox): their adapter's check of an empty body asks for one, or nothing.
   */
  const bankProcessors = (p: PanelCtx): string[] =>
    ["sandbox", ...services.processors.definitions.map((d) => d.name)].filter((name) => {
      if ((p.ctx.environment === "sandbox") !== (name === "sandbox")) return false;
      const accounts = services.processors.adapter(p.ctx.environment, name)?.accounts;
      return accounts?.open !== undefined && accounts.check({}).every((problem) => problem.startsWith("bankAccount"));
    });

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);

    route.post("/panel/connect/:id/provider-accounts", AccountForm, async ({ p, params, form, errors: formErrors, sent }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      const done = await openProviderAccount(p, services.connect.providerAccounts, params.id, form, formErrors);
      if (done.ok) return kit.redirect(reply, p, urlPath`/panel/connect/${params.id}`, { notice: p.t("pa.opened", { processor: done.processor, status: p.t(`pa.status.${done.status}` as Parameters<typeof p.t>[0]) }) });
      return kit.html(reply, await detail(p, params.id, { accounts: done.errors }, sent), 422);
    });

    route.get("/panel/connect", SubmerchantsQuery, async ({ p, form }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      return kit.html(reply, await listPage(p, form));
    });

    route.post("/panel/connect", SubmerchantForm, async ({ p, form: f, errors: formErrors, sent }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      const input = compact({
        tradeName: f.tradeName ?? "", legalName: f.legalName ?? "", companyTaxId: f.companyTaxId ?? "", contactEmail: f.contactEmail ?? "",
        website: f.website ?? "", productType: f.productType ?? "", productDescription: f.productDescription ?? "",
        averageMonthlyRevenue: amount(f.averageMonthlyRevenue) ?? "", averageOrderValue: amount(f.averageOrderValue) ?? "",
        softDescriptor: f.softDescriptor, postbackUrl: f.postbackUrl,
      });
      let errors = formErrors ?? checkBody(CreateSubmerchantBody, input, p.t);
      if (!errors) {
        const fields = Object.fromEntries(REGISTER_FIELDS.map((name) => [name, ""]));
        const done = await attempt(() => connect.create(p.ctx, input as Parameters<typeof connect.create>[1]), p.t, fields);
        if (done.ok) return kit.redirect(reply, p, urlPath`/panel/connect/${done.value.id}`, { notice: p.t("connect.registered") });
        errors = done.errors;
      }
      return kit.html(reply, await listPage(p, {}, errors, sent), 422);
    });

    route.get("/panel/connect/payouts", PayoutsQuery, async ({ p, form: q, errors: formErrors }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      const query = compact({ status: q.status, merchantId: q.merchantId, createdAt: q.createdAt, page: integer(q.page) ?? 1, size: 20 });
      const errors = formErrors ?? checkBody(ListPayoutsQuery, query, p.t) ?? undefined;
      const list = errors ? { data: [], page: 1, pages: 0 } : await payouts.list(p.ctx, query as Parameters<typeof payouts.list>[1]);
      // The submerchants by trade name (a page holds at most 20 payouts): a person knows shops, not ids.
      const shops = await Promise.all([...new Set(list.data.map((r) => r.merchantId))].map((id) => connect.get(p.ctx, id)));
      const names = new Map(shops.map((s) => [s.id, s.tradeName]));
      return kit.html(reply, page(p, p.t("connect.payouts"), payoutsPage(p, q, errors, list, names), "/panel/connect/payouts"), errors ? 422 : 200);
    });

    route.get("/panel/connect/:id", NoFields, async ({ p, params }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      const found = await attempt(() => detail(p, params.id), p.t);
      if (!found.ok) return kit.html(reply, messagePage(p, { title: p.t("notFound.title"), area: "connect", message: p.t("notFound.generic"), path: "/panel/connect" }), 404);
      return kit.html(reply, found.value);
    });

    // Multipart: the files arrive as the request's files (router.ts); empty file inputs are left out.
    route.post("/panel/connect/:id/documents", NoFields, async ({ p, params, files: sent }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      const files = DOCUMENT_KINDS.flatMap((kind) => sent[kind]?.slice(0, 1).map(({ content }) => ({ kind, content })) ?? []);
      const done = await attempt(async () => documents.upload((await connect.ownSubmerchant(p.ctx, params.id)).id, files), p.t, Object.fromEntries(DOCUMENT_KINDS.map((k) => [k, ""])));
      if (done.ok) return kit.redirect(reply, p, urlPath`/panel/connect/${params.id}`, { notice: p.t("connect.uploaded", { n: files.length }) });
      return kit.html(reply, await detail(p, params.id, { docs: done.errors }), 422);
    });

    route.post("/panel/connect/:id/payouts", PayoutForm, async ({ p, params, form, errors: formErrors, sent }, reply) => {
      if (!p.merchant.connectEnabled) return notMaster(p, reply);
      const units = amount(form.amount);
      // The form takes reais; the API takes cents.
      const minor = typeof units === "number" ? toMinor(units, "BRL", { field: "amount" }) : null;
      let errors: FieldErrors | null = formErrors ?? (minor === null ? { amount: p.t(units === undefined ? "v.required" : "v.number") } : !minor.ok ? { amount: p.t("v.service", { message: minor.message }) } : checkBody(CreatePayoutBody, { amount: minor.minor }, p.t));
      if (!errors && p.ctx.environment === "production" && form.confirm !== "on") errors = { confirm: p.t("confirm.required") };
      if (!errors && minor?.ok) {
        const cents = minor.minor;
        const done = await attempt(() => payouts.create(p.ctx, params.id, cents), p.t, { amount: "" });
        if (done.ok) return kit.redirect(reply, p, urlPath`/panel/connect/${params.id}`, { notice: p.t("connect.payoutRequested", { amount: p.money(cents, "BRL") }) });
        errors = done.errors;
      }
      return kit.html(reply, await detail(p, params.id, { payout: errors ?? undefined }, sent), 422);
    });
  };
}
