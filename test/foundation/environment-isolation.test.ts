import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { basic, buildTestApp, expectStatus, type TestApp } from "../helpers/app.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { CARDS, cardCharge, customer } from "../helpers/charges.js";
import { activate, admin, createSubmerchant, FEES, keyOf, multipart, REQUIRED_FILES, seedMaster } from "../connect/helpers.js";

// The environment isolation matrix: one master merchant with objects of every kind in sandbox
// and in production; every route of /openapi.json that names an object by id is asked for each
// environment's objects with the other environment's key, and every list is read with each key.
// Expected: 404 for every id of the other environment, and no id of it in any list. A route
// added to the API without a line here fails the coverage test, so the matrix stays complete.

type Env = "sandbox" | "production";
const ENVS: Env[] = ["sandbox", "production"];
const KEY = /sk_(test|live)_[A-Za-z0-9]{16,}/;
const other = (e: Env): Env => (e === "sandbox" ? "production" : "sandbox");

let t: TestApp;
let pagarme: FakePagarme;
const keys = {} as Record<Env, string>;
const submerchantKeys = {} as Record<Env, string>;
/** Ids of each environment's objects, by the route parameter that names them. */
const ids = {} as Record<Env, Record<string, string>>;

function send(method: string, url: string, key: string, payload?: unknown): Promise<LightMyRequestResponse> {
  const isMultipart = payload instanceof Object && "multipart" in payload;
  if (isMultipart) {
    const body = multipart(REQUIRED_FILES);
    return t.app.inject({ method: "POST", url, payload: body.payload, headers: { ...body.headers, authorization: basic(key) } });
  }
  return t.app.inject({
    method: method as "GET", url, headers: { authorization: basic(key) },
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
  });
}

async function created(res: LightMyRequestResponse): Promise<string> {
  expectStatus(res, 201);
  return res.json().id as string;
}

before(async () => {
  // Production cards go to the local fake of Pagar.me, so both environments hold charges and
  // subscriptions (the fake's approved test card is 4000000000000010).
  pagarme = await startFakePagarme();
  t = await buildTestApp({
    live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url } }, timeoutMs: 5_000 },
  });
  const master = await seedMaster(t, FEES);
  keys.sandbox = master.sandboxKey;
  keys.production = master.productionKey;
  for (const env of ENVS) {
    const key = keys[env];
    const o: Record<string, string> = {};
    o.customer = await created(await send("POST", "/v1/customers", key, { name: `Maria ${env}`, email: `maria-${env}@example.com`, documentId: "529.982.247-25", documentType: "cpf" }));
    o.card = await created(await send("POST", `/v1/customers/${o.customer}/cards`, key, { number: CARDS.visa, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035" }));
    o.endpoint = await created(await send("POST", "/v1/webhook-endpoints", key, { url: `https://127.0.0.1:9/hooks/${env}` }));
    o.plan = await created(await send("POST", "/v1/plans", key, { name: `Plano ${env}`, price: 29.9, currency: "BRL", interval: "month", trialDays: 7 }));
    o.link = await created(await send("POST", "/v1/payment-links", key, {
      title: `Link ${env}`, currency: "BRL", freightMode: "free", products: [{ title: "Caneca", unitPrice: 30, quantity: 1, physical: false }],
    }));
    const sm = await createSubmerchant(t, key);
    o.submerchant = sm.id;
    await activate(t, key, sm.id);
    submerchantKeys[env] = await keyOf(t, key, sm.id);
    const documents = await send("GET", `/v1/submerchants/${sm.id}/documents`, key);
    expectStatus(documents, 200);
    o.document = documents.json().documents[0].id;
    // The submerchant's accreditation was notified: an event of its environment.
    const events = await send("GET", "/v1/events?limit=1", submerchantKeys[env]);
    expectStatus(events, 200);
    o.event = events.json().data[0]?.id;
    assert.ok(o.event, `an event in ${env}: ${events.body}`);
    ids[env] = o;
  }
  for (const env of ENVS) {
    const o = ids[env];
    o.subscription = await created(await send("POST", "/v1/subscriptions", keys[env], { planId: o.plan, customer: { id: o.customer }, paymentMethod: { type: "credit_card", cardId: o.card } }));
    const number = env === "sandbox" ? CARDS.visa : "4000000000000010";
    o.charge = await created(await send("POST", "/v1/charges", submerchantKeys[env], cardCharge(number, { customer })));
  }
  // Payouts need an available balance, which only the sandbox settles on request: the sandbox
  // payout is asked for with the production key below.
  const sandbox = ids.sandbox;
  expectStatus(await send("POST", "/v1/sandbox/settle", submerchantKeys.sandbox), 200);
  sandbox.payout = await created(await send("POST", `/v1/submerchants/${sandbox.submerchant}/payout-requests`, submerchantKeys.sandbox, { amount: 1000 }));
  // Disputes open in production only from a provider's notice: the sandbox opens one on request.
  sandbox.dispute = await created(await send("POST", `/v1/sandbox/charges/${sandbox.charge}/dispute`, submerchantKeys.sandbox, {}));
  // A Pix Automático mandate: production refuses the sign-up until a processor offers mandates.
  const pixAuto = await send("POST", "/v1/subscriptions", keys.sandbox, { planId: sandbox.plan, customer: { id: sandbox.customer }, paymentMethod: { type: "pix_automatico" } });
  expectStatus(pixAuto, 201);
  sandbox.mandate = pixAuto.json().mandate.id;
});
after(async () => { await t?.close(); await pagarme?.close(); });

interface Probe { method: string; path: string; body?: unknown; by?: "master" | "submerchant" }

/** Every route that names an object, with a body valid enough to reach the lookup. */
const PROBES: Probe[] = [
  { method: "GET", path: "/v1/customers/{id}" },
  { method: "POST", path: "/v1/customers/{id}", body: { name: "Other" } },
  { method: "PATCH", path: "/v1/customers/{id}", body: { name: "Other" } },
  { method: "DELETE", path: "/v1/customers/{id}" },
  { method: "POST", path: "/v1/customers/{id}/cards", body: { number: CARDS.visa, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2035" } },
  { method: "GET", path: "/v1/customers/{id}/cards" },
  { method: "GET", path: "/v1/customers/{id}/cards/{cardId}" },
  { method: "DELETE", path: "/v1/customers/{id}/cards/{cardId}" },
  { method: "GET", path: "/v1/charges/{id}" },
  { method: "POST", path: "/v1/charges/{id}/refund", body: {} },
  { method: "GET", path: "/v1/charges/{id}/refunds" },
  { method: "POST", path: "/v1/charges/{id}/resend-webhook", body: { status: "paid" } },
  { method: "POST", path: "/v1/charges/{id}/release", body: {} },
  { method: "POST", path: "/v1/sandbox/charges/{id}/pay" },
  { method: "POST", path: "/v1/sandbox/charges/{id}/expire" },
  { method: "POST", path: "/v1/sandbox/charges/{id}/authenticate", body: { result: "succeeded" } },
  { method: "POST", path: "/v1/sandbox/charges/{id}/review", body: { result: "approved" } },
  { method: "GET", path: "/v1/webhook-endpoints/{id}" },
  { method: "PATCH", path: "/v1/webhook-endpoints/{id}", body: { description: "moved" } },
  { method: "DELETE", path: "/v1/webhook-endpoints/{id}" },
  { method: "POST", path: "/v1/webhook-endpoints/{id}/rotate-secret", body: {} },
  { method: "GET", path: "/v1/webhook-endpoints/{id}/deliveries" },
  { method: "GET", path: "/v1/events/{id}" },
  { method: "POST", path: "/v1/events/{id}/redeliver", body: {} },
  { method: "GET", path: "/v1/plans/{id}" },
  { method: "PATCH", path: "/v1/plans/{id}", body: { name: "Renamed" } },
  { method: "POST", path: "/v1/plans/{id}/archive" },
  { method: "GET", path: "/v1/subscriptions/{id}" },
  { method: "PATCH", path: "/v1/subscriptions/{id}", body: { metadata: { a: "b" } } },
  { method: "POST", path: "/v1/subscriptions/{id}/cancel", body: {} },
  { method: "POST", path: "/v1/subscriptions/{id}/pause", body: {} },
  { method: "POST", path: "/v1/subscriptions/{id}/resume", body: {} },
  { method: "GET", path: "/v1/submerchants/{id}" },
  { method: "POST", path: "/v1/submerchants/{id}/document", body: { multipart: true } },
  { method: "POST", path: "/v1/submerchants/{id}/documents", body: { multipart: true } },
  { method: "GET", path: "/v1/submerchants/{id}/documents" },
  { method: "GET", path: "/v1/submerchants/{id}/documents/{documentId}/content" },
  { method: "GET", path: "/v1/submerchants/{id}/api-keys" },
  { method: "PATCH", path: "/v1/submerchants/{id}", body: { payoutSchedule: { interval: "manual" } } },
  { method: "GET", path: "/v1/submerchants/{id}/balance" },
  { method: "POST", path: "/v1/submerchants/{id}/provider-accounts", body: { processor: "sandbox" } },
  { method: "GET", path: "/v1/submerchants/{id}/provider-accounts" },
  { method: "GET", path: "/v1/submerchants/{id}/provider-accounts/{processor}" },
  { method: "GET", path: "/v1/submerchants/{id}/reconciliation" },
  { method: "GET", path: "/v1/connect/sub-accounts/{id}/fees-info" },
  { method: "POST", path: "/v1/submerchants/{merchantId}/payout-requests", body: { amount: 1000 } },
  { method: "POST", path: "/v1/submerchants/{merchantId}/payout-requests", body: { amount: 1000 }, by: "submerchant" },
  { method: "GET", path: "/v1/payout-requests/{id}" },
  { method: "GET", path: "/v1/payout-requests/{id}", by: "submerchant" },
  { method: "GET", path: "/v1/payment-links/{id}" },
  { method: "PATCH", path: "/v1/payment-links/{id}", body: { title: "Renamed" } },
  { method: "DELETE", path: "/v1/payment-links/{id}" },
  { method: "GET", path: "/v1/payment-links/{id}/payments" },
  { method: "POST", path: "/v1/sandbox/charges/{id}/dispute", body: {} },
  { method: "GET", path: "/v1/disputes/{id}" },
  { method: "GET", path: "/v1/disputes/{id}", by: "submerchant" },
  { method: "POST", path: "/v1/disputes/{id}/evidence", body: { multipart: true }, by: "submerchant" },
  { method: "POST", path: "/v1/disputes/{id}/accept", body: {}, by: "submerchant" },
  { method: "POST", path: "/v1/sandbox/disputes/{id}/close", body: { outcome: "won" }, by: "submerchant" },
  { method: "GET", path: "/v1/mandates/{id}" },
  { method: "POST", path: "/v1/sandbox/mandates/{id}/approve" },
  { method: "POST", path: "/v1/sandbox/mandates/{id}/reject" },
  { method: "POST", path: "/v1/sandbox/mandates/{id}/fail-debits", body: { count: 1 } },
  { method: "POST", path: "/v1/sandbox/mandates/{id}/cancel" },
];

/** Routes with an id that the matrix does not probe, and why. */
const NOT_ENVIRONMENT_SCOPED: Record<string, string> = {
  "/v1/admin/merchants/{id}": "the operator's admin key, above every merchant and environment",
  "/v1/admin/merchants/{id}/fees": "admin",
  "/v1/admin/merchants/{id}/rotate-keys": "admin",
  "/v1/admin/submerchants/{id}/status": "admin",
  "/v1/admin/payout-requests/{id}/approve": "admin",
  "/v1/admin/payout-requests/{id}/reject": "admin",
  "/v1/admin/processors/{name}/webhook": "admin: a processor of the operator's, not a merchant's object",
  "/v1/sandbox/{bank}/{id}": "the simulated bank's public page: sandbox charges only, by their unguessable id",
  "/v1/payment-links/{id}/public": "public: the link id decides merchant and environment",
  "/v1/processors/{name}/webhooks": "public: a provider's notice only names a live charge, which is read again from its provider",
  "/v1/payment-links/{id}/freight/quote": "public",
  "/v1/payment-links/{id}/charge": "public",
  "/v1/payment-links/{id}/installments": "public: the checkout's installment plans, of the link's own merchant and environment",
  "/v1/payment-links/{id}/charges/{chargeId}/status": "public: the link's own charges only",
};

/** What each path parameter names, per route. */
function idFor(env: Env, path: string, param: string): string | undefined {
  const o = ids[env];
  if (param === "cardId") return o.card;
  if (param === "documentId") return o.document;
  if (param === "merchantId") return o.submerchant;
  if (param === "processor") return "sandbox";
  if (path.startsWith("/v1/customers/")) return o.customer;
  if (path.startsWith("/v1/charges/") || path.startsWith("/v1/sandbox/charges/")) return o.charge;
  if (path.startsWith("/v1/webhook-endpoints/")) return o.endpoint;
  if (path.startsWith("/v1/events/")) return o.event;
  if (path.startsWith("/v1/plans/")) return o.plan;
  if (path.startsWith("/v1/subscriptions/")) return o.subscription;
  if (path.startsWith("/v1/submerchants/") || path.startsWith("/v1/connect/sub-accounts/")) return o.submerchant;
  if (path.startsWith("/v1/payout-requests/")) return o.payout;
  if (path.startsWith("/v1/disputes/") || path.startsWith("/v1/sandbox/disputes/")) return o.dispute;
  if (path.startsWith("/v1/mandates/") || path.startsWith("/v1/sandbox/mandates/")) return o.mandate;
  if (path.startsWith("/v1/payment-links/")) return o.link;
  return undefined;
}

function fill(env: Env, path: string): string | undefined {
  let missing = false;
  const url = path.replace(/\{(\w+)\}/g, (_m, param: string) => {
    const id = idFor(env, path, param);
    if (!id) missing = true;
    return id ?? "";
  });
  return missing ? undefined : url;
}

test("every route of the API that names an object is in the environment matrix or says why not", async () => {
  const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, unknown>> };
  const probed = new Set(PROBES.map((p) => `${p.method} ${p.path}`));
  const unclassified: string[] = [];
  for (const [path, operations] of Object.entries(doc.paths)) {
    if (!path.includes("{") || NOT_ENVIRONMENT_SCOPED[path]) continue;
    for (const method of Object.keys(operations)) {
      if (!probed.has(`${method.toUpperCase()} ${path}`)) unclassified.push(`${method.toUpperCase()} ${path}`);
    }
  }
  assert.deepEqual(unclassified, [], "routes missing from the environment isolation matrix");
});

for (const env of ENVS) {
  test(`a ${env} key gets 404 for every object of ${other(env)}, and changes nothing`, async () => {
    const failures: string[] = [];
    let asked = 0;
    for (const probe of PROBES) {
      const url = fill(other(env), probe.path);
      if (!url) continue; // the other environment has no such object yet (charges, payouts in production)
      const key = probe.by === "submerchant" ? submerchantKeys[env] : keys[env];
      const res = await send(probe.method, url, key, probe.body);
      asked++;
      // The simulator's routes refuse a production key before any lookup (403, whatever the id).
      const sandboxOnly = env === "production" && probe.path.startsWith("/v1/sandbox/") && res.statusCode === 403;
      if (res.statusCode !== 404 && !sandboxOnly) failures.push(`${probe.method} ${url} (${probe.by ?? "master"}): ${res.statusCode} ${res.body.slice(0, 160)}`);
      if (KEY.test(res.body)) failures.push(`${probe.method} ${url} shows a key`);
    }
    assert.deepEqual(failures, []);
    // Production has no payout (nothing settles on request there), no dispute (only a provider
    // opens one) and no mandate (refused until a processor offers them).
    const productionHasNot = PROBES.filter((p) => /payout-requests\/\{id\}|disputes\/\{id\}|mandates\/\{id\}/.test(p.path)).length;
    assert.ok(asked >= (env === "production" ? PROBES.length : PROBES.length - productionHasNot), `asked ${asked} routes`);
    // Nothing of the other environment changed: its objects read the same with its own key.
    const o = ids[other(env)];
    for (const [url, field, value] of [
      [`/v1/webhook-endpoints/${o.endpoint}`, "description", null],
      [`/v1/plans/${o.plan}`, "name", `Plano ${other(env)}`],
      [`/v1/payment-links/${o.link}`, "title", `Link ${other(env)}`],
      [`/v1/subscriptions/${o.subscription}`, "status", "active"],
    ] as const) {
      const res = await send("GET", url, keys[other(env)]);
      expectStatus(res, 200);
      assert.equal(res.json()[field] ?? null, value, url);
    }
  });

  test(`the lists of a ${env} key show nothing of ${other(env)}`, async () => {
    const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json() as { paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>> };
    // Every GET without an id that a secret key may call (the event stream is a long poll,
    // covered by its own tests; the installments quote lists no object, only the key's terms).
    const lists = Object.entries(doc.paths)
      .filter(([path, ops]) => !path.includes("{") && ops.get?.security?.some((s) => "secretKey" in s) && path !== "/v1/events/stream" && path !== "/v1/installments")
      .map(([path]) => path);
    assert.ok(lists.length >= 12, lists.join(", "));
    const foreign = Object.values(ids[other(env)]);
    for (const key of [keys[env], submerchantKeys[env]]) {
      for (const path of lists) {
        const res = await send("GET", path, key);
        assert.ok([200, 403].includes(res.statusCode), `${path}: ${res.statusCode} ${res.body.slice(0, 200)}`);
        for (const id of foreign) assert.ok(!res.body.includes(id), `${path} with the ${env} key shows ${id} of ${other(env)}`);
        assert.ok(!KEY.test(res.body), `${path} shows a key`);
      }
    }
  });
}

test("a CNPJ registered in one environment neither blocks nor reveals a registration in the other", async () => {
  const m = await seedMaster(t, FEES);
  const first = await createSubmerchant(t, m.sandboxKey);
  const again = await send("POST", "/v1/submerchants", m.productionKey, { ...(await registration(m.sandboxKey, first.id)) });
  expectStatus(again, 201);
  assert.notEqual(again.json().id, first.id);
  // Within one environment the CNPJ is still once per Connect.
  const twice = await send("POST", "/v1/submerchants", m.productionKey, { ...(await registration(m.sandboxKey, first.id)) });
  expectStatus(twice, 409);
  // Sandbox accreditation is simulated: the production registration stays pending.
  await activate(t, m.sandboxKey, first.id);
  const live = await send("GET", `/v1/submerchants/${again.json().id}`, m.productionKey);
  assert.equal(live.json().status, "pending");
  expectStatus(await admin(t, "POST", `/v1/admin/merchants/${first.id}/rotate-keys`), 200);
});

async function registration(key: string, id: string) {
  const s = (await send("GET", `/v1/submerchants/${id}`, key)).json();
  return {
    tradeName: s.tradeName, legalName: s.legalName, companyTaxId: s.companyTaxId, contactEmail: s.contactEmail, website: s.website,
    productType: s.productType, productDescription: s.productDescription,
    averageMonthlyRevenue: s.averageMonthlyRevenue, averageOrderValue: s.averageOrderValue,
  };
}

test("rotating a submerchant's keys issues a key of its environment only, and api-keys never shows another environment's", async () => {
  const m = await seedMaster(t, FEES);
  const sm = await createSubmerchant(t, m.sandboxKey);
  const rotated = await admin(t, "POST", `/v1/admin/merchants/${sm.id}/rotate-keys`);
  expectStatus(rotated, 200);
  assert.match(rotated.json().apiKeys.sandbox, /^sk_test_/);
  assert.equal(rotated.json().apiKeys.production, null);
  const shown = await send("GET", `/v1/submerchants/${sm.id}/api-keys`, m.sandboxKey);
  expectStatus(shown, 200);
  assert.deepEqual(shown.json().keys.map((k: { key: string }) => k.key), [rotated.json().apiKeys.sandbox]);
  expectStatus(await send("GET", `/v1/submerchants/${sm.id}/api-keys`, m.productionKey), 404);
  // The submerchant's key acts only in its environment: a charge with it is a sandbox charge.
  const charge = await send("POST", "/v1/charges", rotated.json().apiKeys.sandbox, cardCharge(CARDS.visa));
  expectStatus(charge, 201);
});
