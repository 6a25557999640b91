// Disputes in the sandbox (contract section 11): the object, its list and read routes, the
// charge showing it, its events, and its money: opening takes the amount, won returns it, lost
// keeps it and ends the charge; each move once, the ledger summing to zero throughout.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { get, methodCharge, createCharge, post } from "../helpers/charges.js";
import { assertLedgerInvariants, FILES } from "../connect/helpers.js";
import { closeDispute, eventTypes, getDispute, heldBy, openDispute, paidCard, paidPix, sendEvidence, type DisputeBody } from "./helpers.js";

let t: TestApp;
let m: SeededMerchant;
let other: SeededMerchant;

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  other = await seedMerchant(t);
});
after(async () => { await t?.close(); });

const PDF = { field: "files", filename: "receipt.pdf", contentType: "application/pdf", content: FILES.pdf };

test("opening a dispute takes its amount from the balance; the dispute is listed, read and shown on its charge", async () => {
  const before = await heldBy(t, m.sandboxKey);
  const c = await paidCard(t, m.sandboxKey, 100);
  const paid = await heldBy(t, m.sandboxKey);
  const d = await openDispute(t, m.sandboxKey, c.id, { reason: "product_not_received" });
  assert.equal(d.chargeId, c.id);
  assert.equal(d.kind, "chargeback");
  assert.equal(d.status, "needs_response");
  assert.equal(d.reason, "product_not_received");
  assert.equal(d.amount, 100);
  assert.equal(d.evidence, null);
  assert.match(d.id, /^dp_/);
  const due = Date.parse(d.evidenceDueBy) - Date.now();
  assert.ok(due > 6 * 86_400_000 && due <= 7 * 86_400_000, `due in 7 days: ${d.evidenceDueBy}`);
  // The whole gross leaves; the fees are kept, as a refund keeps them.
  assert.equal(await heldBy(t, m.sandboxKey), before + (paid - before) - 10_000);

  assert.deepEqual(await getDispute(t, m.sandboxKey, d.id), d);
  const charge = await get(t, m.sandboxKey, `/v1/charges/${c.id}`);
  expectStatus(charge, 200);
  assert.deepEqual(charge.json().disputes, [d]);
  assert.equal(charge.json().status, "paid");
  const listed = await get(t, m.sandboxKey, `/v1/disputes?chargeId=${c.id}&status=needs_response&kind=chargeback`);
  expectStatus(listed, 200);
  assert.deepEqual(listed.json(), { data: [d], meta: { total: 1, page: 1, limit: 10, totalPages: 1 } });
  assert.deepEqual((await get(t, m.sandboxKey, `/v1/disputes?chargeId=${c.id}&kind=pix_med`)).json().data, []);
  assert.deepEqual(await eventTypes(t, m.sandboxKey, d.id), ["charge.dispute.created"]);

  // What a dispute holds cannot be refunded, and the charge cannot be disputed twice at once.
  const refund = await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, {});
  expectStatus(refund, 422);
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/dispute`, {}), 409);
  await assertLedgerInvariants(t);
});

test("evidence once, then won: the amount comes back, exactly once", async () => {
  const c = await paidCard(t, m.sandboxKey, 60);
  const start = await heldBy(t, m.sandboxKey);
  const d = await openDispute(t, m.sandboxKey, c.id);
  // Not under review yet: the sandbox decides only after evidence.
  expectStatus(await closeDispute(t, m.sandboxKey, d.id, "won"), 409);
  const sent = await sendEvidence(t, m.sandboxKey, d.id, [{ field: "text", content: "Delivered and signed for." }, PDF]);
  expectStatus(sent, 200);
  const reviewed = sent.json() as DisputeBody;
  assert.equal(reviewed.status, "under_review");
  assert.equal(reviewed.evidence?.text, "Delivered and signed for.");
  assert.deepEqual(reviewed.evidence?.files.map((f) => [f.name, f.contentType, f.size]), [["receipt.pdf", "application/pdf", FILES.pdf.length]]);
  assert.ok(reviewed.submittedAt);
  // Once.
  expectStatus(await sendEvidence(t, m.sandboxKey, d.id, [{ field: "text", content: "again" }]), 422);

  const won = await closeDispute(t, m.sandboxKey, d.id, "won");
  expectStatus(won, 200);
  assert.equal(won.json().status, "won");
  assert.ok(won.json().closedAt);
  assert.equal(await heldBy(t, m.sandboxKey), start);
  // A second decision changes nothing.
  expectStatus(await closeDispute(t, m.sandboxKey, d.id, "lost"), 409);
  expectStatus(await closeDispute(t, m.sandboxKey, d.id, "won"), 409);
  assert.equal(await heldBy(t, m.sandboxKey), start);
  const charge = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(charge.status, "paid");
  assert.deepEqual(await eventTypes(t, m.sandboxKey, d.id), ["charge.dispute.created", "charge.dispute.updated", "charge.dispute.closed"]);
  // Won, the charge is the merchant's again: it can be refunded.
  expectStatus(await post(t, m.sandboxKey, `/v1/charges/${c.id}/refund`, { amount: 10 }), 201);
  await assertLedgerInvariants(t);
});

test("lost keeps the amount taken and the charge becomes charged_back, taking nothing more", async () => {
  const c = await paidCard(t, m.sandboxKey, 40);
  const start = await heldBy(t, m.sandboxKey);
  const d = await openDispute(t, m.sandboxKey, c.id);
  const opened = await heldBy(t, m.sandboxKey);
  assert.equal(opened, start - 4000);
  const accepted = await post(t, m.sandboxKey, `/v1/disputes/${d.id}/accept`);
  expectStatus(accepted, 200);
  assert.equal(accepted.json().status, "lost");
  assert.equal(await heldBy(t, m.sandboxKey), opened);
  const charge = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(charge.status, "charged_back");
  assert.deepEqual(charge.disputes.map((x: DisputeBody) => x.status), ["lost"]);
  expectStatus(await post(t, m.sandboxKey, `/v1/disputes/${d.id}/accept`), 409);
  expectStatus(await sendEvidence(t, m.sandboxKey, d.id, [{ field: "text", content: "late" }]), 422);
  assert.deepEqual(await eventTypes(t, m.sandboxKey, c.id), ["charge.created", "charge.paid", "charge.disputed"]);
  assert.deepEqual(await eventTypes(t, m.sandboxKey, d.id), ["charge.dispute.created", "charge.dispute.closed"]);
  await assertLedgerInvariants(t);
});

test("a Pix MED lost returns the money to the payer: the charge is refunded", async () => {
  const c = await paidPix(t, m.sandboxKey, 80);
  const start = await heldBy(t, m.sandboxKey);
  const d = await openDispute(t, m.sandboxKey, c.id, { kind: "pix_med" });
  assert.equal(d.kind, "pix_med");
  expectStatus(await sendEvidence(t, m.sandboxKey, d.id, [{ field: "text", content: "The payer received the goods." }]), 200);
  expectStatus(await closeDispute(t, m.sandboxKey, d.id, "lost"), 200);
  const charge = (await get(t, m.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(charge.status, "refunded");
  assert.equal(charge.amountRefunded, 80);
  assert.equal(await heldBy(t, m.sandboxKey), start - 8000);
  await assertLedgerInvariants(t);
});

test("the sandbox refuses what it cannot dispute, and nothing opens", async () => {
  const pending = await createCharge(t, m.sandboxKey, methodCharge({ type: "pix" }));
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${pending.id}/dispute`, {}), 409);
  const boleto = await createCharge(t, m.sandboxKey, methodCharge({ type: "boleto" }));
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${boleto.id}/pay`), 200);
  const wrongMethod = await post(t, m.sandboxKey, `/v1/sandbox/charges/${boleto.id}/dispute`, {});
  expectStatus(wrongMethod, 422);
  const card = await paidCard(t, m.sandboxKey, 10);
  const wrongKind = await post(t, m.sandboxKey, `/v1/sandbox/charges/${card.id}/dispute`, { kind: "pix_med" });
  expectStatus(wrongKind, 422);
  assert.match(wrongKind.json().message, /kind/);
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${card.id}/dispute`, { reason: "Not A Reason!" }), 422);
  expectStatus(await post(t, m.productionKey, `/v1/sandbox/charges/${card.id}/dispute`, {}), 403);
  expectStatus(await post(t, other.sandboxKey, `/v1/sandbox/charges/${card.id}/dispute`, {}), 404);
  for (const id of [pending.id, boleto.id, card.id]) {
    assert.deepEqual((await get(t, m.sandboxKey, `/v1/disputes?chargeId=${id}`)).json().data, []);
  }
});

test("another merchant's or environment's disputes are not found", async () => {
  const c = await paidCard(t, m.sandboxKey, 15);
  const d = await openDispute(t, m.sandboxKey, c.id);
  expectStatus(await get(t, other.sandboxKey, `/v1/disputes/${d.id}`), 404);
  expectStatus(await get(t, m.productionKey, `/v1/disputes/${d.id}`), 404);
  expectStatus(await post(t, other.sandboxKey, `/v1/disputes/${d.id}/accept`), 404);
  expectStatus(await sendEvidence(t, other.sandboxKey, d.id, [{ field: "text", content: "x" }]), 404);
  assert.equal((await get(t, other.sandboxKey, "/v1/disputes")).json().meta.total, 0);
  expectStatus(await get(t, m.sandboxKey, "/v1/disputes?status=open"), 422);
  expectStatus(await get(t, m.sandboxKey, "/v1/disputes?limit=0"), 422);
});
