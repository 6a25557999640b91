import type { FastifyInstance } from "fastify";
import { CreatePayoutBody, ListPayoutsQuery } from "../../modules/connect/payouts.schemas.js";
import { DOCUMENT_KINDS, REQUIRED_DOCUMENTS, type DocumentKind } from "../../modules/connect/connect.schemas.js";
import { toMinor } from "../../lib/money.js";
import { esc } from "../html.js";
import { notMaster } from "./connect-guard.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, compact, integer } from "./forms.js";
import { formatDocument } from "./format.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { badge, checkbox, csrfInput, dl, field, formErrors, link, numberPager, select, table } from "./ui.js";
import { deliveryList } from "./webhooks.routes.js";

// One submerchant: its facts and accreditation status, the five KYC documents (upload, as
// multipart, to the same document service the API uses), the status notifications sent to its
// postback URL, and its payout requests; and the list of every payout request.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
type Query = Record<string, string | undefined>;

type PayoutRow = {
  id: string; merchantId: string; amount: number; payoutFee: number; netAmount: number; status: string; createdAt: string; reason: string | null;
  endToEndId: string | null; transfer: { status: "sending" | "sent" | "failed" } | null;
};

/** The Pix transfer's state (when a processor sends it) and the end-to-end id that paid the payout. */
function transferCell(p: PanelCtx, r: PayoutRow): string {
  const state = r.transfer ? badge(r.transfer.status, p.t(`transfer.${r.transfer.status}`)) : "";
  const e2e = r.endToEndId ? `<code>${esc(r.endToEndId)}</code>` : "";
  return [state, e2e].filter(Boolean).join(" ") || "—";
}

function payoutTable(p: PanelCtx, rows: PayoutRow[]): string {
  const { t } = p;
  return table([t("col.id"), t("connect.submerchant"), t("col.amount"), t("connect.fee"), t("charges.net"), t("col.status"), t("payout.transfer"), t("col.created")], rows.map((r) => [
    `<code>${esc(r.id)}</code>`, link(`/panel/connect/${r.merchantId}`, r.merchantId), esc(p.money(r.amount, "BRL")), esc(p.money(r.payoutFee, "BRL")),
    esc(p.money(r.netAmount, "BRL")), `${badge(r.status, t(`payout.${r.status}`))}${r.reason ? ` ${esc(r.reason)}` : ""}`, transferCell(p, r), esc(p.date(r.createdAt)),
  ]), t("connect.noPayouts"));
}

export function submerchantDetailRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const { service: connect, documents, payouts } = services.connect;

  async function detail(p: PanelCtx, id: string, errors: { docs?: FieldErrors; payout?: FieldErrors } = {}, values: Record<string, unknown> = {}) {
    const { t } = p;
    const s = await connect.get(p.ctx, id);
    const docs = await documents.list(s.id);
    const notices = await services.webhooks.events.list(p.ctx, { type: "submerchant.*", limit: 100 });
    const mine = await Promise.all(notices.data.filter((e) => e.objectId === s.id).slice(0, 10).map((e) => services.webhooks.events.get(p.ctx, e.id)));
    const payoutPage = await payouts.list(p.ctx, { merchantId: s.id, page: 1, size: 20 });
    const have = new Map(docs.documents.map((d) => [d.kind, d]));
    const docRows = DOCUMENT_KINDS.map((k) => [esc(t(`connect.doc.${k}`)), have.has(k) ? `${badge("approved", t("connect.onFile"))} ${esc(p.date(have.get(k)!.uploadedAt))}` : REQUIRED_DOCUMENTS.includes(k) ? badge("pending", t("connect.missing")) : esc(t("connect.optional"))]);
    const docErr = errors.docs;
    return `<p>${link("/panel/connect", t("connect.back"))}</p>
<section class="card" aria-labelledby="smf"><h2 id="smf">${esc(t("connect.account"))}</h2>${dl([
      [t("col.status"), `${badge(s.status, t(`sm.${s.status}`))}${s.statusReason ? ` ${esc(s.statusReason)}` : ""}`], [t("col.id"), `<code>${esc(s.id)}</code>`],
      [t("connect.f.legalName"), esc(s.legalName)], [t("connect.f.companyTaxId"), esc(formatDocument("cnpj", s.companyTaxId))],
      [t("connect.f.contactEmail"), esc(s.contactEmail)], [t("connect.f.website"), esc(s.website)],
      [t("connect.f.averageMonthlyRevenue"), esc(p.units(s.averageMonthlyRevenue, "BRL"))], [t("connect.f.softDescriptor"), esc(s.softDescriptor ?? "—")],
      [t("connect.totalSales"), esc(String(s.totalSales))], [t("col.created"), esc(p.date(s.createdAt))],
    ])}</section>
<section class="card" aria-labelledby="docs"><h2 id="docs">${esc(t("connect.documents"))}</h2>
${table([t("connect.document"), t("col.status")], docRows, "")}
${docs.complete ? `<p>${esc(t("connect.docsComplete"))}</p>` : ""}
${formErrors(p, docErr)}
<form method="post" action="/panel/connect/${esc(s.id)}/documents" enctype="multipart/form-data">${csrfInput(p)}
${DOCUMENT_KINDS.map((k) => field({ name: k, label: t(`connect.doc.${k}`), type: "file", errors: docErr, attrs: 'accept="application/pdf,image/jpeg,image/png"', prefix: "doc" })).join("")}
<p class="hint">${esc(t("connect.docHint"))}</p><button type="submit" class="primary">${esc(t("connect.upload"))}</button></form></section>
<section class="card" aria-labelledby="notif"><h2 id="notif">${esc(t("connect.notifications"))}</h2>${s.postbackUrl ? `<p>${esc(t("connect.postbackTo", { url: s.postbackUrl }))}</p>` : `<p>${esc(t("connect.noPostback"))}</p>`}
${deliveryList(p, mine.flatMap((e) => e.deliveries), false)}</section>
<section class="card" aria-labelledby="po"><h2 id="po">${esc(t("connect.payouts"))}</h2>${payoutTable(p, payoutPage.data)}
${formErrors(p, errors.payout)}
<form method="post" action="/panel/connect/${esc(s.id)}/payouts">${csrfInput(p)}
${field({ name: "amount", label: t("connect.payoutAmount"), value: values.amount, errors: errors.payout, attrs: 'inputmode="decimal"', required: true, prefix: "po", hint: t("connect.payoutAmountHint") })}
${p.ctx.environment === "production" ? checkbox({ name: "confirm", label: t("confirm.payout"), prefix: "po" }) + (errors.payout?.confirm ? `<p class="error">${esc(errors.payout.confirm)}</p>` : "") : ""}
<button type="submit">${esc(t("connect.requestPayout"))}</button></form></section>`;
  }

  const page = (p: PanelCtx, title: string, body: string, path: string) => renderPage(p, { title, area: "connect", body, path });

  return async (app: FastifyInstance) => {
    app.get<{ Querystring: Query }>("/panel/connect/payouts", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      if (!p.merchant.connectEnabled) return notMaster(kit, p, reply);
      const q = req.query;
      const query = compact({ status: q.status || undefined, merchantId: q.merchantId || undefined, createdAt: q.createdAt || undefined, page: integer(q, "page") ?? 1, size: 20 });
      const errors = checkBody(ListPayoutsQuery, query, t) ?? undefined;
      const list = errors ? { data: [], page: 1, pages: 0 } : await payouts.list(p.ctx, query as Parameters<typeof payouts.list>[1]);
      const body = `<p>${link("/panel/connect", t("connect.back"))}</p><form method="get" action="/panel/connect/payouts" class="filters" role="search">
${select({ name: "status", label: t("col.status"), value: q.status, errors, options: [["", t("filter.any")], ...["pending", "approved", "rejected"].map((s): [string, string] => [s, t(`payout.${s}`)])] })}
${field({ name: "merchantId", label: t("connect.submerchant"), value: q.merchantId, errors })}${field({ name: "createdAt", label: t("connect.createdOn"), type: "date", value: q.createdAt, errors })}
<div class="actions"><button type="submit" class="primary">${esc(t("filter.apply"))}</button></div></form>${formErrors(p, errors)}
${payoutTable(p, list.data)}${numberPager(p, "/panel/connect/payouts", q, list.page, list.pages)}`;
      return kit.html(reply, page(p, t("connect.payouts"), body, "/panel/connect/payouts"), errors ? 422 : 200);
    });

    app.get<{ Params: { id: string } }>("/panel/connect/:id", hidden, async (req, reply) => {
      const p = req.panel!;
      if (!p.merchant.connectEnabled) return notMaster(kit, p, reply);
      const found = await attempt(() => detail(p, req.params.id), p.t);
      if (!found.ok) return kit.html(reply, page(p, p.t("notFound.title"), `<p>${esc(p.t("notFound.generic"))}</p>`, "/panel/connect"), 404);
      return kit.html(reply, page(p, p.t("connect.submerchant"), found.value, `/panel/connect/${req.params.id}`));
    });

    app.post<{ Params: { id: string } }>("/panel/connect/:id/documents", hidden, async (req, reply) => {
      const p = req.panel!;
      if (!p.merchant.connectEnabled) return notMaster(kit, p, reply);
      const body = (req.body ?? {}) as Record<string, unknown>;
      // Empty file inputs arrive as empty parts: only the files chosen are uploaded.
      const files = DOCUMENT_KINDS.flatMap((kind: DocumentKind) => {
        const v = body[kind];
        return Buffer.isBuffer(v) && v.length > 0 ? [{ kind, content: v }] : [];
      });
      const done = await attempt(async () => documents.upload((await connect.ownSubmerchant(p.ctx, req.params.id)).id, files), p.t, Object.fromEntries(DOCUMENT_KINDS.map((k) => [k, ""])));
      if (done.ok) return kit.redirect(reply, p, `/panel/connect/${req.params.id}`, { notice: p.t("connect.uploaded", { n: files.length }) });
      return kit.html(reply, page(p, p.t("connect.submerchant"), await detail(p, req.params.id, { docs: done.errors }), `/panel/connect/${req.params.id}`), 422);
    });

    app.post<{ Params: { id: string } }>("/panel/connect/:id/payouts", hidden, async (req, reply) => {
      const p = req.panel!;
      if (!p.merchant.connectEnabled) return notMaster(kit, p, reply);
      const form = (req.body ?? {}) as Record<string, unknown>;
      const units = amount(form, "amount");
      // The form takes reais; the API takes cents.
      const minor = typeof units === "number" ? toMinor(units, "BRL", { field: "amount" }) : null;
      let errors: FieldErrors | null = minor === null ? { amount: p.t(units === undefined ? "v.required" : "v.number") } : !minor.ok ? { amount: p.t("v.service", { message: minor.message }) } : checkBody(CreatePayoutBody, { amount: minor.minor }, p.t);
      if (!errors && p.ctx.environment === "production" && form.confirm !== "on") errors = { confirm: p.t("confirm.required") };
      if (!errors && minor?.ok) {
        const cents = minor.minor;
        const done = await attempt(() => payouts.create(p.ctx, req.params.id, cents), p.t, { amount: "" });
        if (done.ok) return kit.redirect(reply, p, `/panel/connect/${req.params.id}`, { notice: p.t("connect.payoutRequested", { amount: p.money(cents, "BRL") }) });
        errors = done.errors;
      }
      return kit.html(reply, page(p, p.t("connect.submerchant"), await detail(p, req.params.id, { payout: errors ?? undefined }, form), `/panel/connect/${req.params.id}`), 422);
    });
  };
}
