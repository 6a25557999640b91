import QRCode from "qrcode";
import { attrs, html, raw, type Html, type HtmlValue } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";

// Small HTML builders shared by every panel page, all through the escaping template (html.ts).
// Ids tie each label, hint and error to its control, so screen readers announce them together.

export const csrfInput = (p: PanelCtx) => html`<input type="hidden" name="_csrf" value="${p.csrf}">`;

/** Extra attributes of a control (inputmode, maxlength, accept...), escaped by attrs(). */
export type Attrs = Record<string, string | number | boolean | undefined>;

interface FieldOpts {
  name: string;
  label: string;
  value?: unknown;
  type?: string;
  errors?: FieldErrors;
  required?: boolean;
  hint?: string;
  attrs?: Attrs;
  /** The form's id prefix, when two forms on a page have fields of the same name. */
  prefix?: string;
}

const idOf = (o: { name: string; prefix?: string }) => `${o.prefix ?? "f"}-${o.name.replace(/[^A-Za-z0-9_-]/g, "-")}`;
const valueOf = (v: unknown) => (v === undefined || v === null ? "" : String(v));

function described(o: FieldOpts, id: string) {
  const error = o.errors?.[o.name];
  const ids = [o.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return {
    error,
    aria: attrs({ "aria-describedby": ids || undefined, "aria-invalid": error ? "true" : undefined, required: o.required }),
    after: html`${o.hint && html`<p class="hint" id="${id}-hint">${o.hint}</p>`}${error && html`<p class="error" id="${id}-error">${error}</p>`}`,
  };
}

const fieldClass = (error: string | undefined) => (error ? "field invalid" : "field");

export function field(o: FieldOpts): Html {
  const id = idOf(o);
  const d = described(o, id);
  const input = o.type === "textarea"
    ? html`<textarea id="${id}" name="${o.name}"${d.aria}${attrs(o.attrs)}>${valueOf(o.value)}</textarea>`
    : html`<input id="${id}" name="${o.name}" type="${o.type ?? "text"}" value="${valueOf(o.value)}"${d.aria}${attrs(o.attrs)}>`;
  return html`<div class="${fieldClass(d.error)}"><label for="${id}">${o.label}</label>${input}${d.after}</div>`;
}

export function select(o: FieldOpts & { options: [string, string][] }): Html {
  const id = idOf(o);
  const d = described(o, id);
  const opts = o.options.map(([v, l]) => html`<option value="${v}"${attrs({ selected: valueOf(o.value) === v })}>${l}</option>`);
  return html`<div class="${fieldClass(d.error)}"><label for="${id}">${o.label}</label><select id="${id}" name="${o.name}"${d.aria}>${opts}</select>${d.after}</div>`;
}

export function checkbox(o: { name: string; label: string; value?: string; checked?: boolean; prefix?: string; required?: boolean }): Html {
  const id = `${idOf(o)}-${(o.value ?? "on").replace(/[^A-Za-z0-9_-]/g, "-")}`;
  return html`<div class="check"><input type="checkbox" id="${id}" name="${o.name}" value="${o.value ?? "on"}"${attrs({ checked: o.checked, required: o.required })}><label for="${id}">${o.label}</label></div>`;
}

/** A one-button form (POST + CSRF), for actions such as "Disable" or "Pay". */
export function actionButton(p: PanelCtx, action: string, label: string, opts: { hidden?: Record<string, string>; danger?: boolean; confirm?: string } = {}): Html {
  const hidden = Object.entries(opts.hidden ?? {}).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  const confirm = opts.confirm && checkbox({ name: "confirm", label: opts.confirm, prefix: `c${Math.abs(hash(action + label))}`, required: true });
  return html`<form method="post" action="${action}" class="inline">${csrfInput(p)}${hidden}${confirm}<button type="submit"${attrs({ class: opts.danger ? "danger" : undefined })}>${label}</button></form>`;
}

function hash(s: string): number {
  let h = 0;
  for (const c of s) h = (h * 31 + c.charCodeAt(0)) | 0;
  return h;
}

export function formErrors(p: PanelCtx, errors: FieldErrors | null | undefined): Html | "" {
  if (!errors || Object.keys(errors).length === 0) return "";
  return html`<div class="alert error" role="alert"><p>${errors._form ?? p.t("form.fix")}</p></div>`;
}

/** A form's error that has no control of its own (a fieldset's, a confirmation's). */
export const fieldError = (error: string | undefined, id?: string) => error && html`<p class="error"${attrs({ id })}>${error}</p>`;

/**
 * Every table of the panel. Each cell carries its column's header as data-label: on a narrow
 * screen (panel.css) a row becomes a card of label and value, so no column is squeezed until its
 * words and amounts break across lines.
 */
export function table(headers: string[], rows: HtmlValue[][], empty: string, caption?: string): Html {
  if (rows.length === 0) return html`<p class="empty">${empty}</p>`;
  const body = rows.map((r, n) => html`${n > 0 && "\n"}<tr>${r.map((c, i) => html`<td data-label="${headers[i] ?? ""}">${c}</td>`)}</tr>`);
  return html`<div class="table-wrap"><table>${caption && html`<caption>${caption}</caption>`}<thead><tr>${headers.map((h) => html`<th scope="col">${h}</th>`)}</tr></thead>
<tbody>${body}</tbody></table></div>`;
}

export const link = (href: string, text: HtmlValue) => html`<a href="${href}">${text}</a>`;

export function badge(status: string, text = status): Html {
  return html`<span class="badge s-${status.replace(/[^a-z_]/g, "")}">${text}</span>`;
}

/**
 * Older/newer links of a cursor-paginated list, keeping the other query parameters. `cursor`
 * names the parameter when a page has two lists (the plans' is plansAfter).
 */
export function cursorPager(p: PanelCtx, path: string, query: Record<string, string | undefined>, page: { data: { id: string }[]; hasMore: boolean }, cursor = "startingAfter"): Html | "" {
  const q = Object.fromEntries(Object.entries(query).filter(([k, v]) => v && k !== "startingAfter" && k !== "endingBefore")) as Record<string, string>;
  const first = page.data[0]?.id;
  const last = page.data[page.data.length - 1]?.id;
  const backwards = Boolean(query.endingBefore);
  const newer = (backwards ? page.hasMore : Boolean(query.startingAfter)) && first ? `${path}?${new URLSearchParams({ ...q, endingBefore: first })}` : "";
  const older = (backwards || page.hasMore) && last ? `${path}?${new URLSearchParams({ ...q, [cursor]: last })}` : "";
  if (!newer && !older) return "";
  return html`<nav class="pager" aria-label="${p.t("pager.label")}">${newer && link(newer, p.t("pager.newer"))}${older && link(older, p.t("pager.older"))}</nav>`;
}

export function numberPager(p: PanelCtx, path: string, query: Record<string, string | undefined>, page: number, pages: number): Html | "" {
  if (pages <= 1) return "";
  const q = Object.fromEntries(Object.entries(query).filter(([k, v]) => v && k !== "page")) as Record<string, string>;
  const to = (n: number) => `${path}?${new URLSearchParams({ ...q, page: String(n) })}`;
  return html`<nav class="pager" aria-label="${p.t("pager.label")}">${page > 1 && link(to(page - 1), p.t("pager.previous"))}<span>${p.t("pager.page", { page, pages })}</span>${page < pages && link(to(page + 1), p.t("pager.next"))}</nav>`;
}

export function dl(items: [string, HtmlValue][]): Html {
  return html`<dl class="facts">${items.map(([k, v]) => html`<div><dt>${k}</dt><dd>${v}</dd></div>`)}</dl>`;
}

/**
 * A QR code of `text` as inline SVG, drawn here by the qrcode library: markup made by the
 * server, not data (a data: URL image would be refused by the template's URL rule).
 */
export async function qrFigure(text: string, label: string): Promise<Html> {
  const svg = await QRCode.toString(text, { type: "svg", margin: 1, errorCorrectionLevel: "M" });
  return html`<figure class="qr"><div role="img" aria-label="${label}">${raw(svg)}</div><figcaption>${label}</figcaption></figure>`;
}
