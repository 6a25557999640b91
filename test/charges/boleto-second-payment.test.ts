import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, customer, get, post } from "../helpers/charges.js";

// The boleto with Pix (issue 48 item 2): whichever the payer uses first settles the charge once;
// when the other is paid too, that second payment is refunded in full as a late payment is
// (charge.late_payment_refunded, received and refunded on the ledger), exactly once, and the
// charge stays paid by the first. Over HTTP in the sandbox, on the test clock's day.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => t.close());

const today = () => calendarDate(new Date(), "America/Sao_Paulo");

async function ledgerRows(chargeId: string) {
  return queryRows<{ type: string; account: string; amount: string }>(t.database.db, sql`
    select x.type, e.account, e.amount::text from ledger_entries e join ledger_transactions x on x.id = e.transaction_id
    where x.source_id = ${chargeId} order by x.type, e.account`);
}
async function eventCount(chargeId: string, type: string): Promise<number> {
  const [row] = await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from events where object_id = ${chargeId} and type = ${type}`);
  return Number(row!.n);
}

test("a boleto paid late by its line, then by its Pix: the Pix's payment (with the day's fine and interest) is refunded once, the charge stays paid, the ledger sums to zero", async () => {
  const s = await seedMerchant(t);
  const due = addDays(today(), 2);
  const c = await createCharge(t, s.sandboxKey, {
    amount: 1000, currency: "BRL", customer, paymentMethod: { type: "boleto", dueDate: due, fine: { percent: 2 }, interest: { monthlyPercent: 1 } },
  });
  assert.ok(c.paymentDetails?.pixQrCode, "the boleto carries a Pix");
  expectStatus(await post(t, s.sandboxKey, "/v1/sandbox/clock/advance", { days: 5 }), 200);
  // 3 days late: 1000 + 20 fine + 1000 x 1 % x 3 / 30 = 1 interest.
  expectStatus(await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "boleto" }), 200);
  const first = (await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(first.paidAmount, 1021);
  assert.equal(first.paymentDetails.paidWith, "boleto");
  const afterFirst = await ledgerRows(c.id);

  // Paying the same boleto again is not a second payment of another instrument: 409.
  assert.equal((await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "boleto" })).statusCode, 409);

  // The boleto's Pix paid as well: refunded in full, once.
  const second = await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "pix" });
  expectStatus(second, 200);
  assert.equal(second.json().status, "paid");
  const again = await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "pix" });
  assert.equal(again.statusCode, 409, again.body);

  const charge = (await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(charge.status, "paid");
  assert.equal(charge.paidAmount, 1021, "the first payment stands");
  assert.equal(charge.amountRefunded, 0, "the first payment was not refunded");
  assert.equal(await eventCount(c.id, "charge.paid"), 1);
  assert.equal(await eventCount(c.id, "charge.late_payment_refunded"), 1);

  const rows = await ledgerRows(c.id);
  const late = rows.filter((r) => r.type === "late_payment" || r.type === "late_payment_refund");
  assert.deepEqual(late.map((r) => [r.type, r.account, Number(r.amount)]), [
    ["late_payment", "processor_receivable", -102_100], ["late_payment", "refund_payable", 102_100],
    ["late_payment_refund", "processor_receivable", 102_100], ["late_payment_refund", "refund_payable", -102_100],
  ]);
  // The charge's own posting is unchanged, and every entry of the charge sums to zero.
  assert.deepEqual(rows.filter((r) => !late.includes(r)), afterFirst);
  assert.equal(rows.reduce((sum, r) => sum + Number(r.amount), 0), 0);
});

test("a boleto paid by its Pix first: its line paid after is the second payment, refunded once", async () => {
  const s = await seedMerchant(t);
  const c = await createCharge(t, s.sandboxKey, { amount: 80, currency: "BRL", customer, paymentMethod: { type: "boleto" } });
  expectStatus(await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "pix" }), 200);
  expectStatus(await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "boleto" }), 200);
  assert.equal((await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`, { via: "boleto" })).statusCode, 409);
  assert.equal((await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`)).statusCode, 409, "no via: as before, a paid charge is not paid again");
  assert.equal(await eventCount(c.id, "charge.late_payment_refunded"), 1);
  const rows = await ledgerRows(c.id);
  assert.equal(rows.filter((r) => r.type === "late_payment" && r.account === "refund_payable").map((r) => Number(r.amount)).join(), "8000");
  assert.equal(rows.reduce((sum, r) => sum + Number(r.amount), 0), 0);
});
