import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { queryRows } from "../../src/db/client.js";
import { signState, stateKey } from "../../src/lib/oauth-state.js";
import { findProviderAccount, updateProviderAccount } from "../../src/modules/connect/provider-accounts.repo.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { activate, assertLedgerInvariants, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";
import { authorizeAt, linkMercadoPago, MP_CALLBACK, oauthCallback } from "./mercadopago-sellers.js";

// Provider settlement through Mercado Pago (marketplace model), production keys against the fake,
// which follows Mercado Pago's documentation (fake-mercadopago-oauth.ts): a seller authorizes the
// marketplace's application (authorize URL -> the fake's authorization page -> feira's callback)
// and its account is active with its user id and its tokens sealed; a charge with one seller is
// made on the seller's account with application_fee = the operator's part, to the cent; its
// refund goes through the seller's token; two sellers are refused before any call; a token
// about to expire is renewed once however many charges find it stale; no token reaches an
// answer, an event or a log line.

let mp: FakeMercadoPago;
let t: TestApp;
let master: SeededMerchant;
let a: { id: string };
let b: { id: string };
let logs = "";
const answers: string[] = [];

async function api(method: "GET" | "POST" | "PUT", url: string, body?: unknown) {
  const res = await call(t, method, url, master.productionKey, body);
  answers.push(res.body);
  return res;
}

const authorize = (url: string) => authorizeAt(t, url);
const callback = (query: Record<string, string>) => oauthCallback(t, query, answers);
const link = (submerchantId: string) => linkMercadoPago(t, master.productionKey, submerchantId, answers);

before(async () => {
  mp = await startFakeMercadoPago();
  const stream = new Writable({ write(chunk, _enc, done) { logs += chunk.toString(); done(); } });
  t = await buildTestApp({
    logLevel: "trace",
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: ["mercadopago"], pix: ["mercadopago"] }, timeoutMs: 5_000,
      processors: {
        mercadopago: {
          accessToken: mp.accessToken, webhookSecret: mp.webhookSecret, publicKey: mp.publicKey, apiUrl: mp.url,
          clientId: mp.clientId, clientSecret: mp.clientSecret, authUrl: mp.url,
        },
      },
    },
  }, { logger: { level: "trace", stream } });
  master = await seedMaster(t, FEES);
  a = await createSubmerchant(t, master.productionKey);
  b = await createSubmerchant(t, master.productionKey);
  for (const sm of [a, b]) await activate(t, master.productionKey, sm.id);
  expectStatus(await api("PUT", "/v1/connect/settings", { settlement: "provider" }), 200);
});
after(async () => {
  await t.close();
  await mp.close();
});

test("a seller authorizes the marketplace's application: the authorize URL is Mercado Pago's, the callback makes the account active with the seller's user id and sealed tokens", async () => {
  const opened = await api("POST", `/v1/submerchants/${a.id}/provider-accounts`, { processor: "mercadopago" });
  expectStatus(opened, 201);
  assert.equal(opened.json().status, "pending");
  const url = new URL(opened.json().authorizeUrl);
  assert.equal(`${url.origin}${url.pathname}`, `${mp.url}/authorization`);
  assert.equal(url.searchParams.get("client_id"), mp.clientId);
  assert.equal(url.searchParams.get("response_type"), "code");
  assert.equal(url.searchParams.get("platform_id"), "mp");
  assert.equal(url.searchParams.get("redirect_uri"), `${t.config.publicBaseUrl}${MP_CALLBACK}`);
  assert.ok(Date.parse(opened.json().authorizeUrlExpiresAt) > Date.now());
  const { code, state, userId } = await authorize(opened.json().authorizeUrl);
  const done = await callback({ code, state });
  expectStatus(done, 200);
  assert.deepEqual([done.json().status, done.json().id, done.json().processor], ["active", String(userId), "mercadopago"]);
  const row = await findProviderAccount(t.database.db, { merchantId: master.id, environment: "production" }, a.id, "mercadopago");
  const seller = mp.oauth.sellers.get(userId)!;
  assert.match(row!.accessTokenSealed!, /^v1:/);
  assert.ok(!row!.accessTokenSealed!.includes(seller.accessToken) && !row!.refreshTokenSealed!.includes(seller.refreshToken), "tokens are sealed at rest");
  assert.equal(row!.stateNonce, null);
  const listed = await api("GET", `/v1/submerchants/${a.id}/provider-accounts/mercadopago`);
  assert.equal(listed.json().status, "active");

  // The same state again (a replayed callback): 400, and nothing is written.
  const replay = await callback({ code, state });
  expectStatus(replay, 400);
  const after = await findProviderAccount(t.database.db, { merchantId: master.id, environment: "production" }, a.id, "mercadopago");
  assert.deepEqual(after, row);
});

test("a tampered, forged or expired state is a 400 and writes nothing", async () => {
  const opened = await api("POST", `/v1/submerchants/${b.id}/provider-accounts`, { processor: "mercadopago" });
  const { code, state } = await authorize(opened.json().authorizeUrl);
  const scope = { merchantId: master.id, environment: "production" as const };
  const before = await findProviderAccount(t.database.db, scope, b.id, "mercadopago");
  const [body, sig] = state.split(".");
  // Another submerchant named in the same signed body: the signature no longer matches.
  const payload = JSON.parse(Buffer.from(body!, "base64url").toString()) as unknown[];
  payload[4] = a.id;
  const tampered = `${Buffer.from(JSON.stringify(payload)).toString("base64url")}.${sig}`;
  // Signed with the right key and its nonce stored, but 11 minutes old.
  const key = stateKey(t.config, "feira/provider-account-oauth-state/v1");
  const expired = signState(key, master.id, "production", Date.now() - 11 * 60_000, b.id);
  const withExpired = await updateProviderAccount(t.database.db, scope, b.id, "mercadopago", { stateNonce: expired.payload.nonce });
  for (const bad of [tampered, `${body}.AAAA`, "", expired.state]) {
    const res = await callback({ code, state: bad });
    expectStatus(res, 400);
    assert.match(res.json().message, /state is missing, forged, expired or already used/);
  }
  assert.deepEqual(await findProviderAccount(t.database.db, scope, b.id, "mercadopago"), withExpired, "nothing written");
  assert.notEqual(before!.stateNonce, null);
});

test("a one-seller card charge is made on the seller's account with application_fee = the operator's part, to the cent; its refund goes through the seller's token", async () => {
  const userId = Number((await api("GET", `/v1/submerchants/${a.id}/provider-accounts/mercadopago`)).json().id);
  const res = await api("POST", "/v1/charges", cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 30 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "paid");
  const payment = [...mp.payments.values()].find((p) => p.external_reference === res.json().id)!;
  // 100.00 BRL: net 8801; the seller's 30 % = 2640; the operator's part 7360 = application_fee 73.60.
  assert.equal(payment.collector_id, userId, "made on the seller's account");
  assert.deepEqual(payment.fee_details, [{ type: "application_fee", amount: 73.6, fee_payer: "collector" }]);
  const bal = await api("GET", `/v1/submerchants/${a.id}/balance`);
  assert.deepEqual(bal.json().atProvider, [{ processor: "mercadopago", currency: "BRL", amount: 2640 }]);

  const refund = await api("POST", `/v1/charges/${res.json().id}/refund`, {});
  expectStatus(refund, 201);
  assert.deepEqual([refund.json().status, refund.json().chargeStatus], ["succeeded", "refunded"], refund.body);
  assert.equal(mp.refundsMade(payment.id), 1, "the seller's token refunded it (the application's is refused for a seller's payment)");
  const afterRefund = await api("GET", `/v1/submerchants/${a.id}/balance`);
  assert.deepEqual(afterRefund.json().atProvider.filter((x: { amount: number }) => x.amount !== 0), []);
  await assertLedgerInvariants(t);
});

test("two sellers on a charge routed to Mercado Pago: 422 split_not_supported naming mercadopago, before any call, nothing written", async () => {
  const count = async () => (await queryRows<{ n: number }>(t.database.db, sql`select count(*)::int as n from charges`))[0]!.n;
  const chargesBefore = await count();
  const paymentsBefore = mp.payments.size;
  const res = await api("POST", "/v1/charges", cardCharge(CARDS.visa, { split: [{ merchantId: a.id, percentage: 10 }, { merchantId: b.id, percentage: 10 }] }));
  expectStatus(res, 422);
  assert.equal(res.json().code, "split_not_supported");
  assert.match(res.json().message, /mercadopago, the processor of this charge, takes at most 1 seller per payment/);
  assert.equal(mp.payments.size, paymentsBefore);
  assert.equal(await count(), chargesBefore);
});

test("a token about to expire is renewed once however many charges find it stale; the charges use the new one", async () => {
  mp.oauth.setExpiresIn(60);
  const userId = await link(b.id);
  mp.oauth.setExpiresIn(15_552_000);
  const stale = mp.oauth.sellers.get(userId)!.accessToken;
  const charges = await Promise.all([0, 1, 2].map(() => api("POST", "/v1/charges", cardCharge(CARDS.visa, { split: [{ merchantId: b.id, percentage: 20 }] }))));
  for (const c of charges) assert.equal(c.json().status, "paid", c.body);
  assert.deepEqual(mp.oauth.grants.filter((g) => g.userId === userId).map((g) => g.grantType), ["authorization_code", "refresh_token"]);
  assert.notEqual(mp.oauth.sellers.get(userId)!.accessToken, stale);
  for (const c of charges) assert.equal([...mp.payments.values()].find((p) => p.external_reference === c.json().id)!.collector_id, userId);
  await assertLedgerInvariants(t);
});

test("no seller's token or the application's secret reaches an answer, an event or a log line", async () => {
  const events = await queryRows<{ data: unknown }>(t.database.db, sql`select data from events`);
  const eventText = JSON.stringify(events);
  assert.ok(logs.length > 1000, "the logs were captured");
  const secrets = [mp.clientSecret, ...[...mp.oauth.sellers.values()].flatMap((s) => [s.accessToken, s.refreshToken])].filter((s) => s.length > 0);
  assert.ok(secrets.length >= 5);
  for (const secret of secrets) {
    assert.ok(!logs.includes(secret), `a secret reached the logs: ${secret.slice(0, 8)}...`);
    assert.ok(!eventText.includes(secret), `a secret reached an event: ${secret.slice(0, 8)}...`);
    for (const body of answers) assert.ok(!body.includes(secret), `a secret reached an answer: ${secret.slice(0, 8)}...`);
  }
});
