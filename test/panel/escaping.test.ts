import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { FILES, submerchantBody } from "../connect/helpers.js";
import { openDispute, paidCard, sendEvidence } from "../disputes/helpers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// What merchants and buyers type (names, descriptions, metadata, e-mails, titles) reaches every
// panel page that shows it as text: a <script>, a quote that closes an attribute, an onerror
// handler or a javascript: URL renders inert. And what a client sends to a panel form or list
// page (a field repeated, a field of megabytes) is a page with a message, never a 500.

const SCRIPT = `<script>alert("x")</script>`;
const BREAK_OUT = `"><img src=x onerror=alert(1)>`;
const JS_URL = "javascript:alert(document.cookie)";
const EVIL = `${SCRIPT}${BREAK_OUT}' onmouseover='alert(2)`;
/** EVIL as the page must show it: every character that could start markup, escaped. */
const EVIL_ESCAPED = `&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39; onmouseover=&#39;alert(2)`;

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
const ids: Record<string, string> = {};

const api = async (method: "POST" | "GET", url: string, payload?: object) => {
  const res = await t.app.inject({ method, url, payload, headers: { authorization: basic(m.sandboxKey), ...(payload ? { "idempotency-key": `k-${Math.random()}` } : {}) } });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.json() as { id: string } & Record<string, unknown>;
};

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true, name: `Loja ${EVIL}` });
  c = await signIn(t, m.email, m.password);
  const charge = await api("POST", "/v1/charges", {
    amount: 10, currency: "BRL", metadata: { note: EVIL, link: JS_URL },
    items: [{ title: EVIL, unit_price: 10, quantity: 1 }],
    customer: { name: EVIL, email: "o'neil&co@example.com", document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "ANA SOUZA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
  });
  ids.charge = charge.id;
  ids.customer = (await api("GET", "/v1/customers?limit=1") as unknown as { data: { id: string }[] }).data[0]!.id;
  ids.link = (await api("POST", "/v1/payment-links", { title: EVIL, description: EVIL, currency: "BRL", freightMode: "free", products: [{ title: EVIL, unitPrice: 10, quantity: 1, physical: false }] })).id;
  await api("POST", "/v1/plans", { name: EVIL, price: 10, currency: "BRL", interval: "month" });
  ids.submerchant = (await api("POST", "/v1/submerchants", submerchantBody({ tradeName: EVIL, legalName: EVIL, productDescription: EVIL }))).id;
  const created = await c.post("/panel/developers/webhooks", { url: "http://127.0.0.1:9/hooks", events: "*", description: EVIL });
  assert.equal(created.statusCode, 303, created.body);
  ids.endpoint = String(created.headers.location).split("/").pop()!;
  const events = await api("GET", `/v1/events?type=charge.created&limit=1`) as unknown as { data: { id: string }[] };
  ids.event = events.data[0]!.id;
  // A dispute's evidence: the merchant's text and the names of its files are shown back.
  ids.dispute = (await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 12)).id)).id;
  expectStatus(await sendEvidence(t, m.sandboxKey, ids.dispute, [
    { field: "text", content: EVIL }, { field: "files", filename: "<img src=x onerror=alert(1)>.pdf", contentType: "application/pdf", content: FILES.pdf },
  ]), 200);
});
after(async () => t?.close());

/** No markup from data: the page's one script tag, no img, no handler attribute, no script URL. */
function assertInert(url: string, body: string) {
  // Attribute values are quoted and their quotes escaped, so a handler found after removing them
  // is one that broke out of its attribute.
  const tags = body.replace(/="[^"]*"/g, '=""');
  assert.doesNotMatch(tags, /<[a-z][^>]*\son[a-z]+\s*=/i, `${url}: an event handler attribute`);
  assert.equal(body.match(/<script/gi)?.length ?? 0, 1, `${url}: only the panel's own script`);
  assert.doesNotMatch(body, /<img/i, `${url}: an img from data`);
  assert.doesNotMatch(body, /(?:href|src|action)\s*=\s*["']?\s*javascript:/i, `${url}: a javascript: URL`);
}

test("names, descriptions, metadata and e-mails with markup render inert on every page that shows them", async () => {
  const pages: [string, RegExp[]][] = [
    ["/panel", []],
    ["/panel/charges", []],
    [`/panel/charges/${ids.charge}`, [/o&#39;neil&amp;co@example\.com/]],
    ["/panel/customers", [/o&#39;neil&amp;co@example\.com/]],
    [`/panel/customers/${ids.customer}`, []],
    [`/panel/developers/events/${ids.event}`, [/javascript:alert\(document\.cookie\)/]],
    ["/panel/links", []],
    [`/panel/links/${ids.link}`, []],
    ["/panel/subscriptions", []],
    ["/panel/developers/webhooks", []],
    [`/panel/developers/webhooks/${ids.endpoint}`, []],
    ["/panel/connect", []],
    [`/panel/connect/${ids.submerchant}`, []],
    ["/panel/settings", []],
    ["/panel/disputes", []],
    [`/panel/disputes/${ids.dispute}`, [/<td data-label="Files">&lt;img src=x onerror=alert\(1\)&gt;\.pdf</]],
  ];
  for (const [url, also] of pages) {
    const res = await c.get(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 500)}`);
    assertInert(url, res.body);
    // The merchant's name is in every page's header; each page also shows the data it lists.
    assert.ok(res.body.includes(`Loja ${EVIL_ESCAPED}`), `${url}: the merchant's name, escaped`);
    for (const pattern of also) assert.match(res.body, pattern, url);
  }
  for (const url of [`/panel/charges/${ids.charge}`, "/panel/customers", `/panel/links/${ids.link}`, "/panel/links", "/panel/subscriptions", `/panel/developers/webhooks/${ids.endpoint}`, "/panel/connect", `/panel/connect/${ids.submerchant}`, `/panel/disputes/${ids.dispute}`]) {
    const body = (await c.get(url)).body.replace(`Loja ${EVIL_ESCAPED}`, "");
    assert.ok(body.includes(EVIL_ESCAPED), `${url} shows the data it lists as text`);
  }
});

test("a refused form shows what was typed as text, in its field's value", async () => {
  const res = await c.post("/panel/subscriptions/plans", { name: EVIL, price: BREAK_OUT, currency: "BRL", interval: "month" });
  assert.equal(res.statusCode, 422, res.body);
  assertInert("refused plan form", res.body);
  assert.match(res.body, /id="plan-price" name="price" type="text" value="&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;" aria-describedby="plan-price-error" aria-invalid="true"/);
});

test("a field sent twice or far too long is a page with a message, never a 500", async () => {
  for (const url of [
    "/panel/charges?q=a&q=b", "/panel/charges.csv?q=a&q=b", "/panel/customers?documentId=1&documentId=2", "/panel/customers?email=a&email=b",
    "/panel/subscriptions?search=a&search=b", "/panel/connect?status=a&status=b", "/panel/developers/events?type=a&type=b",
    `/panel/charges?customerId=${"x".repeat(5000)}`,
  ]) {
    const res = await c.get(url);
    assert.ok(res.statusCode < 500, `${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  }
  const long = await c.post("/panel/settings/profile", { name: "x".repeat(5000) });
  assert.equal(long.statusCode, 422, long.body.slice(0, 300));
  assert.match(long.body, /id="profile-name-error">[^<]+</);
  const twice = await c.post(`/panel/charges/${ids.charge}/refund`, { mode: ["partial", "full"], amount: ["1", "2"] });
  assert.ok(twice.statusCode < 500, `${twice.statusCode} ${twice.body.slice(0, 300)}`);
});
