import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { and, eq, sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { events, ledgerTransactions, refunds } from "../../src/db/schema.js";
import { findCharge, findRefund, type RefundRow } from "../../src/modules/charges/charges.repo.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge, get, post } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "./live-shared.js";

// Refunds of production charges over HTTP against the local fakes of Pagar.me and Mercado Pago.
// A refund the provider finishes at once succeeds; one it accepts without finishing, or whose
// answer never came, stays pending with its amount reserved (never released while the provider
// may still refund it), and the live reconciliation round settles it from the provider's word:
// read back with refundStatus, sent again only when the provider never received it, so the
// provider refunds once.

type Name = "pagarme" | "mercadopago";
interface Live {
  name: Name;
  t: TestApp;
  fake: FakePagarme | FakeMercadoPago;
  key: string;
  merchantId: string;
  /** The provider's side, in the words of each fake. */
  provider: {
    pendingRefunds(on: boolean): void;
    /** Completes (ok) or fails the refund the provider is still working on. */
    finish(r: RefundRow, pspRefId: string, ok: boolean): void;
    refundsMade(pspRefId: string): number;
    /** The "METHOD /path" of a refund call, for the fault modes. */
    refundRoute(pspRefId: string): string;
    /** The "METHOD /path" refundStatus reads. */
    statusRoute(pspRefId: string): string;
  };
}

// A short processor timeout: a hung refund call gives up quickly, and the live reconciliation
// (which leaves alone a refund asked about within the timeout) may read it again soon after.
// Not shorter: under the topology run's load an answered call took longer than 700 ms, so a
// notice's read of the refund timed out and left it pending.
const TIMEOUT_MS = 2_000;
const apps = {} as Record<Name, Live>;
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;

async function liveApp(name: Name): Promise<Live> {
  const t = await buildTestApp({
    live: {
      ...NO_LIVE_PROCESSORS, routes: { credit_card: [name] },
      processors: fakeAccounts(pagarme, mercadopago),
      timeoutMs: TIMEOUT_MS,
    },
  }, { noWorkerProcesses: "the test runs charges.reconcile-live by hand" });
  const m = await seedMerchant(t);
  const provider: Live["provider"] = name === "pagarme"
    ? {
      pendingRefunds: (on) => pagarme.setRefundMode(on ? "pending" : "immediate"),
      finish: (_r, psp, ok) => assert.equal(typeof (ok ? pagarme.finishRefund(psp) : pagarme.failRefund(psp)), "object"),
      refundsMade: (psp) => pagarme.refundsMade(psp),
      refundRoute: (psp) => `DELETE /charges/${psp}`,
      statusRoute: (psp) => `GET /charges/${psp}`,
    }
    : {
      pendingRefunds: (on) => mercadopago.setRefundMode(on ? "pending" : "approved"),
      finish: (r, _psp, ok) => assert.equal(typeof (ok ? mercadopago.approveRefund(r.refundRef!) : mercadopago.rejectRefund(r.refundRef!)), "object"),
      refundsMade: (psp) => mercadopago.refundsMade(psp),
      refundRoute: (psp) => `POST /v1/payments/${psp}/refunds`,
      statusRoute: (psp) => `GET /v1/payments/${psp}/refunds`,
    };
  return { name, t, fake: name === "pagarme" ? pagarme : mercadopago, key: m.productionKey, merchantId: m.id, provider };
}

before(async () => {
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  apps.pagarme = await liveApp("pagarme");
  apps.mercadopago = await liveApp("mercadopago");
});

after(async () => {
  await Promise.all(Object.values(apps).map((w) => w.t.close()));
  await Promise.all([pagarme.close(), mercadopago.close()]);
});

/** A paid production card charge of R$ 100,00 and the provider's id of it. */
async function paidCharge(w: Live) {
  const c = await createCharge(w.t, w.key, cardCharge(CARDS.visa, { amount: 100 }));
  assert.equal(c.status, "paid", JSON.stringify(c));
  const row = (await findCharge(w.t.database.db, { merchantId: w.merchantId, environment: "production" }, c.id))!;
  assert.equal(row.processor, w.name);
  return { id: c.id, psp: row.pspRefId! };
}
const refund = (w: Live, chargeId: string, body: object = {}, headers: Record<string, string> = {}) =>
  post(w.t, w.key, `/v1/charges/${chargeId}/refund`, body, headers);
const refundRow = async (w: Live, id: string) => (await findRefund(w.t.database.db, id))!;
const charge = async (w: Live, id: string) => (await get(w.t, w.key, `/v1/charges/${id}`)).json() as { status: string; amountRefunded: number };
const count = async (w: Live, table: typeof events | typeof ledgerTransactions, where: ReturnType<typeof and>) =>
  Number((await w.t.database.db.select({ n: sql<string>`count(*)` }).from(table).where(where))[0]!.n);
const refundedEvents = (w: Live, chargeId: string) => count(w, events, and(eq(events.objectId, chargeId), eq(events.type, "charge.refunded")));
const ledgerOf = (w: Live, refundId: string) => count(w, ledgerTransactions, and(eq(ledgerTransactions.sourceId, refundId), eq(ledgerTransactions.type, "refund")));
const reconcileLive = (w: Live) => w.t.services.modules.charges.tasks.find((k) => k.name === "charges.reconcile-live")!.run();

/** Runs live reconciliation rounds until `done` holds (a condition, not a fixed wait). */
async function reconcileUntil(w: Live, done: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await done())) {
    assert.ok(Date.now() < deadline, `still waiting for ${what}`);
    await sleep(50);
    await reconcileLive(w);
  }
}
async function settledByReconciliation(w: Live, refundId: string): Promise<RefundRow> {
  await reconcileUntil(w, async () => (await refundRow(w, refundId)).status !== "pending", `refund ${refundId} to settle`);
  return refundRow(w, refundId);
}
const statusReads = (w: Live, psp: string) => w.fake.requests.filter((r) => r.route === w.provider.statusRoute(psp)).length;
/** A refund made while the provider accepts refunds without finishing them. */
async function refundAtPendingProvider(w: Live, chargeId: string, body: object = {}, headers: Record<string, string> = {}) {
  w.provider.pendingRefunds(true);
  try {
    return await refund(w, chargeId, body, headers);
  } finally {
    w.provider.pendingRefunds(false);
  }
}
const pick = (c: { status: string; amountRefunded: number }) => ({ status: c.status, amountRefunded: c.amountRefunded });

for (const name of ["pagarme", "mercadopago"] as const) {
  test(`${name}: a partial then a full live refund succeed at once, with the ledger and charge.refunded each`, async () => {
    const w = apps[name];
    const c = await paidCharge(w);
    const r1 = await refund(w, c.id, { amount: 30 });
    expectStatus(r1, 201);
    assert.deepEqual([r1.json().status, r1.json().amount, r1.json().chargeStatus], ["succeeded", 30, "paid"]);
    const r2 = await refund(w, c.id);
    expectStatus(r2, 201);
    assert.deepEqual([r2.json().status, r2.json().amount, r2.json().chargeStatus], ["succeeded", 70, "refunded"]);
    assert.deepEqual(pick(await charge(w, c.id)), { status: "refunded", amountRefunded: 100 });
    assert.equal(w.provider.refundsMade(c.psp), 2);
    assert.equal(await refundedEvents(w, c.id), 2);
    assert.equal(await ledgerOf(w, r1.json().id) + await ledgerOf(w, r2.json().id), 2);
    const stored = await refundRow(w, r1.json().id);
    assert.ok(stored.refundRef, "the provider's refund reference is kept");
    assert.ok(stored.sentAt, "and when it was sent");
  });

  test(`${name}: a refund the provider answers pending stays pending and reserved; reconciliation settles it to succeeded once`, async () => {
    const w = apps[name];
    const c = await paidCharge(w);
    const first = await refundAtPendingProvider(w, c.id, { amount: 30 }, { "idempotency-key": `pending-${c.id}` });
    expectStatus(first, 201);
    const pending = first.json();
    assert.deepEqual([pending.status, pending.amount, pending.chargeStatus], ["pending", 30, "paid"], first.body);
    const replay = await refund(w, c.id, { amount: 30 }, { "idempotency-key": `pending-${c.id}` });
    assert.equal(replay.json().id, pending.id, "the same Idempotency-Key answers the same refund");
    assert.equal((await charge(w, c.id)).amountRefunded, 30, "the pending amount stays reserved");
    const tooMuch = await refund(w, c.id, { amount: 70.01 });
    expectStatus(tooMuch, 422);
    assert.match(tooMuch.json().message, /refundable rest of 70.00 BRL/);
    const row = await refundRow(w, pending.id);
    assert.equal(row.status, "pending");
    assert.ok(row.refundRef, "the provider's reference of the pending refund is stored");
    assert.ok(row.providerCode, "and its code");
    assert.equal(await ledgerOf(w, pending.id), 0);
    assert.equal(await refundedEvents(w, c.id), 0);

    let rest: { id: string; status: string; amount: number } | undefined;
    if (name === "mercadopago") {
      // Mercado Pago keeps refunds apart: the rest can be refunded while the first is pending.
      const r = await refund(w, c.id);
      expectStatus(r, 201);
      rest = r.json();
      assert.deepEqual([rest!.status, rest!.amount, r.json().chargeStatus], ["succeeded", 70, "paid"], "not refunded while 30 may still fail");
    }
    // Still pending at the provider: a round reads it back and changes nothing.
    const reads = statusReads(w, c.psp);
    await reconcileUntil(w, async () => statusReads(w, c.psp) > reads, "a status read");
    assert.equal((await refundRow(w, pending.id)).status, "pending");
    assert.equal(w.provider.refundsMade(c.psp), rest ? 2 : 1, "read back, never sent again");

    w.provider.finish(row, c.psp, true);
    const settled = await settledByReconciliation(w, pending.id);
    assert.equal(settled.status, "succeeded");
    await reconcileLive(w);
    assert.equal(await ledgerOf(w, pending.id), 1, "the refund is on the ledger once");
    assert.equal(await refundedEvents(w, c.id), rest ? 2 : 1, "charge.refunded once for it");
    const after = await charge(w, c.id);
    assert.deepEqual([after.status, after.amountRefunded], rest ? ["refunded", 100] : ["paid", 30]);
    assert.equal(w.provider.refundsMade(c.psp), rest ? 2 : 1, "each refund reached the provider once");
  });

  test(`${name}: a pending refund the provider then fails is released by reconciliation, with nothing on the ledger`, async () => {
    const w = apps[name];
    const c = await paidCharge(w);
    const res = await refundAtPendingProvider(w, c.id);
    expectStatus(res, 201);
    assert.equal(res.json().status, "pending");
    assert.equal((await charge(w, c.id)).amountRefunded, 100);
    expectStatus(await refund(w, c.id, { amount: 1 }), 422);
    w.provider.finish(await refundRow(w, res.json().id), c.psp, false);
    const settled = await settledByReconciliation(w, res.json().id);
    assert.equal(settled.status, "failed");
    assert.deepEqual(pick(await charge(w, c.id)), { status: "paid", amountRefunded: 0 });
    assert.equal(await ledgerOf(w, res.json().id), 0);
    assert.equal(await refundedEvents(w, c.id), 0);
    const failed = await w.t.database.db.select().from(events).where(and(eq(events.objectId, c.id), eq(events.type, "charge.refund_failed")));
    assert.equal(failed.length, 1, "charge.refund_failed once");
    assert.equal((failed[0]!.data as { amount_refunded: number }).amount_refunded, 0);
    await reconcileLive(w);
    assert.equal(await count(w, events, and(eq(events.objectId, c.id), eq(events.type, "charge.refund_failed"))), 1, "not again on the next round");
    // The merchant reads where it stands: the refund answered pending is failed now.
    const listed = await get(w.t, w.key, `/v1/charges/${c.id}/refunds`);
    expectStatus(listed, 200);
    assert.deepEqual(listed.json().data.map((r: { id: string; status: string }) => [r.id, r.status]), [[res.json().id, "failed"]]);
    // The released amount can be refunded again.
    const again = await refund(w, c.id);
    expectStatus(again, 201);
    assert.deepEqual([again.json().status, again.json().chargeStatus], ["succeeded", "refunded"]);
  });

  test(`${name}: a refund whose answer was lost is pending, then found by refundStatus: the provider refunds once`, async () => {
    const w = apps[name];
    const c = await paidCharge(w);
    await w.fake.setFault({ mode: "lost-answer", match: w.provider.refundRoute(c.psp), times: 1 });
    const res = await refund(w, c.id, { amount: 40 });
    expectStatus(res, 201);
    assert.equal(res.json().status, "pending", "no answer to rely on is neither succeeded nor failed");
    assert.equal(w.provider.refundsMade(c.psp), 1, "the provider did refund");
    const settled = await settledByReconciliation(w, res.json().id);
    assert.equal(settled.status, "succeeded");
    assert.equal(w.provider.refundsMade(c.psp), 1, "never refunded twice");
    const calls = w.fake.requests.filter((r) => r.route === w.provider.refundRoute(c.psp));
    assert.equal(calls.length, 1, "read back, not sent again");
    assert.equal(await ledgerOf(w, res.json().id), 1);
    assert.equal((await charge(w, c.id)).amountRefunded, 40);
  });

  test(`${name}: a refund call that hung never reached the provider: reconciliation sends it again under the same id, once`, async () => {
    const w = apps[name];
    const c = await paidCharge(w);
    await w.fake.setFault({ mode: "hang", match: w.provider.refundRoute(c.psp), times: 1 });
    const res = await refund(w, c.id, { amount: 25 });
    expectStatus(res, 201);
    assert.equal(res.json().status, "pending");
    assert.equal(w.provider.refundsMade(c.psp), 0);
    const settled = await settledByReconciliation(w, res.json().id);
    assert.equal(settled.status, "succeeded");
    assert.equal(w.provider.refundsMade(c.psp), 1, "refunded once");
    const keys = w.fake.requests.filter((r) => r.route === w.provider.refundRoute(c.psp))
      .map((r) => r.headers["idempotency-key"] ?? r.headers["x-idempotency-key"]);
    assert.equal(keys.length, 2);
    assert.equal(keys[0], keys[1], "the second call carries the first one's idempotency key");
    assert.equal(await ledgerOf(w, res.json().id), 1);
  });

  test(`${name}: the provider's notice about a finished refund settles it at once, without a reconciliation round`, async () => {
    const w = apps[name];
    const base = await w.t.app.listen({ port: 0, host: "127.0.0.1" });
    w.fake.setWebhookUrl(`${base}/v1/processors/${name}/webhooks`);
    try {
      const c = await paidCharge(w);
      const res = await refundAtPendingProvider(w, c.id, { amount: 20 });
      assert.equal(res.json().status, "pending", res.body);
      await w.fake.flushWebhooks();
      assert.equal((await refundRow(w, res.json().id)).status, "pending", "a notice of a refund still pending changes nothing");
      w.provider.finish(await refundRow(w, res.json().id), c.psp, true);
      await w.fake.flushWebhooks();
      assert.equal((await refundRow(w, res.json().id)).status, "succeeded");
      assert.equal(await ledgerOf(w, res.json().id), 1);
      assert.equal(await refundedEvents(w, c.id), 1);
      assert.equal(w.provider.refundsMade(c.psp), 1);
    } finally {
      w.fake.setWebhookUrl(undefined);
    }
  });
}

test("the janitor leaves a pending live refund to the live reconciliation while it is being asked about", async () => {
  const w = apps.mercadopago;
  const c = await paidCharge(w);
  const res = await refundAtPendingProvider(w, c.id, { amount: 10 });
  const id = res.json().id as string;
  // Even as if the lease had long passed, a refund just sent is not the janitor's.
  await w.t.database.db.update(refunds).set({ createdAt: sql`now() - interval '1 hour'` }).where(eq(refunds.id, id));
  const before = w.fake.requests.length;
  await w.t.services.modules.charges.refunds.reconcilePending(60_000);
  assert.equal(w.fake.requests.length, before, "no provider call");
  assert.equal((await refundRow(w, id)).status, "pending");
});
