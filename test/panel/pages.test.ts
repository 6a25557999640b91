import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { signIn, type PanelClient } from "./panel-client.js";

// Panel pages over HTTP: each area renders over the same services as the API, and what the
// panel changes is what the API then reads; tenancy and environments hold.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
const api = (method: "GET" | "POST", url: string, key: string, payload?: object) =>
  t.app.inject({ method, url, headers: { authorization: basic(key), ...(payload ? { "idempotency-key": `k-${Math.random()}` } : {}) }, payload });

async function cardCharge(key: string, amount = 100, currency = "BRL") {
  const res = await api("POST", "/v1/charges", key, {
    amount, currency, customer: { name: "Ana <b>Souza</b>", email: `ana${Math.random().toString(16).slice(2)}@example.com`, document: { type: "cpf", id: "529.982.247-25" } },
    paymentMethod: { type: "credit_card", number: "4111111111111111", holderName: "ANA SOUZA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
  });
  expectStatus(res, 201);
  return res.json() as { id: string; customerId: string };
}

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

test("every main page renders for a signed-in merchant", async () => {
  for (const url of ["/panel", "/panel/charges", "/panel/customers", "/panel/developers", "/panel/developers/webhooks", "/panel/developers/events"]) {
    const res = await c.get(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 2000)}`);
    assert.match(res.body, /Sandbox: test data/, `${url} is marked as test data`);
  }
});

test("charges: list, search by id and e-mail, CSV, detail with timeline, partial then full refund", async () => {
  const ch = await cardCharge(m.sandboxKey, 150.5);
  const list = await c.get("/panel/charges?status=paid");
  assert.match(list.body, new RegExp(ch.id));
  assert.match(list.body, /R\$150\.50|R\$ 150\.50|150\.50/);
  const byId = await c.get(`/panel/charges?q=${ch.id}`);
  assert.equal(byId.headers.location, `/panel/charges/${ch.id}`);
  const detail = await c.get(`/panel/charges/${ch.id}`);
  expectStatus(detail, 200);
  assert.match(detail.body, /Ana &lt;b&gt;Souza&lt;\/b&gt;/, "buyer text escaped");
  assert.match(detail.body, /charge\.paid/);
  assert.doesNotMatch(detail.body, /id="refunds-title"/, "no refunds section before any refund");
  const csv = await c.get("/panel/charges.csv?status=paid");
  expectStatus(csv, 200);
  assert.match(String(csv.headers["content-type"]), /text\/csv/);
  assert.match(csv.body, new RegExp(`${ch.id},paid,150.5,0,BRL,credit_card`));

  const bad = await c.post(`/panel/charges/${ch.id}/refund`, { mode: "partial", amount: "abc" });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /aria-invalid="true"/);
  const partial = await c.post(`/panel/charges/${ch.id}/refund`, { mode: "partial", amount: "50,25" });
  assert.equal(partial.statusCode, 303, partial.body);
  const after1 = await api("GET", `/v1/charges/${ch.id}`, m.sandboxKey);
  assert.equal(after1.json().amountRefunded, 50.25);
  const full = await c.post(`/panel/charges/${ch.id}/refund`, { mode: "full" });
  assert.equal(full.statusCode, 303, full.body);
  assert.equal((await api("GET", `/v1/charges/${ch.id}`, m.sandboxKey)).json().status, "refunded");
  const shown = await c.get(`/panel/charges/${ch.id}`);
  assert.match(shown.body, /Refunded/);
  // Both refunds, newest first, with their amounts and status (GET /v1/charges/{id}/refunds).
  const refunds = (await api("GET", `/v1/charges/${ch.id}/refunds`, m.sandboxKey)).json().data as { id: string }[];
  const section = shown.body.slice(shown.body.indexOf('id="refunds-title"'));
  const rows = [...section.matchAll(/<tr><td[^>]*>(re_[0-9a-z]+)<\/td><td[^>]*>([^<]+)<\/td><td[^>]*><span class="badge s-(\w+)">/g)].map((r) => [r[1], r[2], r[3]]);
  assert.deepEqual(rows.map((r) => r[0]), refunds.map((r) => r.id));
  assert.deepEqual(rows.map((r) => r[2]), ["succeeded", "succeeded"]);
  assert.match(rows[1]![1]!, /50[.,]25/);
});

test("webhook endpoint: created with an event filter, secret shown once and not after a reload", async () => {
  const bad = await c.post("/panel/developers/webhooks", { url: "not a url", events: "*" });
  assert.equal(bad.statusCode, 422);
  const res = await c.post("/panel/developers/webhooks", { url: "http://127.0.0.1:9/hooks", events: ["charge.paid", "charge.refunded"], description: "<i>orders</i>" });
  assert.equal(res.statusCode, 303, res.body);
  const page = await c.get(String(res.headers.location));
  const secret = /(whsec_[A-Za-z0-9+/=]+)/.exec(page.body)?.[1];
  assert.ok(secret, "secret shown on the page after creation");
  assert.match(page.body, /&lt;i&gt;orders&lt;\/i&gt;/);
  const again = await c.get(String(res.headers.location));
  assert.doesNotMatch(again.body, /whsec_/, "not after a reload");
  const listed = await api("GET", "/v1/webhook-endpoints", m.sandboxKey);
  assert.deepEqual(listed.json().data[0].events, ["charge.paid", "charge.refunded"]);
  const id = listed.json().data[0].id;
  expectStatus(await c.get(`/panel/developers/webhooks/${id}`), 200);
  assert.equal((await c.post(`/panel/developers/webhooks/${id}/disable`, {})).statusCode, 303);
  assert.equal((await api("GET", `/v1/webhook-endpoints/${id}`, m.sandboxKey)).json().enabled, false);
  const rotated = await c.post(`/panel/developers/webhooks/${id}/rotate`, {});
  const after2 = await c.get(String(rotated.headers.location));
  assert.match(after2.body, /whsec_/);
  assert.notEqual(/(whsec_[A-Za-z0-9+/=]+)/.exec(after2.body)?.[1], secret);
});

test("API keys are masked; rolling the shown environment's key shows the new one once and leaves the other environment's key working", async () => {
  const s = await seedMerchant(t);
  const sc = await signIn(t, s.email, s.password);
  const page = await sc.get("/panel/developers");
  assert.ok(!page.body.includes(s.sandboxKey), "full key never rendered");
  assert.ok(page.body.includes(s.sandboxKey.slice(-4)));
  const unconfirmed = await sc.post("/panel/developers/keys/roll", {});
  assert.equal(unconfirmed.statusCode, 303);
  assert.equal((await api("GET", "/v1/customers", s.sandboxKey)).statusCode, 200, "not rolled without confirmation");
  const rolled = await sc.post("/panel/developers/keys/roll", { confirm: "on" });
  const shown = await sc.get(String(rolled.headers.location));
  const fresh = /(sk_test_[A-Za-z0-9]+)/.exec(shown.body)?.[1];
  assert.ok(fresh);
  assert.equal((await api("GET", "/v1/customers", s.sandboxKey)).statusCode, 401);
  assert.equal((await api("GET", "/v1/customers", fresh)).statusCode, 200);
  assert.doesNotMatch(shown.body, /sk_live_/, "a sandbox roll makes no production key");
  assert.equal((await api("GET", "/v1/customers", s.productionKey)).statusCode, 200, "the production key keeps working");
  assert.doesNotMatch((await sc.get("/panel/developers")).body, new RegExp(fresh));
  // Switched to production, the roll makes a production key and leaves the new sandbox key alone.
  await sc.post("/panel/environment", { environment: "production", back: "/panel/developers" });
  const rolledLive = await sc.post("/panel/developers/keys/roll", { confirm: "on" });
  const shownLive = await sc.get(String(rolledLive.headers.location));
  const live = /(sk_live_[A-Za-z0-9]+)/.exec(shownLive.body)?.[1];
  assert.ok(live);
  assert.doesNotMatch(shownLive.body, /sk_test_[A-Za-z0-9]{8}/, "no sandbox key shown");
  assert.equal((await api("GET", "/v1/customers", s.productionKey)).statusCode, 401);
  assert.equal((await api("GET", "/v1/customers", live)).statusCode, 200);
  assert.equal((await api("GET", "/v1/customers", fresh)).statusCode, 200);
});

test("another merchant's charge is not found; production does not show sandbox data until switched", async () => {
  const other = await seedMerchant(t);
  const theirs = await cardCharge(other.sandboxKey);
  assert.equal((await c.get(`/panel/charges/${theirs.id}`)).statusCode, 404);
  const mine = await cardCharge(m.sandboxKey);
  const sw = await c.post("/panel/environment", { environment: "production", back: "/panel/charges" });
  assert.equal(sw.headers.location, "/panel/charges");
  const prod = await c.get("/panel/charges");
  assert.doesNotMatch(prod.body, new RegExp(mine.id));
  assert.doesNotMatch(prod.body, /Sandbox: test data/);
  assert.equal((await c.get(`/panel/charges/${mine.id}`)).statusCode, 404);
  await c.post("/panel/environment", { environment: "sandbox", back: "/panel/charges" });
  assert.match((await c.get("/panel/charges")).body, new RegExp(mine.id));
});

test("Portuguese from Accept-Language or the switch", async () => {
  const pt = await c.get("/panel/charges", { "accept-language": "pt-BR,pt;q=0.9,en;q=0.5" });
  assert.match(pt.body, /<html lang="pt-BR">/);
  assert.match(pt.body, /Cobranças/);
  await c.post("/panel/language", { lang: "en", back: "/panel" });
  assert.match((await c.get("/panel/charges", { "accept-language": "pt-BR" })).body, /<html lang="en">/);
  await c.post("/panel/language", { lang: "pt-BR", back: "/panel" });
  const bad = await c.post("/panel/developers/webhooks", { url: "", events: "*" });
  assert.match(bad.body, /Obrigatório|Informe/);
  await c.post("/panel/language", { lang: "en", back: "/panel" });
});

test("every other area renders: connect, subscriptions, links, shipping, settings", async () => {
  for (const url of ["/panel/connect", "/panel/connect/payouts", "/panel/subscriptions", "/panel/links", "/panel/shipping", "/panel/settings"]) {
    const res = await c.get(url);
    assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 3000)}`);
  }
});

test("connect: register a submerchant (errors by field), upload its documents, a payout request is refused while pending", async () => {
  const bad = await c.post("/panel/connect", { tradeName: "Padaria", legalName: "Padaria LTDA", companyTaxId: "11.222.333/0001-00", contactEmail: "x@example.com", website: "https://padaria.example.com", productType: "physical", productDescription: "Pães", averageMonthlyRevenue: "50.000,00", averageOrderValue: "35,50" });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="sm-companyTaxId-error">[^<]*CNPJ/);
  const ok = await c.post("/panel/connect", { tradeName: "Padaria <Aurora>", legalName: "Aurora Alimentos LTDA", companyTaxId: "11.222.333/0001-81", contactEmail: "fin@aurora.example.com", website: "https://aurora.example.com", productType: "physical", productDescription: "Pães", averageMonthlyRevenue: "50.000,00", averageOrderValue: "35,50" });
  assert.equal(ok.statusCode, 303, ok.body);
  const id = String(ok.headers.location).split("/").pop()!;
  const page = await c.get(`/panel/connect/${id}`);
  assert.match(page.body, /Padaria &lt;Aurora&gt;|Aurora Alimentos LTDA/);
  const boundary = "----feira" + Math.random().toString(16).slice(2);
  const pdf = Buffer.from("%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\n%%EOF\n");
  const parts: Buffer[] = [Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${c.csrf}\r\n`)];
  for (const kind of ["cnpj_card", "social_contract", "responsible_document_front", "responsible_document_back", "selfie_with_document"]) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${kind}"; filename="${kind}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`), pdf, Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const up = await t.app.inject({ method: "POST", url: `/panel/connect/${id}/documents`, payload: Buffer.concat(parts), headers: { "content-type": `multipart/form-data; boundary=${boundary}`, cookie: [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; "), origin: "http://localhost:3000" } });
  assert.equal(up.statusCode, 303, up.body);
  const docs = await api("GET", `/v1/submerchants/${id}/documents`, m.sandboxKey);
  assert.equal(docs.json().complete, true);
  const payout = await c.post(`/panel/connect/${id}/payouts`, { amount: "10,00" });
  assert.equal(payout.statusCode, 422);
  assert.match(payout.body, /not active/);
});

test("subscriptions: create a plan (errors by field), archive it; links: create with products and see URL and QR code", async () => {
  const bad = await c.post("/panel/subscriptions/plans", { name: "", price: "x", currency: "BRL", interval: "month" });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /id="plan-name-error"/);
  const ok = await c.post("/panel/subscriptions/plans", { name: "Pro <mensal>", price: "29,90", currency: "brl", interval: "month", intervalCount: "1", trialDays: "0" });
  assert.equal(ok.statusCode, 303, ok.body);
  const plans = await api("GET", "/v1/plans", m.sandboxKey);
  assert.equal(plans.json().data[0].price, 29.9);
  assert.match((await c.get("/panel/subscriptions")).body, /Pro &lt;mensal&gt;/);

  const link = await c.post("/panel/links", { title: "Camiseta", currency: "JPY", freightMode: "free", "products.0.title": "Camiseta azul", "products.0.unitPrice": "1500", "products.0.quantity": "1" });
  assert.equal(link.statusCode, 303, link.body);
  const detail = await c.get(String(link.headers.location));
  assert.match(detail.body, /<svg[^>]*>/);
  assert.match(detail.body, /\/pay\/pl_/);
  assert.match(detail.body, /¥1,500/);
});

test("settings: the default split is checked by the same rules as the API", async () => {
  const bad = await c.post("/panel/settings/split", { "defaultSplit.0.merchantId": "sm_nobody", "defaultSplit.0.percentage": "10" });
  assert.equal(bad.statusCode, 422);
  assert.match(bad.body, /class="error"/);
  const ok = await c.post("/panel/settings/split", {});
  assert.equal(ok.statusCode, 303, ok.body);
});
