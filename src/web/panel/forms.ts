import type { ErrorObject, ValidateFunction } from "ajv";
import type { Static, TObject, TSchema } from "typebox";
import { AppError } from "../../core/errors.js";
import { HTTP_URL_PATTERN } from "../../http/schemas.js";
import { build } from "../../http/validation.js";
import type { FieldErrors } from "./context.js";
import type { T } from "./i18n/i18n.js";

// A panel form is turned into the body the API takes and checked against the API's own schema,
// with the API's validator settings; then the same service is called. What either refuses comes
// back as a message next to the field it names, in the page's language. Nothing here decides
// what is valid: a rule lives in the schema or the service, once.

const ajv = build({ coerceTypes: false, strictNumbers: true, allErrors: true });
const compiled = new WeakMap<TSchema, ValidateFunction>();

function fieldOf(e: ErrorObject): string {
  const base = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  const params = e.params as Record<string, unknown>;
  if (e.keyword === "required") return base ? `${base}.${String(params.missingProperty)}` : String(params.missingProperty);
  return base;
}

function messageOf(e: ErrorObject, t: T): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case "required": return t("v.required");
    case "minLength": return Number(p.limit) <= 1 ? t("v.required") : t("v.minLength", { n: Number(p.limit) });
    case "maxLength": return t("v.maxLength", { n: Number(p.limit) });
    case "minimum": case "exclusiveMinimum": return t("v.minimum", { n: Number(p.limit) });
    case "maximum": case "exclusiveMaximum": return t("v.maximum", { n: Number(p.limit) });
    case "minItems": return t("v.minItems");
    case "format": return p.format === "email" ? t("v.email") : p.format === "uri" ? t("v.url") : t("v.format");
    case "pattern": return p.pattern === HTTP_URL_PATTERN ? t("v.url") : t("v.format");
    case "enum": case "const": case "anyOf": return t("v.choice");
    case "type": return t("v.number");
    default: return t("v.invalid");
  }
}

/**
 * Field errors of `body` against an API schema, or null when it is valid. A pattern says
 * nothing to a person: `patterns` gives, per field, what its pattern allows in words.
 */
export function checkBody(schema: TSchema, body: unknown, t: T, patterns: Record<string, string> = {}): FieldErrors | null {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  if (validate(body)) return null;
  const errors: FieldErrors = {};
  for (const e of validate.errors ?? []) {
    const f = fieldOf(e) || "_form";
    // anyOf repeats each branch's failure; the first message of a field is the clearest.
    if (!errors[f]) errors[f] = e.keyword === "pattern" && patterns[f] ? patterns[f] : messageOf(e, t);
  }
  return errors;
}

/**
 * A service's refusal (4xx) as field errors: its message starts with the field it is about
 * ("companyTaxId is not a valid CNPJ", "url: ..."), which is attached to that field when the
 * form has it. A refusal with a stable code in the panel's table (i18n/refusals.ts) is said in
 * the page's language with its figures in the page's money format; any other shows the API's
 * own (English) message after a translated lead. 5xx errors are not caught.
 */
export function serviceErrors(err: unknown, t: T, fields: Record<string, string>): FieldErrors {
  if (!(err instanceof AppError) || err.statusCode >= 500) throw err;
  const lead = /^([A-Za-z_][\w.]*?)(?::|\s)/.exec(err.message)?.[1] ?? "";
  const name = Object.keys(fields).find((f) => f === lead || lead.startsWith(`${f}.`));
  const text = t.refusal(err.code, err.params) ?? t("v.service", { message: err.message });
  return name ? { [name]: text } : { _form: text };
}

/** Runs a service call; a 4xx becomes field errors instead of an error page. */
export async function attempt<R>(run: () => Promise<R>, t: T, fields: Record<string, string> = {}): Promise<{ ok: true; value: R } | { ok: false; errors: FieldErrors }> {
  try {
    return { ok: true, value: await run() };
  } catch (err) {
    return { ok: false, errors: serviceErrors(err, t, fields) };
  }
}

/** A form's fields as sent: each text field's first value, trimmed (empty is absent), lists as lists. */
function normalize(schema: TObject, input: unknown): Record<string, unknown> {
  const sent = input && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties as Record<string, TSchema & { type?: string; keepSpaces?: boolean }>)) {
    const v = sent[name];
    const values = (Array.isArray(v) ? v : v === undefined ? [] : [v]).filter((x): x is string => typeof x === "string");
    if (prop.type === "array") {
      out[name] = values.filter((x) => x !== "");
      continue;
    }
    const first = values[0];
    // A password is taken as typed; other text is trimmed, and a field left empty is absent.
    const s = first === undefined || prop.keepSpaces ? first : first.trim();
    if (s !== undefined && s !== "") out[name] = s;
  }
  return out;
}

export interface ReadForm<F> {
  /** The fields that passed the form's schema (a refused one is left out, and named in errors). */
  form: F;
  errors: FieldErrors | null;
  /** The form as sent, to show a refused form again with what was typed. */
  sent: Record<string, unknown>;
}

/**
 * A posted form (or a list page's query) read through its own schema: which fields it has and
 * their shapes (text of a bounded length, a choice, a checkbox). It decides nothing about the
 * values: the API's schema and the service do, after. Never throws on what a client sends.
 */
export function readForm<S extends TObject>(schema: S, input: unknown, t: T): ReadForm<Static<S>> {
  const sent = normalize(schema, input);
  const errors = checkBody(schema, sent, t);
  const refused = (k: string) => Object.keys(errors ?? {}).some((e) => e === k || e.startsWith(`${k}.`));
  const form = Object.fromEntries(Object.entries(sent).filter(([k]) => !refused(k))) as Static<S>;
  return { form, errors, sent };
}

/** A row field of a form (products.0.title), whose name the form's type cannot spell: text when the schema took it. */
export function rowText(form: Record<string, unknown>, name: string): string | undefined {
  const v = form[name];
  return typeof v === "string" ? v : undefined;
}

/** "12,50" or "12.50" as the number the API takes; text that is not a number stays text (and fails the schema). */
export function amount(s: string | undefined): number | string | undefined {
  if (s === undefined) return undefined;
  // "1.234,56" (Portuguese) or "1,234.56" (English): the last separator is the decimal one.
  const compacted = s.replace(/\s/g, "");
  const normalized = compacted.includes(",") && compacted.lastIndexOf(",") > compacted.lastIndexOf(".")
    ? compacted.replace(/\./g, "").replace(",", ".")
    : compacted.replace(/,/g, "");
  return /^-?\d+(\.\d+)?$/.test(normalized) ? Number(normalized) : s;
}

export function integer(s: string | undefined): number | string | undefined {
  if (s === undefined) return undefined;
  return /^-?\d+$/.test(s) ? Number(s) : s;
}

/** Drops undefined members, so optional fields left empty are simply absent from the API body. */
export function compact<O extends Record<string, unknown>>(o: O): O {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as O;
}
