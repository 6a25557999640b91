import { html, type Html, type HtmlValue } from "../../html.js";
import type { PanelCtx } from "../context.js";
import type { Lang, MessageKey, T } from "../i18n/i18n.js";
import { csrfInput } from "../ui.js";

// The shell of every panel page: skip link, header with the environment and language switches
// and sign-out, the navigation, the sandbox marking, and the page. No inline script or style
// (the CSP forbids both); the stylesheet and the small script come from /panel/assets.

export type Area = "home" | "charges" | "disputes" | "customers" | "subscriptions" | "links" | "connect" | "shipping" | "developers" | "settings";

const NAV: [Area, string, MessageKey][] = [
  ["home", "/panel", "nav.home"],
  ["charges", "/panel/charges", "nav.charges"],
  ["disputes", "/panel/disputes", "nav.disputes"],
  ["customers", "/panel/customers", "nav.customers"],
  ["subscriptions", "/panel/subscriptions", "nav.subscriptions"],
  ["links", "/panel/links", "nav.links"],
  ["connect", "/panel/connect", "nav.connect"],
  ["shipping", "/panel/shipping", "nav.shipping"],
  ["developers", "/panel/developers", "nav.developers"],
  ["settings", "/panel/settings", "nav.settings"],
];

export function document(opts: { lang: Lang; title: string; body: Html; bodyClass?: string }): Html {
  return html`<!doctype html>
<html lang="${opts.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<title>${opts.title} · feira</title>
<link rel="stylesheet" href="/panel/assets/panel.css">
<script src="/panel/assets/panel.js" defer></script>
</head>
<body${opts.bodyClass && html` class="${opts.bodyClass}"`}>
${opts.body}
</body>
</html>
`;
}

function languageSwitch(t: T, lang: Lang, csrf: Html, back: string): Html {
  const other: Lang = lang === "en" ? "pt-BR" : "en";
  return html`<form method="post" action="/panel/language" class="inline">${csrf}<input type="hidden" name="back" value="${back}"><input type="hidden" name="lang" value="${other}"><button type="submit" class="link" lang="${other}">${t(other === "en" ? "lang.en" : "lang.pt")}</button></form>`;
}

function flashOf(p: PanelCtx): Html {
  const notice = p.flash?.notice && html`<div class="alert ok" role="status">${p.flash.notice}</div>`;
  const secrets = (p.flash?.secret ?? []).map((s) => html`<div class="alert secret" role="status"><p><strong>${s.label}</strong></p>
<p><code class="secret-value" id="secret-${s.label.replace(/\W/g, "")}">${s.value}</code> <button type="button" class="copy" data-copy="${s.value}">${p.t("action.copy")}</button></p><p>${p.t("secret.once")}</p></div>`);
  return html`${notice}${secrets}`;
}

export interface PageOpts {
  title: string;
  area: Area;
  body: HtmlValue;
  /** Where the environment and language switches come back to. */
  path: string;
}

export function renderPage(p: PanelCtx, opts: PageOpts): Html {
  const { t } = p;
  const sandbox = p.ctx.environment === "sandbox";
  const nav = NAV.filter(([area]) => area !== "connect" || p.merchant.connectEnabled)
    .map(([area, href, key]) => html`<li><a href="${href}"${area === opts.area && html` aria-current="page"`}>${t(key)}</a></li>`);
  const envSwitch = html`<form method="post" action="/panel/environment" class="env-switch">${csrfInput(p)}
<input type="hidden" name="back" value="${opts.path}">
<input type="hidden" name="environment" value="${sandbox ? "production" : "sandbox"}">
<span class="env ${sandbox ? "env-sandbox" : "env-production"}">${t(sandbox ? "env.sandbox" : "env.production")}</span>
<button type="submit">${t(sandbox ? "env.toProduction" : "env.toSandbox")}</button></form>`;
  const body = html`<a class="skip" href="#main">${t("nav.skip")}</a>
<header class="${sandbox ? "top is-sandbox" : "top"}">
<a class="brand" href="/panel">feira</a>
<span class="merchant-name">${p.merchant.name}</span>
${envSwitch}
<div class="top-actions">${languageSwitch(t, p.lang, csrfInput(p), opts.path)}
<form method="post" action="/panel/logout" class="inline">${csrfInput(p)}<button type="submit" class="link">${t("nav.signOut")}</button></form></div>
</header>
${sandbox && html`<p class="sandbox-banner" role="note">${t("env.sandboxBanner")}</p>`}
<div class="layout">
<nav class="side" aria-label="${t("nav.label")}"><ul>${nav}</ul></nav>
<main id="main" tabindex="-1">
<h1>${opts.title}</h1>
${flashOf(p)}
${opts.body}
</main>
</div>`;
  return document({ lang: p.lang, title: opts.title, body, bodyClass: sandbox ? "sandbox" : "production" });
}

/** A page that only says something (not found, not allowed), with a way back when given. */
export function messagePage(p: PanelCtx, opts: Omit<PageOpts, "body"> & { message: string; back?: [string, string] }): Html {
  const back = opts.back && html`<p><a href="${opts.back[0]}">${opts.back[1]}</a></p>`;
  return renderPage(p, { ...opts, body: html`<p>${opts.message}</p>${back}` });
}

/** The sign-in page (no session yet). */
export function renderLogin(t: T, lang: Lang, o: { csrf: string; email?: string; error?: string; notice?: string }): Html {
  const other: Lang = lang === "en" ? "pt-BR" : "en";
  const body = html`<main id="main" class="login">
<p class="brand">feira</p>
<h1>${t("login.title")}</h1>
${o.notice && html`<div class="alert ok" role="status">${o.notice}</div>`}
${o.error && html`<div class="alert error" role="alert" id="login-error">${o.error}</div>`}
<form method="post" action="/panel/login">
<input type="hidden" name="_csrf" value="${o.csrf}">
<div class="field"><label for="email">${t("login.email")}</label><input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ""}"${o.error && html` aria-describedby="login-error"`}></div>
<div class="field"><label for="password">${t("login.password")}</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<button type="submit" class="primary">${t("login.submit")}</button>
</form>
<form method="post" action="/panel/language" class="inline"><input type="hidden" name="_csrf" value="${o.csrf}"><input type="hidden" name="back" value="/panel/login"><input type="hidden" name="lang" value="${other}"><button type="submit" class="link" lang="${other}">${t(lang === "en" ? "lang.pt" : "lang.en")}</button></form>
</main>`;
  return document({ lang, title: t("login.title"), body, bodyClass: "login-page" });
}

/** A form posted from elsewhere or without its token: nothing changed. */
export function renderForbidden(t: T, lang: Lang): Html {
  return html`<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>403</title></head><body><main><h1>${t("csrf.title")}</h1><p>${t("csrf.body")}</p><p><a href="/panel">${t("nav.home")}</a></p></main></body></html>`;
}
