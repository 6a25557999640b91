import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { and, eq, sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { findCharge } from "../../src/modules/charges/charges.repo.js";
import { events, ledgerEntries } from "../../src/db/schema.js";
import { buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, methodCharge } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "./live-shared.js";

// Provider webhooks and the reconciliation of live charges, over HTTP against the fakes: the
// fake moves the payment and sends its own notice to feira's listening app, feira reads the
// payment again and applies it once (ledger and charge.paid), refuses a bad Mercado Pago
// signature, and a dropped notice is settled by one reconciliation round.

let t: TestApp;
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let key: string;
let merchantId: string;

const pixCustomer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" } };

before(async () => {
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago({ webhookRetries: 0 })]);
  t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { pix: ["mercadopago"], boleto: ["pagarme"], credit_card: ["pagarme"] },
      processors: fakeAccounts(pagarme, mercadopago),
      timeoutMs: 5_000,
    },
  }, { noWorkerProcesses: "the test runs charges.reconcile-live by hand" });
  const base = await t.app.listen({ port: 0, host: "127.0.0.1" });
  mercadopago.setWebhookUrl(`${base}/v1/processors/mercadopago/webhooks`);
  pagarme.setWebhookUrl(`${base}/v1/processors/pagarme/webhooks`);
  const m = await seedMerchant(t);
  key = m.productionKey;
  merchantId = m.id;
});

after(async () => {
  await t.close();
  await Promise.all([pagarme.close(), mercadopago.close()]);
});

const row = async (id: string) => (await findCharge(t.database.db, { merchantId, environment: "production" }, id))!;
const count = async (table: typeof events | typeof ledgerEntries, where: ReturnType<typeof and>) =>
  Number((await t.database.db.select({ n: sql<string>`count(*)` }).from(table).where(where))[0]!.n);
const paidEvents = (id: string) => count(events, and(eq(events.objectId, id), eq(events.type, "charge.paid")));
const ledgerOf = (id: string) => count(ledgerEntries, eq(ledgerEntries.sourceId, id));
/** A live Pix through Mercado Pago, once the fake's payment.created notice went out (faults then apply to the payment's next notice). */
async function livePix() {
  const pix = await createCharge(t, key, methodCharge({ type: "pix" }, { customer: pixCustomer }));
  await mercadopago.flushWebhooks();
  return pix;
}
/** What became of each notice the Pagar.me fake sent, for a failing assertion to show. */
const pagarmeNotices = () =>
  `the fake's notices: ${pagarme.webhooks.map((w) => `${w.label} ${w.status ?? "-"} x${w.attempts}${w.error ? ` ${w.error}` : ""}`).join("; ")}`;
const reconcile = () => t.services.modules.charges.tasks.find((k) => k.name === "charges.reconcile-live")!.run();

test("Mercado Pago pays a live Pix and notifies twice: the charge is paid once, with one ledger posting and one charge.paid", async () => {
  const pix = await livePix();
  assert.equal(pix.status, "pending");
  const ref = (await row(pix.id)).pspRefId!;
  mercadopago.setWebhookFault("duplicate", 1);
  assert.equal(typeof mercadopago.pay(Number(ref)), "object");
  await mercadopago.flushWebhooks();
  const hooks = mercadopago.webhooks.filter((w) => w.body.includes(ref));
  assert.ok(hooks.length >= 2 && hooks.every((w) => w.status === 200), `both copies answered 200: ${JSON.stringify(hooks.map((w) => w.status))}`);
  const c = await row(pix.id);
  assert.equal(c.status, "paid");
  assert.equal(await paidEvents(pix.id), 1);
  const entries = await ledgerOf(pix.id);
  assert.ok(entries > 0, "the payment is on the ledger");
  // A later reconciliation round reads the same answer: nothing changes twice.
  await reconcile();
  assert.equal(await paidEvents(pix.id), 1);
  assert.equal(await ledgerOf(pix.id), entries);
});

test("a Mercado Pago notice with a bad, missing or stale signature is 401 and changes nothing", async () => {
  for (const mode of ["bad", "missing", "stale"] as const) {
    const pix = await livePix();
    const ref = (await row(pix.id)).pspRefId!;
    mercadopago.setSignatureFault(mode, 1);
    mercadopago.pay(Number(ref));
    await mercadopago.flushWebhooks();
    const hook = mercadopago.webhooks.filter((w) => w.body.includes(ref)).at(-1)!;
    assert.equal(hook.status, 401, mode);
    assert.equal((await row(pix.id)).status, "pending", mode);
    assert.equal(await paidEvents(pix.id), 0);
    assert.equal(await ledgerOf(pix.id), 0);
  }
  const res = await t.app.inject({ method: "POST", url: "/v1/processors/mercadopago/webhooks?data.id=1&type=payment", payload: { data: { id: "1" } } });
  assert.equal(res.statusCode, 401);
  assert.equal(res.json().code, "unauthorized");
  assert.equal(res.json().statusCode, 401);
});

test("a signed notice for an unknown payment is 200 and changes nothing", async () => {
  const ts = String(Date.now());
  const requestId = "req-unknown-1";
  const res = await t.app.inject({
    method: "POST", url: "/v1/processors/mercadopago/webhooks?data.id=999999&type=payment", payload: { data: { id: "999999" }, user_id: "4111111111111111" },
    headers: { "x-signature": `ts=${ts},v1=${mercadopago.sign("999999", requestId, ts)}`, "x-request-id": requestId },
  });
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), { received: true });
});

test("a dropped Mercado Pago notice: one reconciliation round settles the charge", async () => {
  const pix = await livePix();
  const ref = (await row(pix.id)).pspRefId!;
  mercadopago.setWebhookFault("drop", 1);
  mercadopago.pay(Number(ref));
  await mercadopago.flushWebhooks();
  assert.equal((await row(pix.id)).status, "pending");
  assert.ok(await reconcile() >= 1);
  assert.equal((await row(pix.id)).status, "paid");
  assert.equal(await paidEvents(pix.id), 1);
  assert.ok(await ledgerOf(pix.id) > 0);
});

test("Pagar.me's unsigned notice for a paid boleto makes the charge paid; unknown ids are 200", async () => {
  const boleto = await createCharge(t, key, methodCharge({ type: "boleto" }, { customer: pixCustomer }));
  assert.equal(boleto.status, "pending");
  const ref = (await row(boleto.id)).pspRefId!;
  assert.equal(typeof pagarme.pay(ref), "object");
  await pagarme.flushWebhooks();
  assert.equal((await row(boleto.id)).status, "paid", pagarmeNotices());
  assert.equal(await paidEvents(boleto.id), 1);

  // A forged body saying "paid" for an open charge is not believed: the provider is asked.
  const open = await createCharge(t, key, methodCharge({ type: "boleto" }, { customer: pixCustomer }));
  const forged = await t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { type: "order.paid", data: { code: open.id, status: "paid" } } });
  assert.equal(forged.statusCode, 200);
  assert.equal((await row(open.id)).status, "pending");
  const unknown = await t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { type: "order.paid", data: { id: "or_nope", code: "ch_nope" } } });
  assert.equal(unknown.statusCode, 200);
});

test("a notice whose provider ids look like a card number is read, not refused as card data", async () => {
  const boleto = await createCharge(t, key, methodCharge({ type: "boleto" }, { customer: pixCustomer }));
  await pagarme.flushWebhooks();
  pagarme.setWebhookFault("drop", 2);
  assert.equal(typeof pagarme.pay((await row(boleto.id)).pspRefId!), "object");
  await pagarme.flushWebhooks();
  assert.equal((await row(boleto.id)).status, "pending");
  // 4111111111111111 passes Luhn: a provider's gateway or end-to-end id can, now and then.
  const res = await t.app.inject({
    method: "POST", url: "/v1/processors/pagarme/webhooks",
    payload: { type: "charge.paid", data: { code: boleto.id, gateway_id: "4111111111111111", last_transaction: { end_to_end_id: "E4111111111111111" } } },
  });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await row(boleto.id)).status, "paid");
  assert.equal(await paidEvents(boleto.id), 1);
});

test("a live Pix through Pagar.me: its paid notice makes the charge paid, once", async () => {
  const t2 = await buildTestApp({
    live: { ...NO_LIVE_PROCESSORS, routes: { pix: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url } }, timeoutMs: 5_000 },
  }, { noWorkerProcesses: "the notice is the only thing that may settle the charge" });
  try {
    const base = await t2.app.listen({ port: 0, host: "127.0.0.1" });
    pagarme.setWebhookUrl(`${base}/v1/processors/pagarme/webhooks`);
    const m = await seedMerchant(t2);
    const pix = await createCharge(t2, m.productionKey, methodCharge({ type: "pix" }, { customer: pixCustomer }));
    assert.equal(pix.status, "pending");
    const c = await findCharge(t2.database.db, { merchantId: m.id, environment: "production" }, pix.id);
    assert.equal(c?.processor, "pagarme");
    await pagarme.flushWebhooks();
    pagarme.setWebhookFault("duplicate", 1);
    assert.equal(typeof pagarme.pay(c!.pspRefId!), "object");
    await pagarme.flushWebhooks();
    const after = await findCharge(t2.database.db, { merchantId: m.id, environment: "production" }, pix.id);
    assert.equal(after?.status, "paid", pagarmeNotices());
    const paid = await t2.database.db.select({ n: sql<string>`count(*)` }).from(events).where(and(eq(events.objectId, pix.id), eq(events.type, "charge.paid")));
    assert.equal(Number(paid[0]!.n), 1);
  } finally {
    await t2.close();
  }
});
