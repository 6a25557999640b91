import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge } from "../helpers/charges.js";
import { submerchantBody } from "../connect/helpers.js";
import { signIn } from "../panel/panel-client.js";

// Every URL a merchant stores is http(s): a `javascript:` or `data:` URL saved as a tracking link
// or a website would run in whoever clicks it in the panel or on a receipt. Each field, through
// its create and update routes, refuses the other schemes in any case or spelling with a 422 that
// names it; nothing is stored.

const BAD = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", " javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "java\tscript:alert(1)", "https:javascript:alert(1)", "//evil.example/x", "https://exa mple.com/"];

let t: TestApp;
let m: SeededMerchant;
let linkId: string;
let endpointId: string;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  const link = await send("POST", "/v1/payment-links", linkBody({}));
  expectStatus(link, 201);
  linkId = link.json().id;
  const endpoint = await send("POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/feira" });
  expectStatus(endpoint, 201);
  endpointId = endpoint.json().id;
});
after(async () => t?.close());

const send = (method: "POST" | "PATCH", url: string, payload: unknown) =>
  t.app.inject({ method, url, headers: { authorization: basic(m.sandboxKey) }, payload: payload as never });

function linkBody(extra: Record<string, unknown>) {
  return { title: "Caneca", currency: "BRL", freightMode: "pickup", products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 1, physical: true }], ...extra };
}

const FIELDS: { name: string; field: RegExp; method: "POST" | "PATCH"; url: () => string; body: (url: string) => unknown }[] = [
  { name: "a charge's trackingInfo.trackingUrl", field: /^trackingInfo\.trackingUrl /, method: "POST", url: () => "/v1/charges", body: (u) => methodCharge({ type: "pix" }, { trackingInfo: { trackingUrl: u } }) },
  { name: "a charge's postbackUrl", field: /^postbackUrl /, method: "POST", url: () => "/v1/charges", body: (u) => methodCharge({ type: "pix" }, { postbackUrl: u }) },
  { name: "a submerchant's website", field: /^website /, method: "POST", url: () => "/v1/submerchants", body: (u) => submerchantBody({ website: u }) },
  { name: "a submerchant's postbackUrl", field: /^postbackUrl /, method: "POST", url: () => "/v1/submerchants", body: (u) => submerchantBody({ postbackUrl: u }) },
  { name: "a new payment link's successUrl", field: /^successUrl /, method: "POST", url: () => "/v1/payment-links", body: (u) => linkBody({ successUrl: u }) },
  { name: "a payment link's successUrl, changed", field: /^successUrl /, method: "PATCH", url: () => `/v1/payment-links/${linkId}`, body: (u) => ({ successUrl: u }) },
  { name: "a new webhook endpoint's url", field: /^url /, method: "POST", url: () => "/v1/webhook-endpoints", body: (u) => ({ url: u }) },
  { name: "a webhook endpoint's url, changed", field: /^url /, method: "PATCH", url: () => `/v1/webhook-endpoints/${endpointId}`, body: (u) => ({ url: u }) },
];

describe("every URL a merchant stores is http(s)", () => {
  for (const f of FIELDS) {
    test(`${f.name}: other schemes are a 422 naming the field`, async () => {
      for (const bad of BAD) {
        const res = await send(f.method, f.url(), f.body(bad));
        assert.equal(res.statusCode, 422, `${JSON.stringify(bad)}: ${res.body}`);
        assert.match(res.json().message, f.field, `${JSON.stringify(bad)}: ${res.body}`);
      }
    });
  }

  test("http and https, in any case, are still taken", async () => {
    expectStatus(await send("POST", "/v1/charges", methodCharge({ type: "pix" }, { trackingInfo: { trackingUrl: "HTTPS://rastreio.example.com/BR123?x=1#y" } })), 201);
    expectStatus(await send("PATCH", `/v1/payment-links/${linkId}`, { successUrl: "http://localhost:8080/obrigado" }), 200);
  });

  test("nothing was stored by the refused requests", async () => {
    const links = await t.app.inject({ method: "GET", url: `/v1/payment-links/${linkId}`, headers: { authorization: basic(m.sandboxKey) } });
    assert.doesNotMatch(links.body, /javascript|data:text/i);
    const subs = await t.app.inject({ method: "GET", url: "/v1/submerchants", headers: { authorization: basic(m.sandboxKey) } });
    assert.equal(subs.json().total, 0, subs.body);
  });

  test("the panel's forms refuse them too, with the URL hint", async () => {
    const c = await signIn(t, m.email, m.password);
    const res = await c.post("/panel/connect", { ...Object.fromEntries(Object.entries(submerchantBody()).map(([k, v]) => [k, String(v)])), website: "javascript:alert(1)" });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.body, /Enter a full URL/);
  });
});
