import { test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { findCharge } from "../../src/modules/charges/charges.repo.js";
import { buildTestApp, seedMerchant } from "../helpers/app.js";
import { cardCharge, createCharge, methodCharge } from "../helpers/charges.js";
import { startFakePagarme } from "../helpers/fake-pagarme.js";

// Reconciliation reads at most 50 open live charges a round. Pix and boletos awaiting their
// payers stay open for hours or days; if every round read the 50 oldest, a newer charge whose
// answer was lost would never be read again while more than 50 older ones stay open. Rounds
// go on from where the last one stopped, so every open charge is read within a few rounds.

const pixCustomer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" } };

/** A live app routed to a Pagar.me fake that sends no notices: only reconciliation tells feira. */
async function pagarmeWorld() {
  const pagarme = await startFakePagarme();
  const t = await buildTestApp({
    live: { ...NO_LIVE_PROCESSORS, routes: { pix: ["pagarme"], credit_card: ["pagarme"] }, processors: { pagarme: { secretKey: pagarme.secretKey, apiUrl: pagarme.url } }, timeoutMs: 5_000 },
  }, { noWorkerProcesses: "the test runs charges.reconcile-live by hand" });
  const m = await seedMerchant(t);
  const reconcile = () => t.services.modules.charges.tasks.find((k) => k.name === "charges.reconcile-live")!.run();
  return { pagarme, t, m, reconcile };
}

test("a charge behind more than one batch of open Pix is settled by the reconciliation within a few rounds", async () => {
  const { pagarme, t, m, reconcile } = await pagarmeWorld();
  try {
    const open: string[] = [];
    for (let i = 0; i < 60; i++) {
      const pix = await createCharge(t, m.productionKey, methodCharge({ type: "pix" }, { customer: pixCustomer }));
      assert.equal(pix.status, "pending");
      open.push(pix.id);
    }
    // The card is paid at Pagar.me, but the answer never reaches feira: pending, found by lookup only.
    await pagarme.setFault("lost-answer", { times: 1, match: "POST /orders" });
    const card = await createCharge(t, m.productionKey, cardCharge("4000000000000010", { customer: pixCustomer }));
    assert.equal(card.status, "pending");
    assert.equal(pagarme.ordersCreated(card.id), 1);

    const status = async (id: string) => (await findCharge(t.database.db, { merchantId: m.id, environment: "production" }, id))!.status;
    const settle = async (id: string) => {
      const rounds: string[] = [];
      for (let round = 0; round < 3 && (await status(id)) !== "paid"; round++) rounds.push(`round ${round + 1}: ${await reconcile()} moved`);
      assert.equal(await status(id), "paid", `${id} still open after ${rounds.join(", ")}`);
    };
    await settle(card.id);
    // After the newest, the rounds go back to the oldest: the first Pix, paid now, is read again.
    const oldest = [...pagarme.charges.values()].find((c) => c.code === open[0])!;
    assert.equal(typeof pagarme.pay(oldest.id), "object");
    await settle(open[0]!);
  } finally {
    await t.close();
    await pagarme.close();
  }
});

test("open charges created within one millisecond do not stall the rotation (the cursor keeps no truncated time)", async () => {
  const { pagarme, t, m, reconcile } = await pagarmeWorld();
  try {
    const open: string[] = [];
    for (let i = 0; i < 55; i++) open.push((await createCharge(t, m.productionKey, methodCharge({ type: "pix" }, { customer: pixCustomer }))).id);
    await pagarme.setFault("lost-answer", { times: 1, match: "POST /orders" });
    const card = await createCharge(t, m.productionKey, cardCharge("4000000000000010", { customer: pixCustomer }));
    assert.equal(card.status, "pending");
    // A burst: every open charge created in the same millisecond, a microsecond apart, in id order.
    const ids = [...open, card.id];
    await t.database.db.execute(sql`
      update charges set created_at = timestamptz '2026-11-27 10:00:00.123000+00' + (x.n * interval '1 microsecond')
      from unnest(array[${sql.join(ids.map((id) => sql`${id}`), sql`, `)}]::text[]) with ordinality as x(id, n) where charges.id = x.id`);
    const status = async (id: string) => (await findCharge(t.database.db, { merchantId: m.id, environment: "production" }, id))!.status;
    const rounds: string[] = [];
    for (let round = 0; round < 3 && (await status(card.id)) !== "paid"; round++) rounds.push(`round ${round + 1}: ${await reconcile()} moved`);
    assert.equal(await status(card.id), "paid", `still open after ${rounds.join(", ")}`);
  } finally {
    await t.close();
    await pagarme.close();
  }
});

test("late payments whose refund stays unconfirmed do not starve a newer one, and /metrics counts them", async () => {
  const { pagarme, t, m, reconcile } = await pagarmeWorld();
  try {
    // 50 late payments whose refund the provider will not confirm (a full batch): Pix charges
    // still pending at Pagar.me, marked failed with their late payment's refund pending.
    const stuck: string[] = [];
    for (let i = 0; i < 50; i++) stuck.push((await createCharge(t, m.productionKey, methodCharge({ type: "pix" }, { customer: pixCustomer }))).id);
    await t.database.db.execute(sql`update charges set status = 'failed', reason = 'processing_error', late_payment = 'refund_pending',
      updated_at = now() - interval '2 hours' where id in (${sql.join(stuck.map((id) => sql`${id}`), sql`, `)})`);
    // Newer than all of them: a refused card that Pagar.me reports paid, its refund not asked yet
    // (the settled sweep reads paid and expired charges only: this one is reached by the late
    // refunds' round alone).
    const card = await createCharge(t, m.productionKey, cardCharge("4000000000000010", { customer: pixCustomer }));
    assert.equal(card.status, "paid");
    await t.database.db.execute(sql`update charges set status = 'refused', late_payment = 'refund_pending' where id = ${card.id}`);
    const row = async () => (await findCharge(t.database.db, { merchantId: m.id, environment: "production" }, card.id))!;
    const late = async () => (await row()).latePayment;
    const rounds: string[] = [];
    for (let round = 0; round < 3 && (await late()) !== "refunded"; round++) rounds.push(`round ${round + 1}: ${await reconcile()} moved`);
    assert.equal(await late(), "refunded", `the newest late payment was never read: ${rounds.join(", ")}`);
    assert.equal(pagarme.refundsMade((await row()).pspRefId!), 1);

    const metrics = (await t.app.inject({ url: "/metrics" })).body;
    assert.match(metrics, /^feira_late_refunds_pending 50$/m);
    const oldest = Number(/^feira_late_refunds_pending_oldest_seconds (\d+)$/m.exec(metrics)?.[1]);
    assert.ok(oldest >= 7_200 && oldest < 7_300, `oldest ${oldest} s`);
  } finally {
    await t.close();
    await pagarme.close();
  }
});
