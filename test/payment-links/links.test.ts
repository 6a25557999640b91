import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, expectStatus, seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { address, buyer, call, card, checkoutLink, connectMerchant, login, shippingWorld, type ShippingWorld } from "../helpers/shipping.js";

let w: ShippingWorld;
let m: SeededMerchant;
let key: string;
before(async () => {
  // Merchant URLs held to the production rules, as deployed (the test default lifts them).
  w = await shippingWorld({}, { webhookAllowPrivateUrls: false });
  m = (await connectMerchant(w)).merchant;
  key = basic(m.sandboxKey);
});
after(async () => { await w.close(); });

const createLink = async (body: Record<string, unknown> = checkoutLink(), auth = key) => {
  const res = await call(w.t, auth, "POST", "/v1/payment-links", body);
  expectStatus(res, 201);
  return res.json();
};
const calculates = () => w.fake.calls.calculate ?? 0;

test("create, get, list, patch and deactivate a link; a deactivated link takes no payment", async () => {
  const link = await createLink();
  assert.match(link.id, /^pl_/);
  assert.equal(link.url, `${w.t.config.publicBaseUrl}/pay/${link.id}`);
  assert.equal(link.subtotal, 119.8);
  assert.equal(link.products[0].id, "item_1");
  expectStatus(await call(w.t, key, "GET", `/v1/payment-links/${link.id}`), 200);
  const list = await call(w.t, key, "GET", "/v1/payment-links?limit=1");
  expectStatus(list, 200);
  assert.equal(list.json().data[0].id, link.id);
  const patched = await call(w.t, key, "PATCH", `/v1/payment-links/${link.id}`, { title: "Nova caneca", freightMode: "fixed", fixedFreightAmount: 15 });
  expectStatus(patched, 200);
  assert.equal(patched.json().fixedFreightAmount, 15);
  const gone = await call(w.t, key, "DELETE", `/v1/payment-links/${link.id}`);
  expectStatus(gone, 200);
  assert.equal(gone.json().active, false);
  assert.equal((await call(w.t, undefined, "GET", `/v1/payment-links/${link.id}/public`)).statusCode, 404);
  const pay = await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/charge`, { customer: buyer, paymentMethod: { type: "pix" }, shippingAddress: address });
  assert.equal(pay.statusCode, 404, pay.body);
  const page = await w.t.app.inject({ method: "GET", url: `/pay/${link.id}` });
  assert.equal(page.statusCode, 404);
  assert.match(page.body, /Link de pagamento indisponível/);
});

test("link rules: measures in checkout mode, BRL, fixed amount only with fixed, https successUrl in production, future expiry", async () => {
  const bad: [Record<string, unknown>, RegExp][] = [
    [checkoutLink({ products: [{ title: "x", unitPrice: 10, quantity: 1, physical: true, width: 1, height: 1 }] }), /length, weight are required/],
    [checkoutLink({ currency: "USD" }), /BRL/],
    [checkoutLink({ products: [{ title: "ebook", unitPrice: 10, quantity: 1, physical: false }] }), /physical product/],
    [checkoutLink({ fixedFreightAmount: 10 }), /fixedFreightAmount is only/],
    [checkoutLink({ freightMode: "fixed" }), /fixedFreightAmount is required/],
    [checkoutLink({ successUrl: "javascript:alert(1)" }), /successUrl/],
    [checkoutLink({ expiresAt: "2001-01-01T00:00:00Z" }), /future/],
    [checkoutLink({ products: [{ title: "x", unitPrice: 10.001, quantity: 1, physical: false }] }), /unitPrice/],
  ];
  for (const [body, message] of bad) {
    const res = await call(w.t, key, "POST", "/v1/payment-links", body);
    assert.equal(res.statusCode, 422, res.body);
    assert.match(res.json().message, message);
  }
  const prod = await call(w.t, basic(m.productionKey), "POST", "/v1/payment-links", checkoutLink({ successUrl: "http://shop.example.com/ok" }));
  assert.equal(prod.statusCode, 422);
  assert.match(prod.json().message, /https/);
});

test("public view: what a buyer needs and nothing else; a title with <script> renders as text", async () => {
  const link = await createLink(checkoutLink({ title: "<script>alert(1)</script>", successUrl: "https://shop.example.com/ok" }));
  const res = await call(w.t, undefined, "GET", `/v1/payment-links/${link.id}/public`);
  expectStatus(res, 200);
  const pub = res.json();
  assert.deepEqual(Object.keys(pub).sort(), ["currency", "description", "fixedFreightAmount", "freightMode", "id", "livemode", "merchant", "products", "subtotal", "title"]);
  assert.deepEqual(Object.keys(pub.products[0]).sort(), ["id", "physical", "quantity", "title", "unitPrice"]);
  assert.ok(!res.body.includes(m.id) && !res.body.includes("successUrl") && !res.body.includes("insurance_value") && !res.body.includes("custom_price"));
  const page = await w.t.app.inject({ method: "GET", url: `/pay/${link.id}` });
  expectStatus(page, 200);
  assert.equal(page.headers["content-type"], "text/html; charset=utf-8");
  assert.ok(!page.body.includes("<script>alert(1)"), "the title is escaped");
  assert.ok(page.body.includes("&lt;script&gt;alert(1)&lt;/script&gt;"));
  const csp = String(page.headers["content-security-policy"]);
  assert.match(csp, /script-src 'self'/);
  assert.ok(!csp.includes("unsafe-inline"));
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal((page.body.match(/<script/g) ?? []).length, 1, "one same-origin script, no inline code");
  assert.match(page.body, /<script src="\/pay\/assets\/checkout.js" defer><\/script>/);
  assert.ok(!/https?:\/\/(?!shop\.example\.com)/.test(page.body.replace(/data-success-url="[^"]*"/, "")), "no third-party assets");
  const js = await w.t.app.inject({ method: "GET", url: "/pay/assets/checkout.js" });
  expectStatus(js, 200);
  assert.match(String(js.headers["content-type"]), /javascript/);
});

test("quote: enabled services only, errored entries dropped, postal codes as digits, cached in the database", async () => {
  const link = await createLink();
  const start = calculates();
  const res = await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/freight/quote`, { postalCode: "20040-020" });
  expectStatus(res, 200);
  const options = res.json().options;
  // Enabled: 1, 2, 17; the fake also offers 3 (not enabled) and refuses 17 for 0.8 kg.
  assert.deepEqual(options.map((o: { serviceId: number }) => o.serviceId), [1, 2]);
  assert.deepEqual(options[0], { serviceId: 1, name: "PAC", company: "Correios", price: 21.8, deliveryTime: 6, currency: "BRL" });
  const sent = w.fake.last.calculateBody as { from: { postal_code: string }; to: { postal_code: string }; services: string };
  assert.equal(sent.from.postal_code, "01310100");
  assert.equal(sent.to.postal_code, "20040020");
  assert.equal(sent.services, "1,2,17");
  assert.match(String(w.fake.last.authorization), /^Bearer /);
  assert.equal(calculates() - start, 1);
  // The same link, CEP (in either spelling) and items: from the cache, no provider call.
  expectStatus(await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/freight/quote`, { postalCode: "20040020" }), 200);
  assert.equal(calculates() - start, 1, "a repeated quote is a cache hit");
  const rows = (await w.t.database.db.execute(`select count(*)::int as n from freight_quotes` as never) as unknown as { rows: { n: number }[] }).rows;
  assert.ok(rows[0]!.n >= 1, "the cache lives in the database");
  // Other items: another quote.
  expectStatus(await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/freight/quote`, { postalCode: "20040020", items: [{ productId: "item_1", quantity: 1 }] }), 200);
  assert.equal(calculates() - start, 2);
});

test("quote errors: bad CEP 422, not checkout mode 409, unknown link 404, provider down 503", async () => {
  const link = await createLink();
  for (const cep of ["2004002", "abcde-fgh", ""]) {
    assert.equal((await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/freight/quote`, { postalCode: cep })).statusCode, 422);
  }
  const fixed = await createLink(checkoutLink({ freightMode: "fixed", fixedFreightAmount: 12.5 }));
  assert.equal((await call(w.t, undefined, "POST", `/v1/payment-links/${fixed.id}/freight/quote`, { postalCode: "20040020" })).statusCode, 409);
  assert.equal((await call(w.t, undefined, "POST", "/v1/payment-links/pl_nope/freight/quote", { postalCode: "20040020" })).statusCode, 404);
  w.fake.failNext(502);
  const down = await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/freight/quote`, { postalCode: "69005-000" });
  assert.equal(down.statusCode, 503);
  assert.ok(!down.body.includes("Server Error"));
});

test("charge with live freight: re-quoted by the server, stored on the charge, listed under the link", async () => {
  const link = await createLink();
  const res = await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/charge`, {
    customer: buyer, paymentMethod: card(), shippingAddress: address, freightServiceId: 2, installments: 3,
  }, { "idempotency-key": "buy-1" });
  expectStatus(res, 201);
  const created = res.json();
  assert.equal(created.status, "paid");
  assert.equal(created.freightAmount, 38.0);
  assert.equal(created.amount, 157.8);
  const charge = (await call(w.t, key, "GET", `/v1/charges/${created.id}`)).json();
  assert.equal(charge.amount, 157.8);
  assert.equal(charge.freight_amount, 38);
  assert.deepEqual(charge.freight_details, { serviceId: 2, provider: "melhor_envio", serviceName: "SEDEX", company: "Correios", price: 38, deliveryTime: 2 });
  assert.equal(charge.paymentMethod.installments, 3);
  assert.equal(charge.paymentLinkId, link.id);
  assert.equal(charge.livemode, false);
  // The same Idempotency-Key and body: the same answer, no second charge.
  const again = await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/charge`, {
    customer: buyer, paymentMethod: card(), shippingAddress: address, freightServiceId: 2, installments: 3,
  }, { "idempotency-key": "buy-1" });
  assert.equal(again.json().id, created.id);
  const payments = await call(w.t, key, "GET", `/v1/payment-links/${link.id}/payments`);
  expectStatus(payments, 200);
  assert.deepEqual(payments.json().data.map((c: { id: string }) => c.id), [created.id]);
});

test("charge refusals: service not enabled or not offered, tampered fields, bad CPF, missing address; nothing charged", async () => {
  const link = await createLink();
  const base = { customer: buyer, paymentMethod: { type: "pix" }, shippingAddress: address, freightServiceId: 1 };
  const cases: [Record<string, unknown>, number, RegExp][] = [
    [{ ...base, freightServiceId: 3 }, 422, /not offered/], // offered by the provider, not enabled
    [{ ...base, freightServiceId: 17 }, 422, /not offered/], // enabled, but the provider refused it for this cart
    [{ ...base, freight_amount: 0 }, 422, /set by the server/],
    [{ ...base, freightDetails: {} }, 422, /set by the server/],
    [{ ...base, customer: { ...buyer, document: { type: "cpf", id: "111.111.111-12" } } }, 422, /CPF/],
    [{ ...base, shippingAddress: undefined }, 422, /shippingAddress/],
    [{ ...base, freightServiceId: undefined }, 422, /freightServiceId/],
    [{ ...base, paymentMethod: card("4111111111111112") }, 422, /number/],
    [{ ...base, installments: 2 }, 422, /installments/],
  ];
  const before = calculates();
  for (const [body, status, message] of cases) {
    const res = await call(w.t, undefined, "POST", `/v1/payment-links/${link.id}/charge`, body);
    assert.equal(res.statusCode, status, res.body);
    assert.match(res.json().message, message);
  }
  assert.ok(calculates() - before <= 1, "refusals before the quote never reach the provider");
  assert.equal((await call(w.t, key, "GET", `/v1/payment-links/${link.id}/payments`)).json().data.length, 0);
});

test("fixed, free and pickup freight; sandbox links make sandbox charges; Pix via the status poll", async () => {
  const fixed = await createLink(checkoutLink({ freightMode: "fixed", fixedFreightAmount: 12.5 }));
  const r1 = await call(w.t, undefined, "POST", `/v1/payment-links/${fixed.id}/charge`, { customer: buyer, paymentMethod: { type: "pix" }, shippingAddress: address });
  expectStatus(r1, 201);
  assert.equal(r1.json().amount, 132.3);
  assert.equal(r1.json().status, "pending");
  assert.match(r1.json().paymentDetails.qrCode, /^000201/);
  const poll = `/v1/payment-links/${fixed.id}/charges/${r1.json().id}/status`;
  assert.deepEqual((await call(w.t, undefined, "GET", poll)).json(), { id: r1.json().id, status: "pending", paid: false });
  expectStatus(await call(w.t, key, "POST", `/v1/sandbox/charges/${r1.json().id}/pay`), 200);
  assert.equal((await call(w.t, undefined, "GET", poll)).json().paid, true);
  // Another link's poll does not see it.
  const free = await createLink(checkoutLink({ freightMode: "free" }));
  assert.equal((await call(w.t, undefined, "GET", `/v1/payment-links/${free.id}/charges/${r1.json().id}/status`)).statusCode, 404);
  const r2 = await call(w.t, undefined, "POST", `/v1/payment-links/${free.id}/charge`, { customer: buyer, paymentMethod: { type: "boleto" }, shippingAddress: address });
  expectStatus(r2, 201);
  assert.equal(r2.json().amount, 119.8);
  assert.ok(r2.json().paymentDetails.digitableLine);
  const pickup = await createLink(checkoutLink({ freightMode: "pickup" }));
  const r3 = await call(w.t, undefined, "POST", `/v1/payment-links/${pickup.id}/charge`, { customer: buyer, paymentMethod: card() });
  expectStatus(r3, 201);
  assert.equal(r3.json().freightAmount, 0);
  const c3 = (await call(w.t, key, "GET", `/v1/charges/${r3.json().id}`)).json();
  assert.equal(c3.freight_amount, null);
});

test("disconnect: new quotes fail with a clear 4xx, fixed-freight links keep working", async () => {
  const w2 = await connectMerchant(w);
  const k = basic(w2.merchant.sandboxKey);
  const live = await createLink(checkoutLink(), k);
  const fixed = await createLink(checkoutLink({ freightMode: "fixed", fixedFreightAmount: 10 }), k);
  assert.equal((await call(w.t, w2.jwt, "DELETE", "/v1/shipping-provider")).statusCode, 204);
  const q = await call(w.t, undefined, "POST", `/v1/payment-links/${live.id}/freight/quote`, { postalCode: "20040020" });
  assert.equal(q.statusCode, 409);
  assert.match(q.json().message, /inactive/);
  const pay = await call(w.t, undefined, "POST", `/v1/payment-links/${fixed.id}/charge`, { customer: buyer, paymentMethod: card(), shippingAddress: address });
  expectStatus(pay, 201);
  assert.equal(pay.json().status, "paid");
});

test("isolation: another merchant or environment gets 404; no or bad credentials 401", async () => {
  const link = await createLink();
  const other = await seedMerchant(w.t);
  const paths: [string, string, unknown?][] = [
    ["GET", `/v1/payment-links/${link.id}`], ["PATCH", `/v1/payment-links/${link.id}`, { title: "x" }],
    ["DELETE", `/v1/payment-links/${link.id}`], ["GET", `/v1/payment-links/${link.id}/payments`],
  ];
  for (const [method, url, payload] of paths) {
    for (const auth of [basic(other.sandboxKey), basic(m.productionKey), await login(w.t, other)]) {
      assert.equal((await call(w.t, auth, method as never, url, payload)).statusCode, 404, `${method} ${url}`);
    }
    for (const auth of [undefined, basic("sk_test_nope"), "Bearer bad"]) {
      assert.equal((await call(w.t, auth, method as never, url, payload)).statusCode, 401, `${method} ${url}`);
    }
  }
  assert.equal((await call(w.t, undefined, "POST", "/v1/payment-links", checkoutLink())).statusCode, 401);
  assert.equal((await call(w.t, basic(other.sandboxKey), "GET", "/v1/payment-links")).json().data.length, 0);
  // A production link makes production charges, which the sandbox simulator never serves.
  const prodLink = await createLink(checkoutLink({ freightMode: "free" }), basic(m.productionKey));
  assert.equal(prodLink.livemode, true);
  const prodPay = await call(w.t, undefined, "POST", `/v1/payment-links/${prodLink.id}/charge`, { customer: buyer, paymentMethod: card(), shippingAddress: address });
  assert.equal(prodPay.statusCode, 422);
  assert.match(prodPay.json().message, /PAYMENT_PROCESSOR/);
});
