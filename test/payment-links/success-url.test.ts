import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

// A payment link's successUrl follows the rules of every URL a merchant gives (webhook
// endpoints, postback URLs): in production https and no loopback, private, link-local or
// metadata host, in any spelling; link-local and metadata are refused in sandbox too. feira never
// requests it (the buyer's browser does), so its name is not resolved: these run without DNS.

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  // As deployed: merchant URLs held to the production rules (the test default lifts them).
  t = await buildTestApp({ webhookAllowPrivateUrls: false });
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const link = (successUrl?: string) => ({
  title: "E-book", currency: "BRL", freightMode: "free",
  products: [{ title: "Guia", unitPrice: 25, quantity: 1, physical: false }],
  ...(successUrl === undefined ? {} : { successUrl }),
});
const send = (key: string, method: "POST" | "PATCH", url: string, payload: unknown) =>
  t.app.inject({ method, url, headers: { authorization: basic(key) }, payload: payload as Record<string, unknown> });

const internal = [
  "https://127.0.0.1/obrigado",
  "https://127.1/obrigado",
  "https://2130706433/obrigado",
  "https://[::1]/obrigado",
  "https://10.0.0.5/obrigado",
  "https://192.168.0.10:8443/obrigado",
  "https://[fd00::1]/obrigado",
  "https://localhost/obrigado",
  "https://loja.localhost/obrigado",
  "https://intranet/obrigado",
  "https://loja.internal/obrigado",
];
const never = [
  "https://169.254.169.254/latest/meta-data/",
  "https://2852039166/",
  "https://0xa9.0xfe.0xa9.0xfe/",
  "https://[::ffff:a9fe:a9fe]/",
  "https://[fd00:ec2::254]/",
  "https://metadata.google.internal/",
];

test("production: loopback, private, local-name, link-local and metadata hosts are 422 naming successUrl, and nothing is created", async () => {
  for (const url of [...internal, ...never]) {
    const res = await send(m.productionKey, "POST", "/v1/payment-links", link(url));
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    assert.equal(res.json().code, "validation_failed");
    assert.match(res.json().message, /^successUrl must not point to a (loopback|link-local)/, url);
  }
  const http = await send(m.productionKey, "POST", "/v1/payment-links", link("http://loja.example.com/obrigado"));
  assert.equal(http.statusCode, 422, http.body);
  assert.equal(http.json().message, "successUrl must use https");
  const list = await t.app.inject({ url: "/v1/payment-links?limit=100", headers: { authorization: basic(m.productionKey) } });
  expectStatus(list, 200);
  assert.equal(list.json().data.length, 0);
});

test("production: a public https URL is accepted without any lookup, and an update is held to the same rules", async () => {
  // A name under .example cannot resolve: accepted all the same, since feira never requests it.
  const created = await send(m.productionKey, "POST", "/v1/payment-links", link("https://loja.example/obrigado?pedido=1"));
  expectStatus(created, 201);
  assert.equal(created.json().successUrl, "https://loja.example/obrigado?pedido=1");
  const id = created.json().id as string;
  for (const url of ["https://127.0.0.1/", "https://169.254.169.254/"]) {
    const res = await send(m.productionKey, "PATCH", `/v1/payment-links/${id}`, { successUrl: url });
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.json().message, /^successUrl /);
  }
  const ok = await send(m.productionKey, "PATCH", `/v1/payment-links/${id}`, { successUrl: "https://93.184.215.14/obrigado" });
  expectStatus(ok, 200);
  assert.equal(ok.json().successUrl, "https://93.184.215.14/obrigado");
});

test("sandbox: a developer's own machine is allowed, link-local and metadata hosts are not", async () => {
  for (const url of ["http://localhost:5173/obrigado", "http://127.0.0.1:3000/ok", "https://loja.example/ok"]) {
    expectStatus(await send(m.sandboxKey, "POST", "/v1/payment-links", link(url)), 201);
  }
  for (const url of never) {
    const res = await send(m.sandboxKey, "POST", "/v1/payment-links", link(url));
    assert.equal(res.statusCode, 422, `${url}: ${res.body}`);
    assert.equal(res.json().message, "successUrl must not point to a link-local or cloud metadata address");
  }
});
