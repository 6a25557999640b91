import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { appsOn, basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { panelClient, signIn } from "./panel-client.js";

// The panel's session over HTTP: sign-in through the existing login (and its lockout), the
// cookie's attributes, CSRF (token plus Sec-Fetch-Site/Origin), sign-out, and that the panel
// cookie never authorizes the /v1 API.

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp({}, {});
  m = await seedMerchant(t);
});
after(async () => t?.close());

test("a browser asking for / is sent to the panel; an API client keeps the JSON 404", async () => {
  const html = await t.app.inject({ method: "GET", url: "/", headers: { accept: "text/html,application/xhtml+xml" } });
  assert.equal(html.statusCode, 303);
  assert.equal(html.headers.location, "/panel");
  const json = await t.app.inject({ method: "GET", url: "/", headers: { accept: "application/json" } });
  assert.equal(json.statusCode, 404);
  assert.equal(json.json().code, "not_found");
});

test("signed out, a panel page redirects to sign-in, remembering where it was going", async () => {
  const res = await panelClient(t).get("/panel/charges?status=paid");
  assert.equal(res.statusCode, 303);
  assert.equal(res.headers.location, `/panel/login?next=${encodeURIComponent("/panel/charges?status=paid")}`);
});

test("sign-in sets an HttpOnly, SameSite=Lax cookie scoped to /panel, with an expiry; the page has a strict CSP", async () => {
  const c = panelClient(t);
  const page = await c.get("/panel/login");
  expectStatus(page, 200);
  assert.match(String(page.headers["content-security-policy"]), /script-src 'self'/);
  const res = await c.post("/panel/login?next=/panel/customers", { email: m.email, password: m.password });
  assert.equal(res.statusCode, 303, res.body);
  assert.equal(res.headers.location, "/panel/customers");
  const session = [res.headers["set-cookie"]].flat().map(String).find((l) => l.startsWith("feira_panel="));
  assert.ok(session, "session cookie set");
  assert.match(session, /; HttpOnly/);
  assert.match(session, /; SameSite=Lax/);
  assert.match(session, /; Path=\/panel/);
  assert.match(session, /; Max-Age=28800/);
  assert.doesNotMatch(session, /Secure/, "http base URL: no Secure flag");
  expectStatus(await c.get("/panel"), 200);
});

test("the cookie is Secure when PUBLIC_BASE_URL is https", async () => {
  const s = await buildTestApp({ publicBaseUrl: "https://pay.example.com" });
  try {
    const sm = await seedMerchant(s);
    const c = panelClient(s, "https://pay.example.com");
    await c.get("/panel/login");
    const res = await c.post("/panel/login", { email: sm.email, password: sm.password });
    assert.equal(res.statusCode, 303, res.body);
    assert.match([res.headers["set-cookie"]].flat().map(String).find((l) => l.startsWith("feira_panel="))!, /; Secure/);
  } finally {
    await s.close();
  }
});

test("a wrong password is refused with a message, and the login lockout applies", async () => {
  const s = await buildTestApp({}, {});
  try {
    const sm = await seedMerchant(s);
    const c = panelClient(s);
    await c.get("/panel/login");
    const wrong = await c.post("/panel/login", { email: sm.email, password: "nope nope" });
    assert.equal(wrong.statusCode, 401);
    assert.match(wrong.body, /e-mail or the password is wrong/);
    assert.ok(!c.cookies.has("feira_panel"));
    let last = wrong;
    for (let i = 0; i < 10 && last.statusCode !== 429; i++) last = await c.post("/panel/login", { email: sm.email, password: "nope nope" });
    assert.equal(last.statusCode, 429, "locked out after repeated failures");
    assert.match(last.body, /Too many failed attempts/);
    // While locked, even the right password does not sign in.
    const right = await c.post("/panel/login", { email: sm.email, password: sm.password });
    assert.equal(right.statusCode, 429);
  } finally {
    await s.close();
  }
});

test("the panel cookie never authorizes /v1 calls", async () => {
  const c = await signIn(t, m.email, m.password);
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await t.app.inject({ method: "GET", url: "/v1/charges", headers: { cookie } });
  assert.equal(res.statusCode, 401);
  // Nor is the session token itself a Bearer token.
  const bearer = await t.app.inject({ method: "GET", url: "/v1/shipping-provider/status", headers: { authorization: `Bearer ${c.cookies.get("feira_panel")}` } });
  assert.equal(bearer.statusCode, 401);
});

test("CSRF: a cross-site replay, a missing token or a foreign Origin is refused and changes nothing", async () => {
  const c = await signIn(t, m.email, m.password);
  const url = "/panel/developers/webhooks";
  const form = { url: "https://example.com/hook", events: "*" };
  const crossSite = await c.post(url, form, { "sec-fetch-site": "cross-site" });
  assert.equal(crossSite.statusCode, 403);
  const foreign = await c.post(url, form, { origin: "https://evil.example", "sec-fetch-site": "" });
  assert.equal(foreign.statusCode, 403);
  const noToken = await c.post(url, { ...form, _csrf: "" });
  assert.equal(noToken.statusCode, 403);
  const other = await signIn(t, m.email, m.password); // another session's token is no good here
  const stolen = await c.post(url, { ...form, _csrf: other.csrf });
  assert.equal(stolen.statusCode, 403);
  const list = await t.app.inject({ method: "GET", url: "/v1/webhook-endpoints", headers: { authorization: basic(m.sandboxKey) } });
  assert.equal(list.json().data.length, 0, "no endpoint was created");
  const env = await c.post("/panel/environment", { environment: "production", back: "/panel" }, { "sec-fetch-site": "cross-site" });
  assert.equal(env.statusCode, 403);
});

test("sign-out clears the session; a forged or tampered cookie is no session", async () => {
  const c = await signIn(t, m.email, m.password);
  const token = c.cookies.get("feira_panel")!;
  const out = await c.post("/panel/logout", {});
  assert.equal(out.statusCode, 303);
  assert.equal(out.headers.location, "/panel/login?bye=1");
  assert.ok(!c.cookies.has("feira_panel"));
  assert.equal((await c.get("/panel")).statusCode, 303);
  const [body = "", sig = ""] = token.split(".");
  const tampered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, "base64url").toString()), m: "mer_someone_else" })).toString("base64url");
  const res = await t.app.inject({ method: "GET", url: "/panel", headers: { cookie: `feira_panel=${tampered}.${sig}` } });
  assert.equal(res.statusCode, 303);
});

test("sign-out ends the session on the server: a copy of the old cookie opens nothing, on any process", async () => {
  // A second API process on the same database, as behind a load balancer.
  const other = appsOn(t.database);
  try {
    const t2 = await other.start(t.config);
    const c = await signIn(t, m.email, m.password);
    const copied = `feira_panel=${c.cookies.get("feira_panel")}`;
    const open = (app: TestApp) => app.app.inject({ method: "GET", url: "/panel/customers", headers: { accept: "text/html", cookie: copied } });
    expectStatus(await open(t2), 200);
    const stillIn = await signIn(t, m.email, m.password); // another session of the same merchant
    expectStatus(await c.post("/panel/logout", {}), 303);
    for (const app of [t, t2]) {
      const res = await open(app);
      assert.equal(res.statusCode, 303, res.body);
      assert.equal(res.headers.location, `/panel/login?next=${encodeURIComponent("/panel/customers")}`);
    }
    // Nor does it post: the CSRF token of the ended session is refused with it.
    const post = await t2.app.inject({
      method: "POST", url: "/panel/environment", payload: `_csrf=${encodeURIComponent(c.csrf)}&environment=production`,
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "http://localhost:3000", cookie: copied },
    });
    assert.equal(post.statusCode, 303, post.body);
    assert.match(String(post.headers.location), /^\/panel\/login/);
    expectStatus(await stillIn.get("/panel"), 200);
  } finally {
    await other.close();
  }
});

test("an expired session is no session", async () => {
  const c = await signIn(t, m.email, m.password);
  const [body = ""] = c.cookies.get("feira_panel")!.split(".");
  const claims = JSON.parse(Buffer.from(body, "base64url").toString());
  assert.ok(claims.x > Date.now() / 1000 && claims.x <= Date.now() / 1000 + 8 * 3600 + 5, "expires within 8 hours");
});
