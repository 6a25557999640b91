import type { FastifyRequest } from "fastify";
import { en, type MessageKey } from "./en.js";
import { ptBR } from "./pt-br.js";

// Two languages: English by default, Brazilian Portuguese when the language cookie says so or,
// without it, when Accept-Language prefers Portuguese.
export type Lang = "en" | "pt-BR";
export const LANGS: readonly Lang[] = ["en", "pt-BR"];
const CATALOGS: Record<Lang, Record<MessageKey, string>> = { en, "pt-BR": ptBR };

/** Keys made from a value (a status, a method): an unknown value shows as itself. */
export type DynamicKey = `${"status" | "method" | "delivery" | "sub" | "sm" | "payout" | "event"}.${string}`;
export type T = (key: MessageKey | DynamicKey, vars?: Record<string, string | number>) => string;

export function translator(lang: Lang): T {
  const catalog = CATALOGS[lang];
  return (key, vars) => {
    const known = key as MessageKey;
    const text = catalog[known] ?? en[known] ?? key.slice(key.indexOf(".") + 1);
    return vars ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in vars ? String(vars[name]) : m)) : text;
  };
}

export function pickLang(req: FastifyRequest, cookie: string | undefined): Lang {
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
  return "en";
}

export type { MessageKey };
