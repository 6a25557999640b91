import { after, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { NO_LIVE_PROCESSORS, type LiveProcessorConfig } from "../../src/config.js";
import { createMercadoPagoProcessor } from "../../src/processors/mercadopago/mercadopago.processor.js";
import { createPagarmeProcessor } from "../../src/processors/pagarme/pagarme.processor.js";
import { createRouterProcessor } from "../../src/processors/router.js";
import type { RouteTable } from "../../src/processors/routing.js";
import { authorization, card } from "./adapter-inputs.js";
import { basic, buildTestApp, expectStatus, seedMerchant } from "../helpers/app.js";
import { queryRows, sql } from "../../src/db/client.js";
import { cardCharge, createCharge } from "../helpers/charges.js";
import { START_LIMIT_MS, makeStore, postJson, sleep, startFeira, type FeiraProcess, type Store } from "../helpers/feira-process.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "./live-shared.js";
import { basicAuth } from "../helpers/process.js";
// run-suite: waits: feira as processes, killed and restarted

// The live router's operation, over HTTP against the local fakes: a retry never pays twice
// after a failover that a crash interrupted (feira as a real process, killed with SIGKILL).

const stores: Store[] = [];
const fakes: { close(): Promise<void> }[] = [];
after(async () => {
  for (const s of stores) await s.close();
  for (const f of fakes) await f.close();
});

const LEASE = { IDEMPOTENCY_LEASE_MS: "1000" };

function liveEnv(pagarme: FakePagarme, mercadopago: FakeMercadoPago, routes: string): Record<string, string> {
  return {
    ...LEASE, PAYMENT_ROUTES: routes, PROCESSOR_TIMEOUT_MS: "5000",
    PAGARME_SECRET_KEY: pagarme.secretKey, PAGARME_API_URL: pagarme.url,
    MERCADOPAGO_ACCESS_TOKEN: mercadopago.accessToken, MERCADOPAGO_WEBHOOK_SECRET: mercadopago.webhookSecret,
    MERCADOPAGO_PUBLIC_KEY: mercadopago.publicKey, MERCADOPAGO_API_URL: mercadopago.url,
  };
}

async function productionKey(p: FeiraProcess, store: Store): Promise<string> {
  const res = await fetch(`${p.url}/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: basicAuth(store.adminKey), "content-type": "application/json" },
    body: JSON.stringify({ name: "Router Loja", email: `router-${randomBytes(4).toString("hex")}@example.com`, password: "correct horse battery" }),
  });
  if (res.status !== 201) throw new Error(`merchant: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { apiKeys: { production: string } }).apiKeys.production;
}

/** Retries like a client that has not had an answer: until one comes (409 means in flight). */
async function retryUntilAnswered(p: FeiraProcess, key: string, body: unknown, idempotencyKey: string) {
  for (let i = 0; i < 100; i++) {
    const answer = await postJson(`${p.url}/v1/charges`, key, body, { "idempotency-key": idempotencyKey });
    if (answer && answer.status !== 409) return answer;
    await sleep(100);
  }
  throw new Error(`no answer:\n${p.output()}`);
}

const posts = (fake: { requests: { method: string }[] }) => fake.requests.filter((r) => r.method !== "GET").length;
const paymentsAt = (pagarme: FakePagarme, mercadopago: FakeMercadoPago) => ({ pagarme: pagarme.orders.size, mercadopago: mercadopago.payments.size });

test("a failover interrupted by a crash: the retry adopts the second processor's payment instead of paying again at the first", { timeout: 3 * START_LIMIT_MS }, async () => {
  const [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  fakes.push(pagarme, mercadopago);
  const store = await makeStore();
  stores.push(store);
  const env = liveEnv(pagarme, mercadopago, "credit_card=pagarme|mercadopago");
  const setup = await startFeira(store, { env });
  const key = await productionKey(setup, store);
  await setup.stop();

  // Pagar.me fails once with a 500 and holds nothing (its lookup says so), so Mercado Pago takes
  // the payment; the process dies before it commits the charge.
  await pagarme.setFault({ mode: "500", times: 1, match: "POST /orders" });
  const idem = randomUUID();
  const body = cardCharge("4000000000000010");
  const dying = await startFeira(store, { env: { ...env, FEIRA_FAULT: "charge.after-authorize" } });
  assert.equal(await postJson(`${dying.url}/v1/charges`, key, body, { "idempotency-key": idem }), null, "the process died before answering");
  await dying.exited;
  assert.deepEqual(paymentsAt(pagarme, mercadopago), { pagarme: 0, mercadopago: 1 });

  // Pagar.me is healthy again: the retry must not make it take a second payment.
  const p = await startFeira(store, { env });
  try {
    const answer = await retryUntilAnswered(p, key, body, idem);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.status, "paid");
    assert.deepEqual(paymentsAt(pagarme, mercadopago), { pagarme: 0, mercadopago: 1 }, "exactly one payment at the providers");
    assert.equal(mercadopago.paymentsCreated(String(answer.body.id)), 1);
  } finally {
    await p.stop();
  }
  const [row] = await queryRows<{ processor: string; status: string }>((await store.inspect()).db, sql`select processor, status from charges`);
  assert.deepEqual(row, { processor: "mercadopago", status: "paid" }, "served by the processor that holds the payment");
});

async function liveApp(routes: RouteTable, over: Partial<LiveProcessorConfig> = {}) {
  const [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  fakes.push(pagarme, mercadopago);
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes, timeoutMs: 5_000,
      processors: fakeAccounts(pagarme, mercadopago),
      ...over,
    },
  }, { inProcessOnly: "reads the breakers of this process" });
  return { t, pagarme, mercadopago, key: (await seedMerchant(t)).productionKey };
}

test("a failing processor's breaker opens: GET /v1/admin/processors and /metrics show it, per process", async () => {
  const { t, pagarme, key } = await liveApp({ credit_card: ["pagarme", "mercadopago"], pix: ["mercadopago"] });
  try {
    const admin = () => t.app.inject({ method: "GET", url: "/v1/admin/processors", headers: { authorization: basic(t.admin) } });
    let res = await admin();
    expectStatus(res, 200);
    assert.equal(res.json().pid, process.pid);
    assert.deepEqual(res.json().processors.map((p: { name: string; routes: unknown; breaker: { status: string } }) => [p.name, p.routes, p.breaker.status]), [
      ["pagarme", [{ method: "credit_card", choice: "first" }], "closed"],
      ["mercadopago", [{ method: "credit_card", choice: "second" }, { method: "pix", choice: "first" }], "closed"],
    ]);

    // Pagar.me refuses connections: each charge fails over to Mercado Pago, and the fifth
    // failure in a row opens Pagar.me's breaker.
    await pagarme.setFault("refuse");
    for (let i = 0; i < 5; i++) assert.equal((await createCharge(t, key, cardCharge("4000000000000010"))).status, "paid");
    res = await admin();
    const [pg, mp] = res.json().processors as { name: string; breaker: Record<string, unknown> }[];
    assert.equal(pg!.breaker.status, "open", res.body);
    assert.equal(pg!.breaker.consecutiveFailures, 5);
    assert.equal(pg!.breaker.failures, 5);
    assert.ok(Date.parse(String(pg!.breaker.since)) <= Date.now() && Date.parse(String(pg!.breaker.retryAt)) > Date.now(), res.body);
    assert.equal(mp!.breaker.status, "closed");

    const metrics = await t.app.inject({ method: "GET", url: "/metrics" });
    expectStatus(metrics, 200);
    assert.match(metrics.body, /^feira_processor_breaker_state\{processor="pagarme"\} 1$/m);
    assert.match(metrics.body, /^feira_processor_breaker_state\{processor="mercadopago"\} 0$/m);
    assert.match(metrics.body, /^feira_processor_failures_total\{processor="pagarme"\} 5$/m);
    assert.match(metrics.body, /^feira_processor_breaker_consecutive_failures\{processor="pagarme"\} 5$/m);

    // The admin key only: a merchant's key or none is 401.
    for (const authorization of [basic(key), undefined]) {
      const denied = await t.app.inject({ method: "GET", url: "/v1/admin/processors", headers: authorization ? { authorization } : {} });
      expectStatus(denied, 401);
    }
  } finally {
    await t.close();
  }
});

test("GET /v1/admin/processors is empty when no live processor is configured", async () => {
  const t = await buildTestApp();
  try {
    const res = await t.app.inject({ method: "GET", url: "/v1/admin/processors", headers: { authorization: basic(t.admin) } });
    expectStatus(res, 200);
    assert.deepEqual(res.json().processors, []);
    assert.doesNotMatch((await t.app.inject({ method: "GET", url: "/metrics" })).body, /feira_processor_breaker_state\{/);
  } finally {
    await t.close();
  }
});

test("closing the app closes the live adapters' kept-alive connections to the provider", async () => {
  // A provider that keeps connections open (the fakes close each one after answering).
  const sockets = new Set<Socket>();
  let closed = 0;
  const provider = http.createServer((_req, res) => {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ message: "Not found" }));
  });
  provider.keepAliveTimeout = 60_000;
  provider.on("connection", (s: Socket) => { sockets.add(s); s.on("close", () => { closed++; }); });
  await new Promise<void>((r) => provider.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/core/v5`;
  const t = await buildTestApp({
    live: { ...NO_LIVE_PROCESSORS, routes: { boleto: ["pagarme"] }, processors: { pagarme: { secretKey: "sk_test_keepalive", apiUrl: url } } },
  }, { inProcessOnly: "watches this process's connections" });
  try {
    const adapter = t.services.processors.adapter("production", "pagarme")!;
    await adapter.lookup({ chargeId: "ch_keepalive", pspRefId: "ch_x" });
    assert.equal(sockets.size, 1);
    assert.equal(closed, 0, "kept alive after the answer");
  } finally {
    await t.close();
  }
  const deadline = Date.now() + 2_000;
  while (closed < sockets.size && Date.now() < deadline) await sleep(20);
  provider.close();
  assert.equal(closed, sockets.size, "the connection closed with the app, not at its keep-alive timeout");
});

test("a resumed charge: a payment found at either processor is adopted; a processor that cannot answer keeps it pending there, with nothing authorized", async () => {
  const [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  fakes.push(pagarme, mercadopago);
  const adapters = {
    pagarme: createPagarmeProcessor({ secretKey: pagarme.secretKey, baseUrl: pagarme.url, timeoutMs: 5_000 }),
    mercadopago: createMercadoPagoProcessor({ accessToken: mercadopago.accessToken, publicKey: mercadopago.publicKey, baseUrl: mercadopago.url, timeoutMs: 5_000 }),
  };
  const router = createRouterProcessor({ routes: { credit_card: ["pagarme", "mercadopago"] }, adapters });
  try {
    // Made at Pagar.me by the attempt that died: adopted, no second create anywhere.
    const first = authorization(card("4000000000000010"));
    assert.equal((await adapters.pagarme.authorize(first)).outcome, "paid");
    const creates = posts(pagarme) + posts(mercadopago);
    const adopted = await router.authorize({ ...first, resumed: true });
    assert.equal(adopted.outcome, "paid");
    assert.equal(adopted.servedBy, "pagarme");
    assert.equal(posts(pagarme) + posts(mercadopago), creates);

    // Pagar.me cannot be asked, Mercado Pago has nothing: it may be at Pagar.me, so nothing is
    // authorized and the charge stays pending there for the reconciliation.
    await pagarme.setFault("refuse");
    const unanswered = await router.authorize({ ...authorization(card("4000000000000010")), resumed: true });
    assert.equal(unanswered.outcome, "unknown");
    assert.equal(unanswered.servedBy, "pagarme");
    assert.equal(posts(pagarme) + posts(mercadopago), creates, "no create after a lookup without an answer");

    // Nowhere: authorized as usual, at the first processor.
    await pagarme.setFault("none");
    const fresh = await router.authorize({ ...authorization(card("4000000000000010")), resumed: true });
    assert.equal(fresh.outcome, "paid");
    assert.equal(fresh.servedBy, "pagarme");
    assert.equal(posts(pagarme), 2);
  } finally {
    await Promise.all([adapters.pagarme.close(), adapters.mercadopago.close()]);
  }
});

test("every breaker of the route open: failed with nothing sent, and the charge names the route's first processor, not the router", async () => {
  const pagarme = await startFakePagarme();
  fakes.push(pagarme);
  const adapter = createPagarmeProcessor({ secretKey: pagarme.secretKey, baseUrl: pagarme.url, timeoutMs: 5_000 });
  const router = createRouterProcessor({
    routes: { credit_card: ["pagarme"] }, adapters: { pagarme: adapter },
    breaker: { failureThreshold: 1, openMs: 60_000 },
  });
  try {
    await pagarme.setFault("refuse");
    assert.equal((await router.authorize(authorization(card("4000000000000010")))).outcome, "unknown");
    await pagarme.setFault("none");
    const calls = pagarme.requests.length;
    const skipped = await router.authorize(authorization(card("4000000000000010")));
    assert.equal(skipped.outcome, "failed");
    assert.equal(skipped.servedBy, "pagarme");
    assert.equal(pagarme.requests.length, calls, "nothing was sent");
  } finally {
    await adapter.close();
  }
});
