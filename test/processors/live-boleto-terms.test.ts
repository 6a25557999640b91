import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { createCharge, get, methodCharge, post } from "../helpers/charges.js";
import { amountOn } from "../helpers/fake-pagarme-boleto.js";
import { chargeRow, ledgerOf, startLiveWorld, type LiveWorld } from "./live-shared.js";

// A live boleto's collection terms (issue 48 item 4) travel in each processor's own documented
// fields: Pagar.me's boleto `fine`, `interest` and `max_days_to_pay_past_due`; a payment that
// differs from the amount (late, with the fine and interest the bank added) is read back from the
// processor and kept as paidAmount with its breakdown. A term a processor cannot carry (Pagar.me's
// discount, every term at Mercado Pago) is a 422 naming the field and the processor, before any call.

let pagarmeWorld: LiveWorld;
let mpWorld: LiveWorld;
before(async () => {
  pagarmeWorld = await startLiveWorld({ boleto: ["pagarme"] });
  mpWorld = await startLiveWorld({ boleto: ["mercadopago"] });
});
after(async () => {
  await Promise.all([pagarmeWorld.close(), mpWorld.close()]);
});

const address = { country: "BR", postalCode: "01310-100", street: "Avenida Paulista", number: "1000", neighborhood: "Bela Vista", city: "São Paulo", state: "SP" };
const customer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" }, address };
const today = () => calendarDate(new Date(), "America/Sao_Paulo");

/** The boleto object of the last order sent to the Pagar.me fake. */
function lastBoleto(w: LiveWorld): Record<string, unknown> {
  const orders = w.pagarme.requests.filter((r) => r.route === "POST /orders");
  const body = JSON.parse(orders.at(-1)!.body) as { payments: { boleto: Record<string, unknown> }[] };
  return body.payments[0]!.boleto;
}

test("Pagar.me: a boleto's fine, interest and last payable day are sent in its boleto fields, a whole percent as percentage, another as flat cents", async () => {
  const w = pagarmeWorld;
  const due = today();
  const c = await createCharge(w.t, w.key, methodCharge({ type: "boleto", dueDate: due, fine: { percent: 2 }, interest: { monthlyPercent: 1 } }, { amount: 100, customer }));
  assert.equal(c.status, "pending");
  const boleto = lastBoleto(w);
  assert.deepEqual(boleto.fine, { days: 1, type: "percentage", amount: 2 });
  assert.deepEqual(boleto.interest, { days: 1, type: "percentage", amount: 1 });
  assert.equal(boleto.max_days_to_pay_past_due, 30);
  // Payable until the end of its last payable day (Brasília), not of the due date.
  const row = await chargeRow(w, c.id);
  assert.equal(calendarDate(new Date(row.expiresAt!.getTime() - 1000), "America/Sao_Paulo"), addDays(due, 30));

  await createCharge(w.t, w.key, methodCharge({ type: "boleto", dueDate: due, fine: { percent: 1.5 }, interest: { monthlyPercent: 0.5 }, payableUntil: addDays(due, 10) }, { amount: 250, customer }));
  const flat = lastBoleto(w);
  assert.deepEqual(flat.fine, { days: 1, type: "flat", amount: 375 });
  assert.deepEqual(flat.interest, { days: 1, type: "flat", amount: 125 });
  assert.equal(flat.max_days_to_pay_past_due, 10);
});

test("Pagar.me: a boleto paid 3 days late with its fine and interest: paidAmount and its breakdown are what Pagar.me says was paid, booked once", async () => {
  const w = pagarmeWorld;
  const due = today();
  const c = await createCharge(w.t, w.key, methodCharge({ type: "boleto", dueDate: due, fine: { percent: 2 }, interest: { monthlyPercent: 1 } }, { amount: 100, customer }));
  const ref = (await chargeRow(w, c.id)).pspRefId!;
  const tx = (w.pagarme.charge(ref)!.last_transaction ?? {}) as Record<string, unknown>;
  const paid = amountOn(10_000, due, tx, addDays(due, 3));
  assert.equal(paid, 10_210, "R$ 100,00 + 2 % fine + 1 % a month for 3 days");
  assert.equal(typeof w.pagarme.pay(ref, paid), "object");
  await w.pagarme.flushWebhooks();
  const body = (await get(w.t, w.key, `/v1/charges/${c.id}`)).json();
  assert.equal(body.status, "paid");
  assert.equal(body.paidAmount, 102.1);
  assert.deepEqual(body.paidBreakdown, { principal: 100, discount: 0, fine: 2, interest: 0.1 });
  // The processor owes what the payer paid; the fine and the interest are the merchant's.
  const ledger = await ledgerOf(w, c.id);
  assert.equal(Math.abs(ledger["platform.processor_receivable"]!), 10_210);
  assert.equal(Object.values(ledger).reduce((s, v) => s + v, 0), 0, JSON.stringify(ledger));
  // Another notice of the same payment changes nothing.
  const again = await w.t.app.inject({ method: "POST", url: "/v1/processors/pagarme/webhooks", payload: { type: "charge.paid", data: { code: c.id } } });
  assert.equal(again.statusCode, 200, again.body);
  assert.deepEqual(await ledgerOf(w, c.id), ledger);
});

test("Pagar.me: a boleto's discount (not in its boleto reference) is a 422 naming the field and the processor, nothing sent", async () => {
  const w = pagarmeWorld;
  const sent = w.pagarme.requests.length;
  const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "boleto", dueDate: addDays(today(), 5), discount: { percent: 5, until: today() } }, { customer }));
  assert.equal(res.statusCode, 422, res.body);
  assert.equal(res.json().message, "paymentMethod.discount: a boleto's discount is not served by processor pagarme");
  assert.equal(w.pagarme.requests.length, sent);
});

test("the Pagar.me fake validates a boleto's fine and interest as the reference documents them", async () => {
  const w = pagarmeWorld;
  const res = await fetch(`${w.pagarme.url}/orders`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Basic ${Buffer.from(`${w.pagarme.secretKey}:`).toString("base64")}` },
    body: JSON.stringify({
      code: "fake-terms", items: [{ amount: 1000, description: "x", quantity: 1 }],
      customer: { name: "Maria Silva", email: "m@example.com", type: "individual", document: "52998224725", document_type: "CPF" },
      payments: [{ payment_method: "boleto", boleto: { fine: { days: 1, amount: 2 }, interest: { days: 1, type: "percentage", amount: 0.5 }, max_days_to_pay_past_due: -1 } }],
    }),
  });
  assert.equal(res.status, 422);
  const errors = ((await res.json()) as { errors: Record<string, string[]> }).errors;
  assert.deepEqual(Object.keys(errors).sort(), ["payments[0].boleto.fine.type", "payments[0].boleto.interest.amount", "payments[0].boleto.max_days_to_pay_past_due"]);
});

test("Mercado Pago: a boleto's fine, interest or discount, or a boleto payable after its due date, is a 422 naming the field and the processor, nothing sent", async () => {
  const w = mpWorld;
  const due = addDays(today(), 5);
  const sent = w.mercadopago.requests.length;
  const cases: [Record<string, unknown>, string][] = [
    [{ fine: { percent: 2 } }, "paymentMethod.fine: a boleto's fine is not served by processor mercadopago"],
    [{ interest: { monthlyPercent: 1 } }, "paymentMethod.interest: a boleto's interest is not served by processor mercadopago"],
    [{ discount: { amount: 5, until: today() } }, "paymentMethod.discount: a boleto's discount is not served by processor mercadopago"],
    [{ payableUntil: addDays(due, 3) }, "paymentMethod.payableUntil: a boleto payable after its due date is not served by processor mercadopago"],
  ];
  for (const [terms, message] of cases) {
    const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "boleto", dueDate: due, ...terms }, { customer }));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().message, message);
  }
  assert.equal(w.mercadopago.requests.length, sent);
  // Its due date alone goes, as date_of_expiration.
  const ok = await createCharge(w.t, w.key, methodCharge({ type: "boleto", dueDate: due, payableUntil: due }, { customer }));
  assert.equal(ok.status, "pending");
});
