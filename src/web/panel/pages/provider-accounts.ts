import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { badge, csrfInput, field, formErrors, select } from "../ui.js";
import { table } from "../ui.js";

// A submerchant's accounts at processors on its page (provider settlement): each account, its
// state (a refusal with the processor's reason), its bank account by its last four digits, the
// last daily reconciliation, and the form that opens one. The form never shows a bank account's
// number or the holder's document back: after a refusal they are typed again.

export interface ProviderAccountView {
  processor: string; id: string | null; status: string; reason: string | null; details: Record<string, string>;
}
export interface ReconciliationView {
  processor: string; currency: string; day: string; status: string; feiraAmount: number; processorAmount: number;
}

/** The form's fields, in the API's bankAccount names. */
export const BANK_FIELDS = ["holderName", "holderDocument", "bank", "branch", "branchDigit", "account", "accountDigit", "type"] as const;
/** What is never written back into the form. */
const SECRET_FIELDS = new Set(["holderDocument", "account", "accountDigit"]);

function reconciliationCell(p: PanelCtx, r: ReconciliationView | undefined): Html {
  if (!r) return html`<span class="muted">${p.t("pa.notYet")}</span>`;
  if (r.status === "matched") return html`${badge("approved", p.t("pa.matched", { day: r.day, amount: p.money(r.feiraAmount, r.currency) }))}`;
  return html`${badge("failed", p.t("pa.mismatch", { day: r.day, feira: p.money(r.feiraAmount, r.currency), processor: p.money(r.processorAmount, r.currency) }))}`;
}

export function providerAccountsSection(
  p: PanelCtx, o: { submerchantId: string; accounts: ProviderAccountView[]; reconciliations: ReconciliationView[]; processors: string[]; errors?: FieldErrors; values?: Record<string, unknown> },
): Html {
  const { t } = p;
  const status = (s: string) => badge(s === "active" ? "approved" : s === "refused" ? "rejected" : "pending", t(`pa.status.${s}` as Parameters<typeof t>[0]));
  const rows = o.accounts.map((a) => [
    a.processor, a.id ? html`<code>${a.id}</code>` : "—",
    html`${status(a.status)}${a.reason && html` <span class="reason">${a.reason}</span>`}`,
    a.details.bankAccount ? `${a.details.bank ?? ""} ${a.details.bankAccount}`.trim() : "—",
    reconciliationCell(p, o.reconciliations.find((r) => r.processor === a.processor)),
  ]);
  const v = Object.fromEntries(Object.entries(o.values ?? {}).filter(([k]) => !SECRET_FIELDS.has(k)));
  const f = (name: (typeof BANK_FIELDS)[number], required = true, attrs: Record<string, string> = {}) =>
    field({ name, label: t(`pa.f.${name}`), value: v[name], errors: o.errors, required, attrs: { autocomplete: "off", ...attrs }, prefix: "pa" });
  return html`<section class="card" aria-labelledby="pa"><h2 id="pa">${t("pa.title")}</h2><p>${t("pa.intro")}</p>
${table([t("pa.processor"), t("pa.account"), t("col.status"), t("pa.bank"), t("pa.reconciliation")], rows, t("pa.none"))}
<h3>${t("pa.open")}</h3>${formErrors(p, o.errors)}
<form method="post" action="/panel/connect/${o.submerchantId}/provider-accounts">${csrfInput(p)}
${select({ name: "processor", label: t("pa.processor"), value: v.processor, errors: o.errors, prefix: "pa", options: o.processors.map((n): [string, string] => [n, n]) })}
<div class="grid2">${f("holderName")}${f("holderDocument", true, { inputmode: "numeric" })}${f("bank", true, { inputmode: "numeric" })}${f("branch", true, { inputmode: "numeric" })}
${f("branchDigit", false, { inputmode: "numeric" })}${f("account", true, { inputmode: "numeric" })}${f("accountDigit", true, { inputmode: "numeric" })}
${select({ name: "type", label: t("pa.f.type"), value: v.type, errors: o.errors, prefix: "pa", options: [["checking", t("pa.checking")], ["savings", t("pa.savings")]] })}</div>
<p class="hint">${t("pa.bankHint")}</p><button type="submit" class="primary">${t("pa.submit")}</button></form></section>`;
}
