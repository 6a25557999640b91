import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import { AppError } from "../../core/errors.js";
import { errorBody } from "../../http/errors.js";
import { multipartUploads } from "../../http/multipart.js";
import { DOCUMENT_UPLOAD_LIMITS } from "../../modules/connect/connect.schemas.js";
import { headerSafeUrl } from "../../lib/url-path.js";
import { PAGE_CSP } from "../page.js";
import type { Flash, PanelCtx, Upload } from "./context.js";
import { formatDate, formatMoney, formatUnits } from "./format.js";
import { localeOf, pickLang, translator, type Lang } from "./i18n/i18n.js";
import { renderForbidden, renderLogin } from "./pages/layout.js";
import { readForm } from "./forms.js";
import { EnvironmentForm, LanguageForm, LoginForm, LoginQuery, NoFields } from "./panel.schemas.js";
import { panelRouter } from "./router.js";
import { addCookie, createSessionKeys, FLASH_COOKIE, LANG_COOKIE, LOGIN_COOKIE, readCookies, sameOrigin, SESSION_COOKIE, SESSION_TTL_SECONDS, type Session, type SessionKeys } from "./session.js";
import { areaRoutes } from "./areas.js";
import type { PanelDeps, PanelKit } from "./kit.js";
import { createSessionStore } from "./session-store.js";

// The merchant panel at /panel: server-rendered pages over the same services as the API (see
// docs/decisions.md). This file holds what every page shares: parsing of form bodies, the
// security headers, the session, CSRF, sign-in and out, and the environment and language
// switches. The pages of each area are in their own files (areas.ts lists them).

const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");
const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };

// same-origin, not no-referrer: a form post then carries its Origin, which the CSRF check reads;
// nothing leaks to other sites either way.
function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", PAGE_CSP)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "same-origin")
    .header("x-frame-options", "DENY")
    .header("cross-origin-opener-policy", "same-origin");
}

/** Only a path inside the panel is a place to go back to (never //evil.example or a URL). */
export function safeBack(value: unknown, fallback = "/panel"): string {
  return typeof value === "string" && /^\/panel(\/[A-Za-z0-9_./?=&%-]*)?$/.test(value) && !value.includes("//") ? value : fallback;
}

export function panelRoutes(deps: PanelDeps) {
  const { services, config } = deps;
  const uploads = multipartUploads(DOCUMENT_UPLOAD_LIMITS);
  const sessions = createSessionStore(deps.db);
  const keys = createSessionKeys(config.jwtSecret, config.publicBaseUrl.startsWith("https:"));
  const css = asset("panel.css");
  const js = asset("panel.js");

  const flashAad = (s: Session) => `panel-flash:${s.merchantId}:${s.nonce}`;
  const kit: PanelKit = {
    deps,
    keys,
    html: (reply, page, status = 200) => secure(reply).code(status).header("cache-control", "no-store").type("text/html; charset=utf-8").send(String(page)),
    redirect(reply, p, to, flash) {
      if (flash) addCookie(reply, keys.cookie(FLASH_COOKIE, encodeURIComponent(services.sealer.seal(JSON.stringify(flash), flashAad(p.session))), 120));
      // `to` is built with urlPath (each id one encoded segment); the net keeps any other value that
      // reaches it from making the Location header invalid (a 500).
      return secure(reply).header("cache-control", "no-store").redirect(headerSafeUrl(to), 303);
    },
  };

  function readFlash(req: FastifyRequest, reply: FastifyReply, session: Session, cookies: Record<string, string>): Flash | null {
    const raw = cookies[FLASH_COOKIE];
    if (!raw) return null;
    addCookie(reply, keys.clear(FLASH_COOKIE)); // shown once: a reload finds nothing
    try {
      return JSON.parse(services.sealer.open(decodeURIComponent(raw), flashAad(session))) as Flash;
    } catch {
      return null;
    }
  }

  function langOf(req: FastifyRequest): Lang {
    return pickLang(req, readCookies(req)[LANG_COOKIE]);
  }

  function loginPage(req: FastifyRequest, reply: FastifyReply, o: { email?: string; error?: string; notice?: string; status?: number }) {
    const lang = langOf(req);
    // A login CSRF token: a random nonce in a short-lived cookie, and its HMAC in the form.
    const nonce = randomBytes(18).toString("base64url");
    addCookie(reply, keys.cookie(LOGIN_COOKIE, nonce, 3600));
    return kit.html(reply, renderLogin(translator(lang), lang, { ...o, csrf: keys.csrfFor(nonce) }), o.status);
  }

  function forbidden(req: FastifyRequest, reply: FastifyReply) {
    const lang = langOf(req);
    return kit.html(reply, renderForbidden(translator(lang), lang), 403);
  }

  return async (app: FastifyInstance) => {
    // Forms post urlencoded bodies; the KYC upload and a dispute's evidence post multipart (files
    // kept in memory, bounded like the API's upload). Both parsers exist only inside this plugin.
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string", bodyLimit: 256 * 1024 }, (_req, body, done) => {
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of new URLSearchParams(String(body))) {
        const prev = out[k];
        out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
      }
      done(null, out);
    });
    // A multipart body (files) is read only for a signed-in merchant: the session was checked
    // before any of it was read (onRequest below), so a request without one costs no memory.
    // A broken body is the 4xx of the shared reader, never a 500.
    await uploads.register(app);
    app.addHook("preValidation", async (req) => {
      if (!req.isMultipart() || !req.panel) return;
      const form: Record<string, string> = {};
      const files: Record<string, Upload[]> = {};
      await uploads.read(req, async (part) => {
        if (part.type !== "file") form[part.fieldname] = String(part.value);
        else {
          // An empty file input is sent as an empty part: it is no file.
          const content = await part.toBuffer();
          if (content.length > 0) (files[part.fieldname] ??= []).push({ name: part.filename, content });
        }
      });
      req.body = form;
      req.panelFiles = files;
    });

    // A browser asking for / wants the panel; an API client keeps the JSON 404.
    app.get("/", hidden, async (req, reply) => {
      if (String(req.headers.accept ?? "").includes("text/html")) return reply.redirect("/panel", 303);
      return reply.code(404).send(errorBody(404, "Route GET / not found", "not_found"));
    });

    app.get("/panel/assets/panel.css", hidden, async (_req, reply) =>
      secure(reply).header("cache-control", "public, max-age=300").type("text/css; charset=utf-8").send(css));
    app.get("/panel/assets/panel.js", hidden, async (_req, reply) =>
      secure(reply).header("cache-control", "public, max-age=300").type("text/javascript; charset=utf-8").send(js));

    const panelRoute = (req: FastifyRequest) => {
      const url = req.routeOptions.url ?? "";
      return url.startsWith("/panel") && !url.startsWith("/panel/assets/") ? url : undefined;
    };

    // Every /panel route but sign-in and the assets needs a valid session of an active merchant.
    // Checked onRequest, from the headers alone, before the body is read: the API refuses a
    // request without credentials before reading its body (src/http/hooks.ts), and so does the
    // panel, or anyone could make it buffer uploads of 10 MB a file without signing in.
    app.addHook("onRequest", async (req, reply) => {
      const url = panelRoute(req);
      if (!url) return;
      const cookies = readCookies(req);
      // A state change must come from this origin (its token is checked once the form is read).
      if (req.method === "POST" && !sameOrigin(req, config.publicBaseUrl)) return forbidden(req, reply);
      if (url === "/panel/login" || url === "/panel/language") return;
      // A valid signature is not enough: the session must still be open (not signed out).
      const signed = keys.verify(cookies[SESSION_COOKIE]);
      const session = signed && (await sessions.isOpen(signed)) ? signed : null;
      const status = session ? await services.merchants.authenticator.merchantStatus(session.merchantId) : null;
      if (!session || status !== "active") {
        if (cookies[SESSION_COOKIE]) addCookie(reply, keys.clear(SESSION_COOKIE));
        const next = req.method === "GET" ? `?next=${encodeURIComponent(req.url)}` : "";
        return secure(reply).header("cache-control", "no-store").redirect(`/panel/login${next}`, 303);
      }
      const merchant = await services.merchants.getMerchant(session.merchantId);
      const lang = pickLang(req, cookies[LANG_COOKIE]);
      const locale = localeOf(lang);
      req.panel = {
        session,
        ctx: { merchantId: session.merchantId, environment: session.environment, actor: { type: "jwt", id: session.merchantId }, requestId: String(req.id) },
        t: translator(lang),
        lang,
        csrf: keys.csrfFor(session.nonce),
        merchant: { id: merchant.id, name: merchant.name, email: merchant.email, connectEnabled: merchant.connectEnabled },
        timeZone: merchant.timezone,
        flash: req.method === "GET" ? readFlash(req, reply, session, cookies) : null,
        money: (minor, currency) => formatMoney(minor, currency, locale),
        units: (units, currency) => formatUnits(units, currency, locale),
        date: (iso, withTime = true) => formatDate(iso, locale, withTime, merchant.timezone),
      };
    });

    // The form is read: a state change must carry the token of the session (or, before sign-in,
    // of the login cookie). A cross-site replay fails here, changing nothing.
    app.addHook("preHandler", async (req, reply) => {
      if (req.method !== "POST" || !panelRoute(req)) return;
      const given = (req.body as Record<string, unknown> | undefined)?._csrf;
      const cookies = readCookies(req);
      const nonce = keys.verify(cookies[SESSION_COOKIE])?.nonce ?? cookies[LOGIN_COOKIE];
      if (!nonce || !keys.checkCsrf(nonce, given)) return forbidden(req, reply);
    });

    // Sign-in and the language switch come before any session: they read their forms here.
    app.get("/panel/login", hidden, async (req, reply) => {
      const t = translator(langOf(req));
      const { form } = readForm(LoginQuery, req.query, t);
      return loginPage(req, reply, { notice: form.bye ? t("login.signedOut") : undefined });
    });

    app.post("/panel/login", hidden, async (req, reply) => {
      const t = translator(langOf(req));
      const { form, errors, sent } = readForm(LoginForm, req.body, t);
      const { email, password } = form;
      if (errors || !email || !password) return loginPage(req, reply, { email: typeof sent.email === "string" ? sent.email : "", error: t("login.missing"), status: 422 });
      let merchantId: string;
      try {
        merchantId = await deps.loginThrottle.attempt({ email, ip: req.ip }, reply, () => services.merchants.login(email, password));
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        const error = err.code === "unauthorized" ? t("login.wrong")
          : err.code === "rate_limited" ? t("login.locked", { seconds: String(reply.getHeader("retry-after") ?? "") })
          : err.code === "forbidden" ? t("login.inactive") : t("login.unavailable");
        return loginPage(req, reply, { email, error, status: err.statusCode });
      }
      const session = keys.fresh(merchantId);
      await sessions.open(session);
      addCookie(reply, keys.clear(LOGIN_COOKIE));
      addCookie(reply, keys.cookie(SESSION_COOKIE, keys.sign(session), SESSION_TTL_SECONDS));
      return secure(reply).header("cache-control", "no-store").redirect(safeBack(readForm(LoginQuery, req.query, t).form.next), 303);
    });

    app.post("/panel/language", hidden, async (req, reply) => {
      const { form } = readForm(LanguageForm, req.body, translator(langOf(req)));
      addCookie(reply, keys.cookie(LANG_COOKIE, form.lang ?? "en", 365 * 24 * 3600));
      return secure(reply).redirect(safeBack(form.back), 303);
    });

    const route = panelRouter(app);
    // Ends the session on the server: a copy of the cookie opens nothing from now on.
    route.post("/panel/logout", NoFields, async ({ p }, reply) => {
      await sessions.close(p.session);
      addCookie(reply, keys.clear(SESSION_COOKIE));
      return secure(reply).redirect("/panel/login?bye=1", 303);
    });

    route.post("/panel/environment", EnvironmentForm, async ({ p, form }, reply) => {
      const environment = form.environment ?? "sandbox";
      addCookie(reply, keys.cookie(SESSION_COOKIE, keys.sign({ ...p.session, environment }), Math.max(1, p.session.expiresAt - Math.floor(Date.now() / 1000))));
      return kit.redirect(reply, p, safeBack(form.back), { notice: p.t(environment === "production" ? "env.nowProduction" : "env.nowSandbox") });
    });

    await app.register(areaRoutes(kit));
  };
}
