import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";

// Small HTML builders shared by every panel page. Every value goes through esc(); ids tie each
// label, hint and error to its control, so screen readers announce them together.

export const csrfInput = (p: PanelCtx) => `<input type="hidden" name="_csrf" value="${esc(p.csrf)}">`;

interface FieldOpts {
  name: string;
  label: string;
  value?: unknown;
  type?: string;
  errors?: FieldErrors;
  required?: boolean;
  hint?: string;
  attrs?: string;
  /** The form's id prefix, when two forms on a page have fields of the same name. */
  prefix?: string;
}

const idOf = (o: { name: string; prefix?: string }) => `${o.prefix ?? "f"}-${o.name.replace(/[^A-Za-z0-9_-]/g, "-")}`;

function described(o: FieldOpts, id: string) {
  const error = o.errors?.[o.name];
  const ids = [o.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return {
    error,
    aria: `${ids ? ` aria-describedby="${ids}"` : ""}${error ? ' aria-invalid="true"' : ""}${o.required ? " required" : ""}`,
    after: `${o.hint ? `<p class="hint" id="${id}-hint">${esc(o.hint)}</p>` : ""}${error ? `<p class="error" id="${id}-error">${esc(error)}</p>` : ""}`,
  };
}

export function field(o: FieldOpts): string {
  const id = idOf(o);
  const d = described(o, id);
  const input = o.type === "textarea"
    ? `<textarea id="${id}" name="${esc(o.name)}"${d.aria} ${o.attrs ?? ""}>${esc(o.value ?? "")}</textarea>`
    : `<input id="${id}" name="${esc(o.name)}" type="${esc(o.type ?? "text")}" value="${esc(o.value ?? "")}"${d.aria} ${o.attrs ?? ""}>`;
  return `<div class="field${d.error ? " invalid" : ""}"><label for="${id}">${esc(o.label)}</label>${input}${d.after}</div>`;
}

export function select(o: FieldOpts & { options: [string, string][] }): string {
  const id = idOf(o);
  const d = described(o, id);
  const opts = o.options.map(([v, l]) => `<option value="${esc(v)}"${String(o.value ?? "") === v ? " selected" : ""}>${esc(l)}</option>`).join("");
  return `<div class="field${d.error ? " invalid" : ""}"><label for="${id}">${esc(o.label)}</label><select id="${id}" name="${esc(o.name)}"${d.aria}>${opts}</select>${d.after}</div>`;
}

export function checkbox(o: { name: string; label: string; value?: string; checked?: boolean; prefix?: string; required?: boolean }): string {
  const id = `${idOf(o)}-${esc((o.value ?? "on").replace(/[^A-Za-z0-9_-]/g, "-"))}`;
  return `<div class="check"><input type="checkbox" id="${id}" name="${esc(o.name)}" value="${esc(o.value ?? "on")}"${o.checked ? " checked" : ""}${o.required ? " required" : ""}><label for="${id}">${esc(o.label)}</label></div>`;
}

/** A one-button form (POST + CSRF), for actions such as "Disable" or "Pay". */
export function actionButton(p: PanelCtx, action: string, label: string, opts: { hidden?: Record<string, string>; danger?: boolean; confirm?: string } = {}): string {
  const hidden = Object.entries(opts.hidden ?? {}).map(([k, v]) => `<input type="hidden" name="${esc(k)}" value="${esc(v)}">`).join("");
  const confirm = opts.confirm ? checkbox({ name: "confirm", label: opts.confirm, prefix: `c${Math.abs(hash(action + label))}`, required: true }) : "";
  return `<form method="post" action="${esc(action)}" class="inline">${csrfInput(p)}${hidden}${confirm}<button type="submit"${opts.danger ? ' class="danger"' : ""}>${esc(label)}</button></form>`;
}

function hash(s: string): number {
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

export function formErrors(p: PanelCtx, errors: FieldErrors | undefined): string {
  if (!errors || Object.keys(errors).length === 0) return "";
  const general = errors._form ? `<p>${esc(errors._form)}</p>` : `<p>${esc(p.t("form.fix"))}</p>`;
  return `<div class="alert error" role="alert">${general}</div>`;
}

/**
 * Every table of the panel. Each cell carries its column's header as data-label: on a narrow
 * screen (panel.css) a row becomes a card of label and value, so no column is squeezed until its
 * words and amounts break across lines.
 */
export function table(headers: string[], rows: string[][], empty: string, caption?: string): string {
  if (rows.length === 0) return `<p class="empty">${esc(empty)}</p>`;
  return `<div class="table-wrap"><table>${caption ? `<caption>${esc(caption)}</caption>` : ""}<thead><tr>${headers.map((h) => `<th scope="col">${esc(h)}</th>`).join("")}</tr></thead>
<tbody>${rows.map((r) => `<tr>${r.map((c, i) => `<td data-label="${esc(headers[i] ?? "")}">${c}</td>`).join("")}</tr>`).join("\n")}</tbody></table></div>`;
}

export const link = (href: string, text: string) => `<a href="${esc(href)}">${esc(text)}</a>`;

export function badge(status: string, text = status): string {
  return `<span class="badge s-${esc(status.replace(/[^a-z_]/g, ""))}">${esc(text)}</span>`;
}

/** Older/newer links of a cursor-paginated list, keeping the other query parameters. */
export function cursorPager(p: PanelCtx, path: string, query: Record<string, string | undefined>, page: { data: { id: string }[]; hasMore: boolean }): string {
  const q = Object.fromEntries(Object.entries(query).filter(([k, v]) => v && k !== "startingAfter" && k !== "endingBefore")) as Record<string, string>;
  const first = page.data[0]?.id;
  const last = page.data[page.data.length - 1]?.id;
  const backwards = Boolean(query.endingBefore);
  const newer = (backwards ? page.hasMore : Boolean(query.startingAfter)) && first ? `${path}?${new URLSearchParams({ ...q, endingBefore: first })}` : "";
  const older = (backwards || page.hasMore) && last ? `${path}?${new URLSearchParams({ ...q, startingAfter: last })}` : "";
  if (!newer && !older) return "";
  return `<nav class="pager" aria-label="${esc(p.t("pager.label"))}">${newer ? link(newer, p.t("pager.newer")) : ""}${older ? link(older, p.t("pager.older")) : ""}</nav>`;
}

export function numberPager(p: PanelCtx, path: string, query: Record<string, string | undefined>, page: number, pages: number): string {
  if (pages <= 1) return "";
  const q = Object.fromEntries(Object.entries(query).filter(([k, v]) => v && k !== "page")) as Record<string, string>;
  const to = (n: number) => `${path}?${new URLSearchParams({ ...q, page: String(n) })}`;
  return `<nav class="pager" aria-label="${esc(p.t("pager.label"))}">${page > 1 ? link(to(page - 1), p.t("pager.previous")) : ""}<span>${esc(p.t("pager.page", { page, pages }))}</span>${page < pages ? link(to(page + 1), p.t("pager.next")) : ""}</nav>`;
}

export function dl(items: [string, string][]): string {
  return `<dl class="facts">${items.map(([k, v]) => `<div><dt>${esc(k)}</dt><dd>${v}</dd></div>`).join("")}</dl>`;
}
