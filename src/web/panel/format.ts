import { currencyExponent, formatMajor } from "../../lib/money.js";

// Money, dates and documents as a person reads them, in the page's locale (Intl). Amounts are
// integer minor units: divided by 10^decimals of their currency (BRL 2, JPY 0), so 1,500 JPY
// is "JP¥1,500", never "JP¥15".

export function formatMoney(minor: number, currency: string, locale: string): string {
  const exp = currencyExponent(currency);
  if (exp === undefined) return `${minor} ${currency}`;
  // The exact decimal text, so a large amount is not rounded through a float division.
  const major = Number(formatMajor(minor, currency));
  return new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: exp, maximumFractionDigits: exp }).format(major);
}

/** Currency units (as the API answers them) to display text. */
export function formatUnits(units: number, currency: string, locale: string): string {
  const exp = currencyExponent(currency) ?? 2;
  return new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: exp, maximumFractionDigits: exp }).format(units);
}

export function formatDate(iso: string | Date | null | undefined, locale: string, withTime = true): string {
  if (!iso) return "—";
  const d = typeof iso === "string" ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return "—";
  return new Intl.DateTimeFormat(locale, withTime ? { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" } : { dateStyle: "medium", timeZone: "UTC" }).format(d) + (withTime ? " UTC" : "");
}

export { formatDocument } from "../../lib/documents.js";

export function formatNumber(n: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(n);
}
