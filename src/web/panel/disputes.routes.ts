import type { FastifyInstance, FastifyReply } from "fastify";
import { ListDisputesQuery } from "../../modules/disputes/disputes.schemas.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { attempt, checkBody, compact, integer } from "./forms.js";
import { buyersOf } from "./buyers.js";
import type { PanelKit } from "./kit.js";
import type { Buyer } from "./pages/charges.js";
import { disputePage, disputesPage, type DisputesFilter } from "./pages/disputes.js";
import { messagePage, renderPage } from "./pages/layout.js";
import { ConfirmForm, DisputesQuery, EvidenceForm, NoFields } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { urlPath } from "../../lib/url-path.js";

// Disputes: the list, one dispute, its evidence (multipart, to the same service as the API's
// evidence route, which judges the text and the files), the merchant's concession and, in
// sandbox, the issuer's decision. The pages are pages/disputes.ts.

export function disputeRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const disputes = services.modules.disputes.service;

  const notFound = (p: PanelCtx, reply: FastifyReply) => kit.html(reply, messagePage(p, {
    title: p.t("notFound.title"), area: "disputes", message: p.t("notFound.generic"), back: ["/panel/disputes", p.t("nav.disputes")], path: "/panel/disputes",
  }), 404);

  /** Who disputed each charge of a page: its buyer, by charge id (a page is at most 20 charges). */
  async function buyersByCharge(p: PanelCtx, list: readonly { chargeId: string }[]): Promise<Map<string, Buyer>> {
    const charges = await Promise.all([...new Set(list.map((d) => d.chargeId))].map((id) => services.charges.get(p.ctx, id)));
    const customers = await buyersOf(services, p, charges);
    return new Map(charges.flatMap((c) => {
      const b = c.customerId ? customers.get(c.customerId) : undefined;
      return b ? [[c.id, b] as const] : [];
    }));
  }

  /** Whether the dispute is this merchant's, in this environment (another's answers 404, as the API does). */
  const owns = async (p: PanelCtx, id: string) => (await attempt(() => disputes.get(p.ctx, id), p.t)).ok;

  /** One dispute's page (with a refused evidence form's errors and text); 404 for none of this merchant's. */
  async function detail(p: PanelCtx, reply: FastifyReply, id: string, errors?: FieldErrors, values?: Record<string, unknown>) {
    const found = await attempt(() => disputes.get(p.ctx, id), p.t);
    if (!found.ok) return notFound(p, reply);
    const d = found.value;
    const body = disputePage(p, { d, now: await disputes.clockNow(p.ctx), errors, values });
    return kit.html(reply, renderPage(p, { title: `${p.t("dispute.dispute")} ${d.id}`, area: "disputes", body, path: `/panel/disputes/${d.id}` }), errors ? 422 : 200);
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);

    route.get("/panel/disputes", DisputesQuery, async ({ p, form: q, errors: formErrors }, reply) => {
      const query = compact({ status: q.status, kind: q.kind, page: integer(q.page) ?? 1, limit: 20 });
      const errors = formErrors ?? checkBody(ListDisputesQuery, query, p.t) ?? undefined;
      const list = errors ? { data: [], meta: { total: 0, page: 1, totalPages: 0 } }
        : await disputes.list(p.ctx, { ...(query as Parameters<typeof disputes.list>[1]), openFirst: true });
      const body = disputesPage(p, { q: q as DisputesFilter, errors, now: await disputes.clockNow(p.ctx), list, buyers: await buyersByCharge(p, list.data) });
      return kit.html(reply, renderPage(p, { title: p.t("nav.disputes"), area: "disputes", body, path: "/panel/disputes" }), errors ? 422 : 200);
    });

    route.get("/panel/disputes/:id", NoFields, async ({ p, params }, reply) => detail(p, reply, params.id));

    route.post("/panel/disputes/:id/evidence", EvidenceForm, async ({ p, params, form, errors: formErrors, sent, files }, reply) => {
      let errors = formErrors;
      if (!errors) {
        const done = await attempt(() => disputes.submitEvidence(p.ctx, params.id, form.text ?? "", files.files ?? []), p.t, { text: "", files: "" });
        if (done.ok) return kit.redirect(reply, p, urlPath`/panel/disputes/${params.id}`, { notice: p.t("dispute.submitted") });
        errors = done.errors;
      }
      return detail(p, reply, params.id, errors, sent);
    });

    // Conceding cannot be undone: the form must say so, on purpose.
    route.post("/panel/disputes/:id/accept", ConfirmForm, async ({ p, params, form }, reply) => {
      const base = urlPath`/panel/disputes/${params.id}`;
      if (!(await owns(p, params.id))) return notFound(p, reply);
      if (form.confirm !== "on") return kit.redirect(reply, p, base, { notice: p.t("dispute.notConfirmed") });
      const done = await attempt(() => disputes.accept(p.ctx, params.id), p.t);
      return kit.redirect(reply, p, base, { notice: done.ok ? p.t("dispute.accepted") : Object.values(done.errors)[0] });
    });

    // The sandbox simulator: the payer's bank opening a dispute on a paid charge (a static path,
    // which Fastify matches before the charge page's /sandbox/:action).
    route.post("/panel/charges/:id/sandbox/dispute", NoFields, async ({ p, params }, reply) => {
      const done = await attempt(() => disputes.openSandbox(p.ctx, params.id, {}), p.t);
      if (done.ok) return kit.redirect(reply, p, urlPath`/panel/disputes/${done.value.id}`, { notice: p.t("dispute.opened") });
      return kit.redirect(reply, p, urlPath`/panel/charges/${params.id}`, { notice: Object.values(done.errors)[0] });
    });

    // The sandbox simulator: the issuer deciding a dispute under review.
    route.post("/panel/disputes/:id/sandbox/:outcome", NoFields, async ({ p, params: { id, outcome } }, reply) => {
      if (outcome !== "won" && outcome !== "lost") return reply.callNotFound();
      if (!(await owns(p, id))) return notFound(p, reply);
      const done = await attempt(() => disputes.closeSandbox(p.ctx, id, outcome), p.t);
      return kit.redirect(reply, p, urlPath`/panel/disputes/${id}`, { notice: done.ok ? p.t("dispute.decided", { status: p.t(`dispute.status.${done.value.status}`) }) : Object.values(done.errors)[0] });
    });
  };
}
