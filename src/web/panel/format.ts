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

/**
 * An instant as the merchant's wall clock reads it, in `timeZone` (theirs, Brasília by default):
 * a charge paid at 01:30 UTC is "22:30" of the day before in Brasília. A bare YYYY-MM-DD (a
 * day of the sales chart) is a calendar day already: written as that day, with no zone.
 */
export function formatDate(iso: string | Date | null | undefined, locale: string, withTime: boolean, timeZone: string): string {
  if (!iso) return "—";
  const day = typeof iso === "string" && /^\d{4}-\d{2}-\d{2}$/.test(iso);
  const d = typeof iso === "string" ? new Date(iso) : iso;
  if (Number.isNaN(d.getTime())) return "—";
  const zone = day ? "UTC" : timeZone;
  return new Intl.DateTimeFormat(locale, withTime && !day ? { dateStyle: "medium", timeStyle: "short", timeZone: zone } : { dateStyle: "medium", timeZone: zone }).format(d);
}

export { formatDocument } from "../../lib/documents.js";

export function formatNumber(n: number, locale: string): string {
  return new Intl.NumberFormat(locale).format(n);
}
