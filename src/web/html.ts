// Server-rendered HTML is built only through the `html` tagged template: every interpolation is
// escaped (text and quoted attributes alike: & < > " ' all become entities) unless it is already
// an `Html` value, i.e. a fragment made by `html` itself or text marked trusted with `raw()`.
// A forgotten escape therefore cannot exist; a page can only opt out, visibly, with `raw`.
//
// Two contexts escaping alone does not make safe are handled where the template is read:
// - a value that starts a URL attribute (href, src, action, ...) must be a web address or a path
//   of this site; anything else (javascript:, data:, vbscript:, //other-host) becomes
//   about:invalid, so a stored URL cannot run script when clicked;
// - an unquoted attribute value or an event-handler attribute (onclick=) taking data is a mistake
//   in the template itself, refused the first time that template renders (a test catches it).

// Declared before the class: its static block assigns it.
let make: (text: string) => Html;

/** Text that is HTML already: made by `html`, or marked trusted with `raw`. Nominal: a string is never one. */
export class Html {
  readonly #text: string;
  private constructor(text: string) {
    this.#text = text;
  }
  static {
    // The only door: a module-private maker, so nothing outside this file can mint an Html.
    make = (text) => new Html(text);
  }
  toString(): string {
    return this.#text;
  }
}

/** What a template takes: text and numbers (escaped), fragments (as they are), lists of either; nothing for null/undefined/false. */
export type HtmlValue = Html | string | number | bigint | null | undefined | false | readonly HtmlValue[];

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
const escapeText = (s: string) => s.replace(/[&<>"']/g, (c) => ENTITIES[c]!);

const URL_ATTRIBUTE = /\s(?:href|src|action|formaction|poster|cite|srcset|xlink:href)\s*=\s*["']$/i;
const UNQUOTED_ATTRIBUTE = /<[^>]*\s[\w:-]+\s*=\s*$/;
const HANDLER_ATTRIBUTE = /<[^>]*\son[a-z]+\s*=[^>]*$/i;

/**
 * A URL from data that may go into href/src: http(s), mailto, or a path of this site (not
 * //host, which leaves it, nor /\host, which browsers read the same way). Anything else is
 * about:invalid, a link that goes nowhere.
 */
export function safeUrl(value: string): string {
  return /^(?:https?:\/\/|mailto:|\/(?![/\\])|[?#])/i.test(value) ? value : "about:invalid";
}

function render(value: HtmlValue, inUrl: boolean): string {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.toString();
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v, false)).join("");
  const text = String(value);
  return escapeText(inUrl ? safeUrl(text) : text);
}

// What each template (one per call site: the strings array is the same object every time) needs
// at each interpolation, worked out once; a template that puts data where escaping cannot make it
// safe throws here, on its first render.
const plans = new WeakMap<TemplateStringsArray, boolean[]>();

function planOf(strings: TemplateStringsArray): boolean[] {
  let plan = plans.get(strings);
  if (plan) return plan;
  let before = "";
  plan = strings.slice(0, -1).map((chunk) => {
    before = (before + chunk).slice(-400);
    if (UNQUOTED_ATTRIBUTE.test(before)) throw new Error(`html: an unquoted attribute value takes data after "${chunk.slice(-60)}"`);
    if (HANDLER_ATTRIBUTE.test(before)) throw new Error(`html: an event handler attribute takes data after "${chunk.slice(-60)}"`);
    before += "x";
    return URL_ATTRIBUTE.test(chunk);
  });
  plans.set(strings, plan);
  return plan;
}

/** The template: html`<p class="x">${text}</p>` escapes `text`; fragments and lists nest. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  const plan = planOf(strings);
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]!, plan[i]!) + strings[i + 1]!;
  return make(out);
}

/** Trusted HTML as it is (an SVG made by a library here, never data a person typed). */
export const raw = (trusted: string): Html => make(trusted);

/**
 * Attributes from a record, for a component that takes extra ones (inputmode, maxlength...):
 * names must be plain attribute names (never on*), values are escaped (and URLs guarded, as in
 * the template); true is a bare attribute, false/undefined none.
 */
export function attrs(list: Record<string, string | number | boolean | undefined> = {}): Html {
  const parts = Object.entries(list).map(([name, value]) => {
    if (!/^[a-z][a-z0-9-]*$/.test(name) || name.startsWith("on")) throw new Error(`html: not an attribute name: ${name}`);
    if (value === undefined || value === false) return "";
    if (value === true) return ` ${name}`;
    return ` ${name}="${escapeText(URL_ATTRIBUTE.test(` ${name}="`) ? safeUrl(String(value)) : String(value))}"`;
  });
  return make(parts.join(""));
}
