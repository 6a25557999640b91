import type { DisputeService } from "../../../modules/disputes/disputes.service.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import type { Buyer } from "./charges.js";
import { actionButton, badge, csrfInput, dl, field, formErrors, link, numberPager, select, table } from "../ui.js";

// Disputes: the list (those needing a response first, with the days left to respond) and one
// dispute with its charge, evidence, the evidence form and the accept button. The deadline is
// counted on "now" as the dispute's own clock has it (the test clock in sandbox).

export type DisputeView = Awaited<ReturnType<DisputeService["get"]>>;
export type DisputesFilter = { status?: string; kind?: string; page?: string };
export const DISPUTE_STATUSES = ["needs_response", "under_review", "won", "lost"] as const;
const KINDS = ["chargeback", "pix_med"] as const;
const DAY_MS = 86_400_000;

/** The deadline, and for a dispute still waiting for evidence how long is left: whole days. */
export function respondBy(p: PanelCtx, d: DisputeView, now: Date): Html {
  const due = html`<time datetime="${d.evidenceDueBy}">${p.date(d.evidenceDueBy)}</time>`;
  if (d.status !== "needs_response") return due;
  const left = Date.parse(d.evidenceDueBy) - now.getTime();
  const days = Math.floor(left / DAY_MS);
  const says = left <= 0 ? p.t("dispute.overdue") : days < 1 ? p.t("dispute.lastDay") : p.t("dispute.daysLeft", { n: days });
  return html`${due} <strong class="days-left">${says}</strong>`;
}

const statusBadge = (p: PanelCtx, d: DisputeView) => badge(d.status, p.t(`dispute.status.${d.status}`));

/**
 * The list says who disputed (the charge's buyer, with their e-mail) and links the dispute by
 * that name; the dispute's and the charge's ids are on its page. Six columns that fit a desktop
 * card (two 29-character ids did not, at 1280 px).
 */
export function disputesPage(p: PanelCtx, o: { q: DisputesFilter; errors?: FieldErrors; now: Date; buyers: Map<string, Buyer>; list: { data: DisputeView[]; meta: { total: number; page: number; totalPages: number } } }): Html {
  const { t } = p;
  const { q, errors, list } = o;
  const rows = list.data.map((d) => {
    const buyer = o.buyers.get(d.chargeId);
    return [
      html`${link(`/panel/disputes/${d.id}`, buyer?.name || d.id)}${buyer?.email && html`<br><span class="muted">${buyer.email}</span>`}`,
      statusBadge(p, d), respondBy(p, d, o.now), p.units(d.amount, d.currency), t(`dispute.kind.${d.kind}`), t(`reason.${d.reason}`),
    ];
  });
  return html`<form method="get" action="/panel/disputes" class="filters" role="search">
${select({ name: "status", label: t("col.status"), value: q.status, errors, options: [["", t("filter.any")], ...DISPUTE_STATUSES.map((s): [string, string] => [s, t(`dispute.status.${s}`)])] })}
${select({ name: "kind", label: t("dispute.kindLabel"), value: q.kind, errors, options: [["", t("filter.any")], ...KINDS.map((k): [string, string] => [k, t(`dispute.kind.${k}`)])] })}
<div class="actions"><button type="submit" class="primary">${t("filter.apply")}</button> ${link("/panel/disputes", t("filter.clear"))}</div></form>${formErrors(p, errors)}
<section class="card" aria-labelledby="dl-title"><h2 id="dl-title">${t("dispute.list", { n: list.meta.total })}</h2><p class="muted">${t("dispute.openFirst")}</p>
${table([t("col.customer"), t("col.status"), t("dispute.dueBy"), t("col.amount"), t("dispute.kindLabel"), t("dispute.reason")], rows, t("dispute.empty"))}
${numberPager(p, "/panel/disputes", q, list.meta.page, list.meta.totalPages)}</section>`;
}

/** A charge's disputes, on the charge's page. */
export function chargeDisputes(p: PanelCtx, list: DisputeView[]): Html | "" {
  const { t } = p;
  if (list.length === 0) return "";
  const rows = list.map((d) => [link(`/panel/disputes/${d.id}`, d.id), statusBadge(p, d), p.units(d.amount, d.currency), t(`dispute.kind.${d.kind}`), t(`reason.${d.reason}`)]);
  return html`<section class="card" aria-labelledby="cd-title"><h2 id="cd-title">${t("dispute.ofCharge")}</h2>
${table([t("col.id"), t("col.status"), t("col.amount"), t("dispute.kindLabel"), t("dispute.reason")], rows, "")}</section>`;
}

function evidenceSection(p: PanelCtx, d: DisputeView): Html {
  const { t } = p;
  if (!d.evidence) return html`<section class="card" aria-labelledby="ev-title"><h2 id="ev-title">${t("dispute.evidence")}</h2><p class="empty">${t("dispute.noEvidence")}</p></section>`;
  const files = d.evidence.files.map((f) => [f.name, f.contentType, `${Math.ceil(f.size / 1024)} KB`]);
  return html`<section class="card" aria-labelledby="ev-title"><h2 id="ev-title">${t("dispute.evidence")}</h2>
<pre class="evidence">${d.evidence.text}</pre>
${files.length > 0 && table([t("dispute.files"), t("dispute.fileType"), t("dispute.fileSize")], files, "")}</section>`;
}

/** The evidence form (multipart, with the panel's CSRF token), while the dispute waits for it. */
function evidenceForm(p: PanelCtx, d: DisputeView, errors?: FieldErrors, values: Record<string, unknown> = {}): Html | "" {
  const { t } = p;
  if (d.status !== "needs_response") return "";
  return html`<section class="card" aria-labelledby="evf-title"><h2 id="evf-title">${t("dispute.submit")}</h2>${formErrors(p, errors)}
<form method="post" action="/panel/disputes/${d.id}/evidence" enctype="multipart/form-data">${csrfInput(p)}
${field({ name: "text", label: t("dispute.text"), type: "textarea", value: values.text, errors, required: true, hint: t("dispute.textHint"), prefix: "ev", attrs: { rows: 6, maxlength: 20_000 } })}
${field({ name: "files", label: t("dispute.filesLabel"), type: "file", errors, hint: t("dispute.filesHint"), prefix: "ev", attrs: { multiple: true, accept: "application/pdf,image/png,image/jpeg" } })}
<button type="submit" class="primary">${t("dispute.submit")}</button></form></section>`;
}

function actions(p: PanelCtx, d: DisputeView): Html | "" {
  const { t } = p;
  const base = `/panel/disputes/${d.id}`;
  const open = d.status === "needs_response" || d.status === "under_review";
  const sandbox = p.ctx.environment === "sandbox" && d.status === "under_review" && html`<div class="sandbox-actions"><h3>${t("sandbox.title")}</h3><p>${t("dispute.sandboxHint")}</p>
<div class="button-row">${actionButton(p, `${base}/sandbox/won`, t("dispute.sandboxWon"))}${actionButton(p, `${base}/sandbox/lost`, t("dispute.sandboxLost"))}</div></div>`;
  if (!open) return "";
  return html`<section class="card" aria-labelledby="da-title"><h2 id="da-title">${t("dispute.accept")}</h2><p>${t("dispute.acceptHint")}</p>
<div class="button-row">${actionButton(p, `${base}/accept`, t("dispute.accept"), { danger: true, confirm: t("dispute.acceptConfirm") })}</div>${sandbox}</section>`;
}

export function disputePage(p: PanelCtx, o: { d: DisputeView; now: Date; errors?: FieldErrors; values?: Record<string, unknown> }): Html {
  const { t } = p;
  const { d } = o;
  return html`<p>${link("/panel/disputes", t("dispute.back"))}</p>
<section class="card" aria-labelledby="df-title"><h2 id="df-title">${t("charges.summary")}</h2>${dl([
    [t("col.status"), statusBadge(p, d)], [t("dispute.charge"), link(`/panel/charges/${d.chargeId}`, d.chargeId)],
    [t("dispute.reason"), t(`reason.${d.reason}`)], [t("dispute.kindLabel"), t(`dispute.kind.${d.kind}`)], [t("col.amount"), p.units(d.amount, d.currency)],
    [t("dispute.dueBy"), respondBy(p, d, o.now)], [t("col.created"), p.date(d.createdAt)],
    [t("dispute.submittedAt"), p.date(d.submittedAt)], [t("dispute.closedAt"), p.date(d.closedAt)],
  ])}<p class="muted">${t("dispute.money")}</p></section>
${evidenceSection(p, d)}
${evidenceForm(p, d, o.errors, o.values)}
${actions(p, d)}`;
}
