import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { isValidPixPayload } from "@brazilian-utils/brazilian-utils/is-valid-pix-payload";
import { queryRows, sql } from "../../src/db/client.js";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { parseBrCode } from "../../src/lib/pix.js";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { createCharge, customer, get, methodCharge, post } from "../helpers/charges.js";

// Boleto and Pix with a due date, a fine, interest and a discount (issue 48 items 1 and 2): the
// terms checked (422 naming the field, nothing written), the amount due on the test clock's day,
// the sandbox's payment of it, its breakdown and the ledger; the boleto's Pix BR Code.

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => t.close());

const today = () => calendarDate(new Date(), "America/Sao_Paulo");
const chargeCount = async () => (await queryRows<{ n: string }>(t.database.db, sql`select count(*)::text as n from charges`))[0]!.n;
const advance = async (key: string, days: number) => expectStatus(await post(t, key, "/v1/sandbox/clock/advance", { days }), 200);

test("bad terms are a 422 naming the field, and nothing is written", async () => {
  const due = addDays(today(), 5);
  const before = await chargeCount();
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ type: "boleto", dueDate: due, fine: { percent: 2.01 } }, /paymentMethod\.fine\.percent/],
    [{ type: "boleto", dueDate: due, interest: { monthlyPercent: 1.5 } }, /paymentMethod\.interest\.monthlyPercent/],
    [{ type: "boleto", dueDate: due, fine: { percent: 1.005 } }, /paymentMethod\.fine\.percent must have at most 2 decimals/],
    [{ type: "boleto", dueDate: due, discount: { percent: 5, until: addDays(due, 1) } }, /paymentMethod\.discount\.until must not be after paymentMethod\.dueDate/],
    [{ type: "boleto", dueDate: due, discount: { percent: 5, amount: 1, until: due } }, /paymentMethod\.discount needs exactly one of amount or percent/],
    [{ type: "boleto", dueDate: due, discount: { amount: 50.5, until: due } }, /paymentMethod\.discount\.amount must be greater than 0 and less than amount/],
    [{ type: "boleto", dueDate: due, fine: { percent: 2 }, payableUntil: addDays(due, -1) }, /paymentMethod\.payableUntil must not be before paymentMethod\.dueDate/],
    [{ type: "pix", fine: { percent: 2 } }, /paymentMethod\.dueDate is required/],
    [{ type: "pix", dueDate: addDays(today(), -1) }, /paymentMethod\.dueDate must not be before today/],
  ];
  for (const [pm, message] of cases) {
    const res = await post(t, m.sandboxKey, "/v1/charges", methodCharge(pm));
    assert.equal(res.statusCode, 422, `${JSON.stringify(pm)}: ${res.body}`);
    assert.match(res.json().message, message, JSON.stringify(pm));
  }
  // A Pix with a due date names its payer (the Central Bank's cobv): CPF or CNPJ, and name.
  const noDocument = await post(t, m.sandboxKey, "/v1/charges", methodCharge({ type: "pix", dueDate: due }, { customer: { name: "Ana", email: "ana@example.com" } }));
  assert.equal(noDocument.statusCode, 422, noDocument.body);
  assert.match(noDocument.json().message, /paymentMethod\.dueDate: a Pix with a due date needs the buyer's customer\.document/);
  assert.equal(await chargeCount(), before, "no charge written");
});

test("a boleto with fine, interest and discount: amountDue follows the test clock, the sandbox pays it, the breakdown and the ledger show it", async () => {
  const s = await seedMerchant(t);
  const due = addDays(today(), 3);
  const c = await createCharge(t, s.sandboxKey, {
    amount: 1000, currency: "BRL", customer,
    paymentMethod: { type: "boleto", dueDate: due, fine: { percent: 2 }, interest: { monthlyPercent: 1 }, discount: { amount: 10, until: addDays(today(), 1) } },
  });
  const read = async () => (await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json();
  let charge = await read();
  assert.equal(charge.amountDue, 990, "before discount.until: the amount less the discount");
  assert.deepEqual(charge.paymentMethod, {
    type: "boleto", dueDate: due, payableUntil: addDays(due, 30), fine: { percent: 2 }, interest: { monthlyPercent: 1 }, discount: { amount: 10, until: addDays(today(), 1) },
  });
  assert.equal(charge.paymentDetails.dueDate.slice(0, 10), due);
  assert.equal(calendarDate(new Date(charge.expiresAt), "America/Sao_Paulo"), addDays(due, 30), "expires after payableUntil (30 days after the due date by default)");
  assert.equal(charge.paidAmount, null);

  await advance(s.sandboxKey, 3);
  assert.equal((await read()).amountDue, 1000, "on the due date: the amount");
  await advance(s.sandboxKey, 10);
  // 10 days late: fine 20.00, interest 1000 x 1 % x 10 / 30 = 3.333 -> 3.33
  charge = await read();
  assert.equal(charge.amountDue, 1023.33);

  const paid = await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`);
  expectStatus(paid, 200);
  charge = await read();
  assert.equal(charge.status, "paid");
  assert.equal(charge.amountDue, null);
  assert.equal(charge.paidAmount, 1023.33);
  assert.deepEqual(charge.paidBreakdown, { principal: 1000, discount: 0, fine: 20, interest: 3.33 });

  // The fine and interest are the originator's: the processor owes the whole payment, the
  // merchant's pending balance is the net plus 23.33, and the books balance.
  const entries = await queryRows<{ owner: string; account: string; amount: string }>(t.database.db, sql`
    select e.owner, e.account, e.amount::text from ledger_entries e join ledger_transactions x on x.id = e.transaction_id
    where x.source_id = ${c.id} order by e.account`);
  const of = (account: string) => Number(entries.find((e) => e.account === account)!.amount);
  assert.equal(of("processor_receivable"), -102_333);
  assert.equal(of("pending"), Math.round(charge.net * 100) + 2_333);
  assert.equal(entries.reduce((sum, e) => sum + Number(e.amount), 0), 0);
});

test("a boleto is paid with its discount before discount.until; plain charges show amountDue and a plain breakdown", async () => {
  const s = await seedMerchant(t);
  const c = await createCharge(t, s.sandboxKey, methodCharge({ type: "boleto", discount: { percent: 10, until: today() } }));
  const before = (await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(before.amountDue, 45.45, "10 % off 50.50 = 5.05");
  assert.equal(before.paymentMethod.payableUntil, before.paymentMethod.dueDate, "no fine or interest: payable until the due date");
  expectStatus(await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 200);
  assert.deepEqual((await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json().paidBreakdown, { principal: 50.5, discount: 5.05, fine: 0, interest: 0 });

  const plain = await createCharge(t, s.sandboxKey, methodCharge({ type: "pix" }));
  assert.equal((await get(t, s.sandboxKey, `/v1/charges/${plain.id}`)).json().amountDue, 50.5);
  expectStatus(await post(t, s.sandboxKey, `/v1/sandbox/charges/${plain.id}/pay`), 200);
  const paid = (await get(t, s.sandboxKey, `/v1/charges/${plain.id}`)).json();
  assert.equal(paid.paidAmount, 50.5);
  assert.deepEqual(paid.paidBreakdown, { principal: 50.5, discount: 0, fine: 0, interest: 0 });
});

test("a Pix with a due date: payable until payableUntil on the test clock, then the sandbox's pay is a 409", async () => {
  const s = await seedMerchant(t);
  const due = addDays(today(), 1);
  const c = await createCharge(t, s.sandboxKey, methodCharge({ type: "pix", dueDate: due, fine: { percent: 1 }, payableUntil: addDays(due, 2) }));
  const charge = (await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json();
  assert.equal(charge.paymentDetails.dueDate, due);
  assert.equal(calendarDate(new Date(charge.expiresAt), "America/Sao_Paulo"), addDays(due, 2));
  assert.equal(parseBrCode(charge.paymentDetails.qrCode).crcValid, true);
  await advance(s.sandboxKey, 2);
  assert.equal((await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json().amountDue, 51.01, "one day late: 1 % fine of 50.50 = 0.505 -> 0.51");
  await advance(s.sandboxKey, 2);
  const late = await post(t, s.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`);
  assert.equal(late.statusCode, 409, late.body);
  assert.match(late.json().message, /payable until/);
  assert.equal((await get(t, s.sandboxKey, `/v1/charges/${c.id}`)).json().status, "pending");
});

test("the boleto with Pix: paymentDetails.pixQrCode is a valid BR Code for the same charge and amount, under an independent parser", async () => {
  const c = await createCharge(t, m.sandboxKey, methodCharge({ type: "boleto" }));
  const d = c.paymentDetails as Record<string, string>;
  assert.ok(d.digitableLine, "still a boleto");
  assert.equal(isValidPixPayload(d.pixQrCode!), true, d.pixQrCode);
  const parsed = parseBrCode(d.pixQrCode!);
  assert.equal(parsed.fields.get("54"), "50.50");
  assert.equal(parsed.additional.get("05"), d.txid);
  assert.match(d.pixQrCodeImage!, /^data:image\/png;base64,/);
  // Paid once, by whichever: a second payment finds it paid.
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 200);
  expectStatus(await post(t, m.sandboxKey, `/v1/sandbox/charges/${c.id}/pay`), 409);
});

test("refunds are of what the payer paid: a late boleto refunds its fine and interest too, one paid with its discount never more than was paid", async () => {
  const s = await seedMerchant(t);
  const ledgerOf = async (chargeId: string) => queryRows<{ owner: string; account: string; amount: string }>(t.database.db, sql`
    select e.owner, e.account, e.amount::text from ledger_entries e join ledger_transactions x on x.id = e.transaction_id
    where x.source_id = ${chargeId} or x.source_id in (select id from refunds where charge_id = ${chargeId})`);
  const byAccount = (rows: { owner: string; account: string; amount: string }[], owner: string, account: string) =>
    rows.filter((e) => e.owner === owner && e.account === account).reduce((sum, e) => sum + Number(e.amount), 0);

  // Paid 10 days late: 1000 + fine 20.00 + interest 3.33.
  const late = await createCharge(t, s.sandboxKey, { amount: 1000, currency: "BRL", customer, paymentMethod: { type: "boleto", dueDate: today(), fine: { percent: 2 }, interest: { monthlyPercent: 1 } } });
  await advance(s.sandboxKey, 10);
  expectStatus(await post(t, s.sandboxKey, `/v1/sandbox/charges/${late.id}/pay`), 200);
  const partial = await post(t, s.sandboxKey, `/v1/charges/${late.id}/refund`, { amount: 1000 });
  expectStatus(partial, 201);
  const tooMuch = await post(t, s.sandboxKey, `/v1/charges/${late.id}/refund`, { amount: 23.34 });
  assert.equal(tooMuch.statusCode, 422, tooMuch.body);
  assert.equal(tooMuch.json().code, "refund_exceeds_refundable");
  assert.match(tooMuch.json().message, /refundable rest of 23\.33 BRL/);
  const rest = await post(t, s.sandboxKey, `/v1/charges/${late.id}/refund`, {});
  expectStatus(rest, 201);
  assert.equal(rest.json().amount, 23.33, "the rest is the fine and the interest");
  const refunded = (await get(t, s.sandboxKey, `/v1/charges/${late.id}`)).json();
  assert.equal(refunded.status, "refunded");
  assert.equal(refunded.amountRefunded, 1023.33);
  // The books: the processor gave back all it collected, the fine and interest came out of the
  // merchant's balance with the rest, and nothing is left anywhere but the kept fee.
  const lateRows = await ledgerOf(late.id);
  assert.equal(byAccount(lateRows, "platform", "processor_receivable"), 0, "the processor owes nothing more");
  assert.equal(lateRows.reduce((sum, e) => sum + Number(e.amount), 0), 0);

  // Paid with its 10 % discount: 45.45 of 50.50. A refund of 50.50 is refused; the whole refund is 45.45.
  // (Another merchant: the first one's test clock is 10 days on.)
  const d = await seedMerchant(t);
  const early = await createCharge(t, d.sandboxKey, methodCharge({ type: "boleto", discount: { percent: 10, until: today() } }));
  expectStatus(await post(t, d.sandboxKey, `/v1/sandbox/charges/${early.id}/pay`), 200);
  const over = await post(t, d.sandboxKey, `/v1/charges/${early.id}/refund`, { amount: 50.5 });
  assert.equal(over.statusCode, 422, over.body);
  assert.equal(over.json().code, "refund_exceeds_refundable");
  const whole = await post(t, d.sandboxKey, `/v1/charges/${early.id}/refund`, {});
  expectStatus(whole, 201);
  assert.equal(whole.json().amount, 45.45);
  assert.equal((await get(t, d.sandboxKey, `/v1/charges/${early.id}`)).json().status, "refunded");
  const earlyRows = await ledgerOf(early.id);
  assert.equal(byAccount(earlyRows, "platform", "processor_receivable"), 0);
  assert.equal(earlyRows.reduce((sum, e) => sum + Number(e.amount), 0), 0);
});
