import { esc } from "../html.js";
import type { PanelCtx } from "./context.js";
import type { Lang, MessageKey, T } from "./i18n/i18n.js";
import { csrfInput } from "./ui.js";

// The shell of every panel page: skip link, header with the environment and language switches
// and sign-out, the navigation, the sandbox marking, and the page. No inline script or style
// (the CSP forbids both); the stylesheet and the small script come from /panel/assets.

export type Area = "home" | "charges" | "customers" | "subscriptions" | "links" | "connect" | "shipping" | "developers" | "settings";

const NAV: [Area, string, MessageKey][] = [
  ["home", "/panel", "nav.home"],
  ["charges", "/panel/charges", "nav.charges"],
  ["customers", "/panel/customers", "nav.customers"],
  ["subscriptions", "/panel/subscriptions", "nav.subscriptions"],
  ["links", "/panel/links", "nav.links"],
  ["connect", "/panel/connect", "nav.connect"],
  ["shipping", "/panel/shipping", "nav.shipping"],
  ["developers", "/panel/developers", "nav.developers"],
  ["settings", "/panel/settings", "nav.settings"],
];

export function document(opts: { lang: Lang; title: string; body: string; bodyClass?: string }): string {
  return `<!doctype html>
<html lang="${esc(opts.lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<title>${esc(opts.title)} · feira</title>
<link rel="stylesheet" href="/panel/assets/panel.css">
<script src="/panel/assets/panel.js" defer></script>
</head>
<body${opts.bodyClass ? ` class="${esc(opts.bodyClass)}"` : ""}>
${opts.body}
</body>
</html>
`;
}

function languageSwitch(t: T, lang: Lang, csrf: string, back: string): string {
  const other: Lang = lang === "en" ? "pt-BR" : "en";
  return `<form method="post" action="/panel/language" class="inline">${csrf}<input type="hidden" name="back" value="${esc(back)}"><input type="hidden" name="lang" value="${other}"><button type="submit" class="link" lang="${other}">${esc(t(other === "en" ? "lang.en" : "lang.pt"))}</button></form>`;
}

export function renderPage(p: PanelCtx, opts: { title: string; area: Area; body: string; path: string }): string {
  const { t } = p;
  const sandbox = p.ctx.environment === "sandbox";
  const nav = NAV.filter(([area]) => area !== "connect" || p.merchant.connectEnabled)
    .map(([area, href, key]) => `<li><a href="${href}"${area === opts.area ? ' aria-current="page"' : ""}>${esc(t(key))}</a></li>`).join("");
  const envSwitch = `<form method="post" action="/panel/environment" class="env-switch">${csrfInput(p)}
<input type="hidden" name="back" value="${esc(opts.path)}">
<input type="hidden" name="environment" value="${sandbox ? "production" : "sandbox"}">
<span class="env ${sandbox ? "env-sandbox" : "env-production"}">${esc(t(sandbox ? "env.sandbox" : "env.production"))}</span>
<button type="submit">${esc(t(sandbox ? "env.toProduction" : "env.toSandbox"))}</button></form>`;
  const flash = p.flash?.notice ? `<div class="alert ok" role="status">${esc(p.flash.notice)}</div>` : "";
  const secret = (p.flash?.secret ?? []).map((s) => `<div class="alert secret" role="status"><p><strong>${esc(s.label)}</strong></p>
<p><code class="secret-value" id="secret-${esc(s.label.replace(/\W/g, ""))}">${esc(s.value)}</code> <button type="button" class="copy" data-copy="${esc(s.value)}">${esc(t("action.copy"))}</button></p><p>${esc(t("secret.once"))}</p></div>`).join("");
  const body = `<a class="skip" href="#main">${esc(t("nav.skip"))}</a>
<header class="top${sandbox ? " is-sandbox" : ""}">
<a class="brand" href="/panel">feira</a>
<span class="merchant-name">${esc(p.merchant.name)}</span>
${envSwitch}
<div class="top-actions">${languageSwitch(t, p.lang, csrfInput(p), opts.path)}
<form method="post" action="/panel/logout" class="inline">${csrfInput(p)}<button type="submit" class="link">${esc(t("nav.signOut"))}</button></form></div>
</header>
${sandbox ? `<p class="sandbox-banner" role="note">${esc(t("env.sandboxBanner"))}</p>` : ""}
<div class="layout">
<nav class="side" aria-label="${esc(t("nav.label"))}"><ul>${nav}</ul></nav>
<main id="main" tabindex="-1">
<h1>${esc(opts.title)}</h1>
${flash}${secret}
${opts.body}
</main>
</div>`;
  return document({ lang: p.lang, title: opts.title, body, bodyClass: sandbox ? "sandbox" : "production" });
}

/** The sign-in page (no session yet). */
export function renderLogin(t: T, lang: Lang, o: { csrf: string; email?: string; error?: string; notice?: string }): string {
  const body = `<main id="main" class="login">
<p class="brand">feira</p>
<h1>${esc(t("login.title"))}</h1>
${o.notice ? `<div class="alert ok" role="status">${esc(o.notice)}</div>` : ""}
${o.error ? `<div class="alert error" role="alert" id="login-error">${esc(o.error)}</div>` : ""}
<form method="post" action="/panel/login">
<input type="hidden" name="_csrf" value="${esc(o.csrf)}">
<div class="field"><label for="email">${esc(t("login.email"))}</label><input id="email" name="email" type="email" autocomplete="username" required value="${esc(o.email ?? "")}"${o.error ? ' aria-describedby="login-error"' : ""}></div>
<div class="field"><label for="password">${esc(t("login.password"))}</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit" class="primary">${esc(t("login.submit"))}</button>
</form>
<form method="post" action="/panel/language" class="inline"><input type="hidden" name="_csrf" value="${esc(o.csrf)}"><input type="hidden" name="back" value="/panel/login"><input type="hidden" name="lang" value="${lang === "en" ? "pt-BR" : "en"}"><button type="submit" class="link" lang="${lang === "en" ? "pt-BR" : "en"}">${esc(t(lang === "en" ? "lang.pt" : "lang.en"))}</button></form>
</main>`;
  return document({ lang, title: t("login.title"), body, bodyClass: "login-page" });
}
