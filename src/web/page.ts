import { formatMoney } from "./panel/format.js";
import { html, type Html } from "./html.js";

/**
 * R$ 1.234,56 from minor units, as Brazilian buyers read money; divided by the currency's own
 * decimals (1,500 JPY is "JP¥ 1.500", not "JP¥ 15").
 */
export function brl(minor: number, currency: string): string {
  return formatMoney(minor, currency, "pt-BR");
}

/**
 * The page's security headers: scripts and styles only from this origin (no inline code at all),
 * images from here or data: URLs (the Pix QR code), calls only to this origin, no framing.
 */
export const PAGE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
  "form-action 'self'", "base-uri 'none'", "frame-ancestors 'none'",
].join("; ");

/** The hosted pages' document (the checkout's, the buyer's page of a charge): the stylesheet, one script of /pay/assets, no referrer. */
export function page(opts: { title: string; body: Html; lang?: string; script?: "checkout.js" | "charge.js" }): string {
  return String(html`<!doctype html>
<html lang="${opts.lang ?? "pt-BR"}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${opts.title}</title>
<link rel="stylesheet" href="/pay/assets/checkout.css">
<script src="/pay/assets/${opts.script ?? "checkout.js"}" defer></script>
</head>
<body>
${opts.body}
</body>
</html>
`);
}
