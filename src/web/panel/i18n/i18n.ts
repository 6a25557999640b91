import type { FastifyRequest } from "fastify";
import type { ErrorParams } from "../../../core/errors.js";
import { formatMoney } from "../format.js";
import { chargePageEn, chargePagePtBR } from "./charge-page.js";
import { disputesEn, disputesPtBR } from "./disputes.js";
import { en as enBase, type MessageKey as BaseKey } from "./en.js";
import { ptBR } from "./pt-br.js";
import { providerAccountsEn, providerAccountsPtBR } from "./provider-accounts.js";
import { reasonsEn, reasonsPtBR } from "./reasons.js";
import { REFUSALS } from "./refusals.js";

// Two languages: English by default, Brazilian Portuguese when the language cookie says so or,
// without it, when Accept-Language prefers Portuguese.
export type Lang = "en" | "pt-BR";
export const LANGS: readonly Lang[] = ["en", "pt-BR"];
export type MessageKey = BaseKey | keyof typeof disputesEn | keyof typeof reasonsEn | keyof typeof chargePageEn | keyof typeof providerAccountsEn;
const en: Record<MessageKey, string> = { ...enBase, ...disputesEn, ...reasonsEn, ...chargePageEn, ...providerAccountsEn };
const CATALOGS: Record<Lang, Record<MessageKey, string>> = {
  en, "pt-BR": { ...ptBR, ...disputesPtBR, ...reasonsPtBR, ...chargePagePtBR, ...providerAccountsPtBR },
};

/** Keys made from a value (a status, a method): an unknown value shows as itself. */
export type DynamicKey = `${"status" | "method" | "delivery" | "sub" | "sm" | "payout" | "event" | "dispute" | "reason"}.${string}`;
type Vars = ErrorParams;
export interface T {
  (key: MessageKey | DynamicKey, vars?: Vars): string;
  /** A service's refusal in this language, from its code and params; null when REFUSALS has no text for the code. */
  refusal(code: string, params?: Vars): string | null;
}

/** The Intl locale of a panel language: the format of its money, numbers and dates. */
export const localeOf = (lang: Lang): string => (lang === "pt-BR" ? "pt-BR" : "en-US");

/**
 * A message with a count has its singular and plural forms apart: "{n} paid charge|{n} paid
 * charges". Intl.PluralRules picks the form for the language, except that zero takes the plural
 * in both (CLDR's Portuguese puts 0 with 1, but "0 cobranças pagas" is what Brazilians write).
 */
function pluralForm(text: string, n: unknown, rules: Intl.PluralRules): string {
  const bar = text.indexOf("|");
  if (bar < 0) return text;
  const one = typeof n === "number" && n !== 0 && rules.select(n) === "one";
  return one ? text.slice(0, bar) : text.slice(bar + 1);
}

export function translator(lang: Lang): T {
  const catalog = CATALOGS[lang];
  const refusals: Partial<Record<string, string>> = REFUSALS[lang];
  const locale = localeOf(lang);
  const rules = new Intl.PluralRules(locale);
  // An amount ({minor, currency}) is written as money in this language's format.
  const fill = (text: string, vars?: Vars) => vars
    ? pluralForm(text, vars.n, rules).replace(/\{(\w+)\}/g, (m, name: string) => {
      const v = vars[name];
      return v === undefined ? m : typeof v === "object" ? formatMoney(v.minor, v.currency, locale) : String(v);
    })
    : text;
  const t = (key: MessageKey | DynamicKey, vars?: Vars) => {
    const known = key as MessageKey;
    return fill(catalog[known] ?? en[known] ?? key.slice(key.indexOf(".") + 1), vars);
  };
  return Object.assign(t, { refusal: (code: string, params?: Vars) => (refusals[code] === undefined ? null : fill(refusals[code], params)) });
}

/**
 * The language a person chose (the panel's cookie, the buyer's page's ?lang=), else the one
 * Accept-Language prefers among ours, else `fallback`.
 */
export function pickLang(req: FastifyRequest, cookie: string | undefined, fallback: Lang = "en"): Lang {
  if (cookie === "pt-BR" || cookie === "en") return cookie;
  const header = String(req.headers["accept-language"] ?? "");
  // The first language listed with the highest q that we speak.
  const ranked = header.split(",").map((part, i) => {
    const [tag = "", ...params] = part.trim().split(";");
    const q = Number(params.find((p) => p.trim().startsWith("q="))?.trim().slice(2) ?? "1");
    return { tag: tag.toLowerCase(), q: Number.isFinite(q) ? q : 0, i };
  }).filter((x) => x.tag).sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    if (tag.startsWith("pt")) return "pt-BR";
    if (tag.startsWith("en")) return "en";
  }
  return fallback;
}
