import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { insertProviderAccount, updateProviderAccount } from "../../src/modules/connect/provider-accounts.repo.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, methodCharge } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { until } from "../helpers/wait.js";
import { fakeAccounts, pixCustomer, runTask } from "../processors/live-shared.js";
import { activate, assertLedgerInvariants, call, createSubmerchant, FEES, seedMaster } from "./helpers.js";
import { linkMercadoPago } from "./mercadopago-sellers.js";
import { disputesOfCharge, getDispute, sendEvidence } from "../disputes/helpers.js";

// A provider-settled Mercado Pago payment is the seller's: made with the seller's access token,
// Mercado Pago shows it to that token only (the fake follows its marketplace guide:
// fake-mercadopago-oauth.ts). Every read of it goes there too: the failover's lookup after a 5xx,
// the reconciliation after a lost answer, a notice's read-back, with the seller's token renewed
// first when it has expired. Read with the application's token it would be "not found": charged
// again at the next processor, or never applied. Cards may fail over from Mercado Pago to
// Pagar.me, where the seller has a recipient too; Pix goes to Mercado Pago. The expiry reads and
// cancels a seller's Pix there too.

let mp: FakeMercadoPago;
let pagarme: FakePagarme;
let t: TestApp;
let master: SeededMerchant;
let seller: { id: string; userId: number };
const OPERATOR_RECIPIENT = "rp_operator0000000000";
const PDF_FILE = { field: "files", filename: "receipt.pdf", contentType: "application/pdf", content: Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n") };

before(async () => {
  [mp, pagarme] = await Promise.all([startFakeMercadoPago({ webhookRetries: 0 }), startFakePagarme()]);
  const accounts = fakeAccounts(pagarme, mp);
  t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: ["mercadopago", "pagarme"], pix: ["mercadopago"] }, timeoutMs: 5_000,
      processors: {
        pagarme: { ...accounts.pagarme, recipientId: OPERATOR_RECIPIENT },
        mercadopago: { ...accounts.mercadopago, clientId: mp.clientId, clientSecret: mp.clientSecret, authUrl: mp.url },
      },
    },
  }, { noWorkerProcesses: "the test runs the reconciliation by hand" });
  const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  mp.setWebhookUrl(`${base}/v1/processors/mercadopago/webhooks`);
  master = await seedMaster(t, FEES);
  pagarme.addRecipient(OPERATOR_RECIPIENT);
  expectStatus(await call(t, "PUT", "/v1/connect/settings", master.productionKey, { settlement: "provider" }), 200);
  seller = await newSeller();
});
after(async () => {
  await t.close();
  await Promise.all([mp.close(), pagarme.close()]);
});

/** An active seller linked at Mercado Pago, with a recipient at Pagar.me too (a card's failover may go there). */
async function newSeller(): Promise<{ id: string; userId: number }> {
  const sm = await createSubmerchant(t, master.productionKey);
  await activate(t, master.productionKey, sm.id);
  const userId = await linkMercadoPago(t, master.productionKey, sm.id);
  pagarme.addRecipient(`rp_${sm.id}`);
  await insertProviderAccount(t.database.db, { submerchantId: sm.id, processor: "pagarme", parentId: master.id, environment: "production", status: "active", externalId: `rp_${sm.id}` });
  return { id: sm.id, userId };
}

const charge = async (id: string) => (await call(t, "GET", `/v1/charges/${id}`, master.productionKey)).json();
const paymentOf = (chargeId: string) => [...mp.payments.values()].find((p) => p.external_reference === chargeId);
const atProvider = async (submerchantId: string) => (await call(t, "GET", `/v1/submerchants/${submerchantId}/balance`, master.productionKey)).json().atProvider;

async function sellerCard(): Promise<string> {
  const res = await call(t, "POST", "/v1/charges", master.productionKey, cardCharge(CARDS.visa, { split: [{ merchantId: seller.id, percentage: 30 }] }));
  expectStatus(res, 201);
  return res.json().id as string;
}

test("a 5xx after Mercado Pago made a seller's payment: the failover's lookup finds it with the seller's token, the card is not charged again at Pagar.me, and the reconciliation makes the charge paid", async () => {
  const ordersBefore = pagarme.orders.size;
  await mp.setFault("500-after-work", { times: 1, match: "POST /v1/payments" });
  const id = await sellerCard();
  assert.equal(pagarme.orders.size, ordersBefore, "nothing was sent to Pagar.me: the payment exists at Mercado Pago");
  assert.equal(mp.paymentsCreated(id), 1);
  const created = await charge(id);
  assert.deepEqual([created.status, created.processor], ["pending", "mercadopago"], JSON.stringify(created));
  await runTask({ t }, "charges.reconcile-live");
  assert.equal((await charge(id)).status, "paid");
  assert.equal(paymentOf(id)!.collector_id, seller.userId);
  assert.equal(mp.paymentsCreated(id), 1);
  await assertLedgerInvariants(t);
});

test("a seller's payment whose create answer was lost is found again by the reconciliation with the seller's token: one payment, the charge paid, the seller's share at the processor", async () => {
  const before = (await atProvider(seller.id))[0]?.amount ?? 0;
  await mp.setFault("lost-answer", { times: 1, match: "POST /v1/payments" });
  const id = await sellerCard();
  assert.equal((await charge(id)).status, "pending");
  await runTask({ t }, "charges.reconcile-live");
  const after = await charge(id);
  assert.equal(after.status, "paid", JSON.stringify(after));
  assert.equal(mp.paymentsCreated(id), 1);
  assert.equal(paymentOf(id)!.collector_id, seller.userId);
  // 100.00 BRL: net 8801; the seller's 30 % = 2640, at Mercado Pago.
  assert.deepEqual(await atProvider(seller.id), [{ processor: "mercadopago", currency: "BRL", amount: before + 2640 }]);
  await assertLedgerInvariants(t);
});

/** A seller's Pix at Mercado Pago, awaiting its payer; its payment id there. */
async function sellerPix(submerchantId: string): Promise<{ id: string; paymentId: number }> {
  const res = await call(t, "POST", "/v1/charges", master.productionKey, methodCharge({ type: "pix" }, { customer: pixCustomer, split: [{ merchantId: submerchantId, percentage: 30 }] }));
  expectStatus(res, 201);
  assert.equal(res.json().status, "pending", res.body);
  return { id: res.json().id, paymentId: paymentOf(res.json().id)!.id };
}

test("Mercado Pago's notice of a seller's payment is applied: the payment is read back with the seller's token and the charge becomes paid", async () => {
  const pix = await sellerPix(seller.id);
  assert.equal(typeof mp.pay(pix.paymentId), "object");
  await until("the notice made the charge paid", async () => (await charge(pix.id)).status === "paid", 5_000);
  await assertLedgerInvariants(t);
});

test("a notice of a payment on a seller's account whose token has expired: the token is renewed first (once), and the read uses the new one", async () => {
  const other = await newSeller();
  const pix = await sellerPix(other.id);
  // Time passes: the seller's access token expires, at Mercado Pago and in feira's record of it.
  mp.oauth.expireAccess(other.userId);
  await updateProviderAccount(t.database.db, { merchantId: master.id, environment: "production" }, other.id, "mercadopago", { tokenExpiresAt: new Date(Date.now() - 1) });
  const stale = mp.oauth.sellers.get(other.userId)!.accessToken;
  const from = mp.requests.length;
  assert.equal(typeof mp.pay(pix.paymentId), "object");
  await until("the notice made the charge paid", async () => (await charge(pix.id)).status === "paid", 5_000);
  assert.deepEqual(mp.oauth.grants.filter((g) => g.userId === other.userId).map((g) => g.grantType), ["authorization_code", "refresh_token"]);
  const fresh = mp.oauth.sellers.get(other.userId)!.accessToken;
  assert.notEqual(fresh, stale);
  const reads = mp.requests.slice(from).filter((r) => r.route === `GET /v1/payments/${pix.paymentId}`);
  assert.ok(reads.length > 0, "the payment was read back");
  for (const r of reads) assert.equal(r.headers.authorization, `Bearer ${fresh}`);
  await assertLedgerInvariants(t);
});

test("an expired Pix on a seller's account is read and cancelled there before the charge fails as expired: the buyer can no longer pay it", async () => {
  const pix = await sellerPix(seller.id);
  await t.database.db.execute(sql`update charges set expires_at = now() - interval '1 minute' where id = ${pix.id}`);
  await runTask({ t }, "charges.expire-live");
  const after = await charge(pix.id);
  assert.deepEqual([after.status, after.reason], ["failed", "expired"], JSON.stringify(after));
  assert.equal(mp.payment(pix.paymentId)!.status, "cancelled", "cancelled at Mercado Pago, on the seller's account");
  const sellerToken = `Bearer ${mp.oauth.sellers.get(seller.userId)!.accessToken}`;
  const cancels = mp.requests.filter((r) => r.route === `PUT /v1/payments/${pix.paymentId}`);
  assert.deepEqual(cancels.map((r) => r.headers.authorization), [sellerToken]);
  await assertLedgerInvariants(t);
});

test("a chargeback of a seller's payment is the seller's at Mercado Pago: its notice (the seller's user_id) is read with the seller's token, the dispute opens and takes the seller's share back out of its balance at the processor, and the evidence is uploaded with the seller's token", async () => {
  const id = await sellerCard();
  assert.equal((await charge(id)).status, "paid");
  await mp.flushWebhooks();
  const before = (await atProvider(seller.id))[0]?.amount ?? 0;
  const paymentId = paymentOf(id)!.id;
  const from = mp.requests.length;
  assert.equal(typeof mp.chargeback(paymentId), "object");
  await mp.flushWebhooks();
  const cb = [...mp.chargebacks.values()].find((x) => (x.payments as number[])[0] === paymentId)!;
  const sellerToken = `Bearer ${mp.oauth.sellers.get(seller.userId)!.accessToken}`;
  const [d] = await disputesOfCharge(t, master.productionKey, id);
  assert.ok(d, "the chargebacks notice opened a dispute");
  assert.deepEqual([d.kind, d.status, d.amount], ["chargeback", "needs_response", 100]);
  const reads = mp.requests.slice(from).filter((r) => r.route === `GET /v1/chargebacks/${cb.id}`);
  assert.ok(reads.length > 0, "the chargeback was read back");
  for (const r of reads) assert.equal(r.headers.authorization, sellerToken);
  // The seller's 30 % of the net (2640) goes back at the processor with the chargeback.
  assert.deepEqual(await atProvider(seller.id), [{ processor: "mercadopago", currency: "BRL", amount: before - 2640 }]);
  await assertLedgerInvariants(t);

  const upload = mp.requests.length;
  const sent = await sendEvidence(t, master.productionKey, d.id, [{ field: "text", content: "Delivered and signed for." }, PDF_FILE]);
  expectStatus(sent, 200);
  assert.equal(sent.json().status, "under_review");
  assert.deepEqual(mp.chargebackUploads(String(cb.id)).map((u) => u.map((f) => f.name)), [["receipt.pdf"]]);
  const posts = mp.requests.slice(upload).filter((r) => r.route === `POST /v1/chargebacks/${cb.id}/documentation`);
  assert.deepEqual(posts.map((r) => r.headers.authorization), [sellerToken]);
  await mp.flushWebhooks();

  // The decision's notice is lost: the disputes' reconciliation reads the chargeback with the seller's token too.
  mp.setWebhookFault("drop", 1);
  assert.equal(typeof mp.decideChargeback(String(cb.id), "won"), "object");
  await mp.flushWebhooks();
  assert.equal((await getDispute(t, master.productionKey, d.id)).status, "under_review", "the notice was dropped");
  const reconcile = t.services.modules.disputes.tasks.find((k) => k.name === "disputes.reconcile-live")!;
  for (let i = 0; i < 10 && (await getDispute(t, master.productionKey, d.id)).status === "under_review"; i++) await reconcile.run();
  assert.equal((await getDispute(t, master.productionKey, d.id)).status, "won");
  assert.deepEqual(await atProvider(seller.id), [{ processor: "mercadopago", currency: "BRL", amount: before }], "won: the seller's share is back");
  await assertLedgerInvariants(t);
});
