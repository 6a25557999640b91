import { formatMoney } from "./panel/format.js";

// Escaping for server-rendered HTML: every value that reaches a page goes through `esc`, in text
// and in double-quoted attributes alike (a link titled <script> renders as text).
const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function esc(value: unknown): string {
  return String(value ?? "").replace(/[&<>"']/g, (c) => ENTITIES[c]!);
}

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

export function page(opts: { title: string; body: string; lang?: string }): string {
  return `<!doctype html>
<html lang="${esc(opts.lang ?? "pt-BR")}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${esc(opts.title)}</title>
<link rel="stylesheet" href="/pay/assets/checkout.css">
<script src="/pay/assets/checkout.js" defer></script>
</head>
<body>
${opts.body}
</body>
</html>
`;
}
