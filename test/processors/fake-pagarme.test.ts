import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parseBrCode } from "../../src/lib/pix.js";
import { PAGARME_TEST_CARDS } from "../helpers/fake-pagarme-model.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";

// The Pagar.me v5 fake, exercised over HTTP as feira's adapter will use it: what it answers,
// how it keeps an idempotency key, what its webhooks carry, and each fault mode.

type Obj = Record<string, any>;
let f: FakePagarme;
let hooks: Receiver;
before(async () => {
  hooks = await startReceiver();
  f = await startFakePagarme({ webhookUrl: hooks.url, webhookRetryDelayMs: 20 });
});
after(async () => { await f.close(); await hooks.close(); });

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;
async function call(fake: FakePagarme, method: string, path: string, body?: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) {
  const res = await fetch(fake.url + path, {
    method, signal, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: basic(fake.secretKey), "content-type": "application/json", ...headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: (text ? JSON.parse(text) : undefined) as Obj };
}
const phones = { mobile_phone: { country_code: "55", area_code: "11", number: "999998888" } };
const customer = { name: "Maria Silva", email: "maria@example.com", type: "individual", document: "12345678909", document_type: "CPF", phones };
let seq = 0;
const code = () => `ch_test_${++seq}_${Date.now()}`;
const cardOrder = (number: string, extra: Obj = {}) => ({
  code: code(), items: [{ amount: 15000, description: "Pedido", quantity: 1, code: "sku-1" }], customer,
  payments: [{ payment_method: "credit_card", credit_card: { installments: 3, statement_descriptor: "FEIRA", card: { number, holder_name: "MARIA SILVA", exp_month: 12, exp_year: 2035, cvv: "123" }, ...extra } }],
});
const pixOrder = (amount = 2990, cust: Obj = customer) => ({ code: code(), items: [{ amount, description: "Pix", quantity: 1 }], customer: cust, payments: [{ payment_method: "pix", pix: { expires_in: 3600 } }] });
const charge0 = (order: Obj) => order.charges[0] as Obj;
const hooksFor = (id: string) => hooks.requests.map((r) => JSON.parse(r.body) as Obj).filter((h) => h.data.id === id || h.data.charges?.[0]?.id === id || h.data.order?.id === id);

test("auth: Basic with the secret key as user; anything else is a 401 with Pagar.me's message", async () => {
  for (const authorization of ["", basic("sk_test_wrong"), `Bearer ${f.secretKey}`]) {
    const res = await fetch(`${f.url}/orders`, { headers: authorization ? { authorization } : {} });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { message: "Authorization has been denied for this request." });
  }
  const ok = await call(f, "GET", "/orders");
  assert.equal(ok.status, 200, ok.text);
  assert.ok(Array.isArray(ok.body.data) && typeof ok.body.paging.total === "number");
});

test("card with installments: order and charge paid, transaction captured with ABECS 00; GET by id and by code", async () => {
  const body = cardOrder("4000000000000010");
  const res = await call(f, "POST", "/orders", body, { "idempotency-key": `create:${body.code}` });
  assert.equal(res.status, 200, res.text);
  const ch = charge0(res.body);
  assert.match(res.body.id, /^or_/);
  assert.equal(res.body.status, "paid");
  assert.equal(ch.status, "paid");
  assert.equal(ch.paid_amount, 15000);
  assert.equal(ch.last_transaction.status, "captured");
  assert.equal(ch.last_transaction.installments, 3);
  assert.equal(ch.last_transaction.acquirer_return_code, "00");
  assert.equal(ch.last_transaction.card.last_four_digits, "0010");
  assert.ok(!res.text.includes("4000000000000010") && !res.text.includes("\"cvv\""), "the answer never carries the card number or CVV");
  assert.equal((await call(f, "GET", `/orders/${res.body.id}`)).body.status, "paid");
  const byCharge = await call(f, "GET", `/charges/${ch.id}`);
  assert.equal(byCharge.body.order.id, res.body.id);
  const found = await call(f, "GET", `/orders?code=${body.code}`);
  assert.deepEqual(found.body.data.map((o: Obj) => o.id), [res.body.id]);
  assert.equal(f.ordersCreated(body.code), 1);
  assert.equal((await call(f, "GET", "/orders/or_missing")).status, 404);
});

test("declines are orders with a failed charge: each test card gives its ABECS code, or the legacy one", async () => {
  const legacy = await startFakePagarme({ returnCodes: "legacy" });
  try {
    for (const [number, outcome] of Object.entries(PAGARME_TEST_CARDS).filter(([, o]) => o.kind === "declined")) {
      for (const [fake, expected] of [[f, outcome.abecs], [legacy, outcome.legacy]] as const) {
        const res = await call(fake, "POST", "/orders", cardOrder(number));
        assert.equal(res.status, 200, res.text);
        assert.equal(res.body.status, "failed", number);
        assert.equal(charge0(res.body).status, "failed");
        assert.equal(charge0(res.body).last_transaction.status, "not_authorized");
        assert.equal(charge0(res.body).last_transaction.acquirer_return_code, expected, number);
      }
    }
  } finally { await legacy.close(); }
  const expired = await call(f, "POST", "/orders", { ...cardOrder("4000000000000010"), payments: [{ payment_method: "credit_card", credit_card: { card: { number: "4000000000000010", holder_name: "A B", exp_month: 1, exp_year: 2020, cvv: "123" } } }] });
  assert.equal(charge0(expired.body).last_transaction.acquirer_return_code, "54");
  const broken = await call(f, "POST", "/orders", cardOrder("4000000000000101"));
  assert.equal(charge0(broken.body).last_transaction.status, "with_error");
  assert.equal(charge0(broken.body).last_transaction.gateway_response.code, "500");
  const unknown = await call(f, "POST", "/orders", cardOrder("4000000000000119"));
  assert.equal(charge0(unknown.body).status, "processing");
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay/${charge0(unknown.body).id}`, { method: "POST" })).status, 200);
  assert.equal((await call(f, "GET", `/orders/${unknown.body.id}`)).body.status, "paid");
});

test("validation: 422 with errors keyed by field, a bad Luhn card included; Pix without a phone names customer.phones", async () => {
  const bad = await call(f, "POST", "/orders", { items: [{ amount: 10, quantity: 0 }], customer, payments: [{ payment_method: "credit_card", credit_card: { card: { number: "4000000000000011", holder_name: "A", exp_month: 13, exp_year: 2030, cvv: "1" } } }] });
  assert.equal(bad.status, 422, bad.text);
  assert.equal(bad.body.message, "The request is invalid.");
  for (const field of ["items[0].description", "items[0].quantity", "payments[0].credit_card.card.number", "payments[0].credit_card.card.exp_month", "payments[0].credit_card.card.cvv"]) {
    assert.ok(bad.body.errors[field], `${field} in ${bad.text}`);
  }
  const { phones: _p, ...noPhone } = customer;
  const pix = await call(f, "POST", "/orders", pixOrder(2990, noPhone));
  assert.equal(pix.status, 422);
  assert.ok(pix.body.errors["customer.phones"], pix.text);
  assert.equal((await call(f, "POST", "/orders", { ...pixOrder(), customer: undefined, customer_id: "cus_nope" })).body.message, "Customer not found.");
});

test("documents: CPF, CNPJ (alphanumeric included) and passport are checked as Pagar.me takes them; Pix and boleto need one", async () => {
  const boletoOrder = (cust: Obj) => ({ code: code(), items: [{ amount: 1000, description: "Boleto", quantity: 1 }], customer: cust, payments: [{ payment_method: "boleto", boleto: { type: "DM" } }] });
  const company = { ...customer, type: "company", document: "12ABC34501DE35", document_type: "CNPJ" };
  const ok = await call(f, "POST", "/orders", boletoOrder(company));
  assert.equal(ok.status, 200, ok.text);
  assert.deepEqual([ok.body.customer.document, ok.body.customer.document_type, ok.body.customer.type], ["12ABC34501DE35", "CNPJ", "company"]);
  const passport = await call(f, "POST", "/orders", pixOrder(2990, { ...customer, document: "AB1234567", document_type: "PASSPORT" }));
  assert.equal(passport.status, 200, passport.text);
  // Each refusal names the field, as Pagar.me's 422 does.
  const refusals: [string, Obj, string][] = [
    ["CNPJ stripped of its letters", { ...company, document: "123450135" }, "customer.document"],
    ["alphanumeric CNPJ with a wrong check digit", { ...company, document: "12ABC34501DE36" }, "customer.document"],
    ["numeric CNPJ with a wrong check digit", { ...company, document: "11222333000180" }, "customer.document"],
    ["CPF with a wrong check digit", { ...customer, document: "12345678900" }, "customer.document"],
    ["a document type Pagar.me does not take", { ...customer, document: "123456789", document_type: "RG" }, "customer.document_type"],
    ["a CNPJ sent as an individual", { ...company, type: "individual" }, "customer.type"],
    ["a CPF sent as a company", { ...customer, type: "company" }, "customer.type"],
    ["a passport on a boleto", { ...customer, document: "AB1234567", document_type: "PASSPORT" }, "customer.document_type"],
    ["no document on a boleto", { name: "Maria Silva", email: "maria@example.com", type: "individual" }, "customer.document"],
  ];
  for (const [what, cust, field] of refusals) {
    const res = await call(f, "POST", "/orders", boletoOrder(cust));
    assert.equal(res.status, 422, `${what}: ${res.text}`);
    assert.ok(res.body.errors[field], `${what}: ${field} in ${res.text}`);
  }
  const { document: _d, document_type: _t, ...anonymous } = customer;
  assert.equal((await call(f, "POST", "/orders", pixOrder(2990, anonymous))).body.errors["customer.document"]?.length, 1, "a Pix needs a document");
  assert.equal((await call(f, "POST", "/orders", { ...cardOrder("4000000000000010"), customer: anonymous })).status, 200, "a card order does not");
});

test("idempotency-key: a replay returns the same order; another body gets the first result (or 409); expired keys create again", async () => {
  const body = cardOrder("4000000000000010");
  const key = `create:${body.code}`;
  const first = await call(f, "POST", "/orders", body, { "idempotency-key": key });
  const again = await call(f, "POST", "/orders", body, { "idempotency-key": key });
  assert.equal(again.body.id, first.body.id);
  const other = await call(f, "POST", "/orders", { ...body, items: [{ amount: 1, description: "x", quantity: 1 }] }, { "idempotency-key": key });
  assert.equal(other.body.id, first.body.id);
  assert.equal(f.ordersCreated(body.code), 1);
  const strict = await startFakePagarme({ idempotencyMismatch: "409" });
  try {
    await call(strict, "POST", "/orders", body, { "idempotency-key": key });
    assert.equal((await call(strict, "POST", "/orders", { ...body, code: "other" }, { "idempotency-key": key })).status, 409);
  } finally { await strict.close(); }
  // Keys live 24 hours; the lookup by code does not forget.
  f.expireIdempotencyKeys();
  const later = await call(f, "POST", "/orders", body, { "idempotency-key": key });
  assert.notEqual(later.body.id, first.body.id);
  assert.equal(f.ordersCreated(body.code), 2);
  assert.ok(f.duplicateCodes().includes(body.code));
  assert.equal((await call(f, "GET", `/orders?code=${body.code}`)).body.paging.total, 2);
  const logged = f.requests.filter((r) => r.route === "POST /orders" && r.headers["idempotency-key"] === key);
  assert.equal(logged.length, 4);
});

test("Pix: a real BR Code, an image URL and the expiry; paid through the control API with full webhooks, unsigned", async () => {
  const res = await call(f, "POST", "/orders", pixOrder(2990));
  const ch = charge0(res.body);
  assert.equal(ch.status, "pending");
  assert.equal(ch.last_transaction.status, "waiting_payment");
  const parsed = parseBrCode(ch.last_transaction.qr_code);
  assert.ok(parsed.crcValid);
  assert.equal(parsed.fields.get("54"), "29.90");
  assert.ok(Math.abs(Date.parse(ch.last_transaction.expires_at) - Date.now() - 3_600_000) < 5000);
  const png = await fetch(ch.last_transaction.qr_code_url);
  assert.equal(png.headers.get("content-type"), "image/png");
  assert.deepEqual([...new Uint8Array(await png.arrayBuffer()).slice(1, 4)], [0x50, 0x4e, 0x47]);
  const paid = await fetch(`${f.url.replace("/core/v5", "")}/__fake/pay/${ch.id}`, { method: "POST" });
  assert.equal(paid.status, 200);
  const after = await call(f, "GET", `/charges/${ch.id}`);
  assert.equal(after.body.status, "paid");
  assert.match(after.body.last_transaction.end_to_end_id, /^E\d{8}\d{12}[A-Za-z0-9]{11}$/);
  await f.flushWebhooks();
  const received = await hooks.waitFor(1).then(() => hooksFor(ch.id));
  assert.deepEqual(received.map((h) => h.type), ["order.created", "charge.pending", "charge.paid", "order.paid"]);
  const chargePaid = received.find((h) => h.type === "charge.paid")!;
  assert.match(chargePaid.id, /^hook_/);
  assert.equal(chargePaid.data.status, "paid");
  assert.equal(chargePaid.data.order.id, res.body.id);
  assert.equal(received.find((h) => h.type === "order.paid")!.data.charges[0].status, "paid");
  const raw = hooks.requests.find((r) => r.body.includes(ch.id))!;
  assert.equal(raw.headers["x-signature"], undefined);
  // Above R$ 500,00 the Pix simulator creates the charge failed.
  assert.equal(charge0((await call(f, "POST", "/orders", pixOrder(50_001))).body).status, "failed");
});

test("boleto: a valid digitable line, PDF URL and due date; cancel while pending", async () => {
  const due = new Date(Date.now() + 5 * 86_400_000).toISOString();
  const res = await call(f, "POST", "/orders", { code: code(), items: [{ amount: 12345, description: "Boleto", quantity: 1 }], customer, payments: [{ payment_method: "boleto", boleto: { due_at: due, instructions: "Pagar até o vencimento" } }] });
  const ch = charge0(res.body);
  assert.equal(ch.last_transaction.status, "generated");
  assert.match(ch.last_transaction.line, /^\d{47}$/);
  assert.ok(isValidBoleto(ch.last_transaction.line));
  assert.equal(ch.last_transaction.due_at.slice(0, 10), due.slice(0, 10));
  assert.equal((await fetch(ch.last_transaction.pdf)).headers.get("content-type"), "application/pdf");
  const canceled = await call(f, "DELETE", `/charges/${ch.id}`);
  assert.equal(canceled.body.status, "canceled");
  assert.equal(canceled.body.order.status, "canceled");
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay/${ch.id}`, { method: "POST" })).status, 409);
});

test("pay-before-cancel: the payer pays just before the DELETE, which then refunds it; late: a cancelled, never paid boleto is paid all the same", async () => {
  const boleto = () => call(f, "POST", "/orders", { code: code(), items: [{ amount: 5000, description: "Boleto", quantity: 1 }], customer, payments: [{ payment_method: "boleto" }] });
  const raced = charge0((await boleto()).body);
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay-before-cancel`, { method: "POST", body: JSON.stringify({ times: 1 }) })).status, 200);
  const cancel = await call(f, "DELETE", `/charges/${raced.id}`);
  assert.equal(cancel.body.status, "canceled");
  assert.equal(cancel.body.paid_amount, 5000, "it was paid first");
  assert.equal(cancel.body.last_transaction.status, "refunded");
  const plain = charge0((await boleto()).body);
  assert.equal((await call(f, "DELETE", `/charges/${plain.id}`)).body.last_transaction.status, "canceled", "one cancel only was raced");
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay/${plain.id}`, { method: "POST" })).status, 409, "a cancelled boleto is not paid");
  const late = await fetch(`${f.controlUrl}/__fake/pay/${plain.id}`, { method: "POST", body: JSON.stringify({ late: true }) });
  assert.equal(late.status, 200);
  const after = (await call(f, "GET", `/charges/${plain.id}`)).body;
  assert.equal(after.status, "paid");
  assert.equal(after.canceled_amount, 0);
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay/${raced.id}`, { method: "POST", body: JSON.stringify({ late: true }) })).status, 409, "a refunded charge is not paid again");
});

test("refunds: partial keeps the charge paid, the rest cancels it; a replayed key refunds once; too much is a 412", async () => {
  const res = await call(f, "POST", "/orders", cardOrder("4000000000000010"));
  const id = charge0(res.body).id;
  const partial = await call(f, "DELETE", `/charges/${id}`, { amount: 5000 }, { "idempotency-key": `refund:${id}:1` });
  assert.equal(partial.status, 200, partial.text);
  assert.equal(partial.body.status, "paid");
  assert.equal(partial.body.canceled_amount, 5000);
  assert.equal(partial.body.last_transaction.status, "partial_refunded");
  assert.equal((await call(f, "DELETE", `/charges/${id}`, { amount: 5000 }, { "idempotency-key": `refund:${id}:1` })).body.canceled_amount, 5000);
  assert.equal((await call(f, "DELETE", `/charges/${id}`, { amount: 10001 })).status, 412);
  const garbled = await fetch(`${f.url}/charges/${id}`, { method: "DELETE", headers: { authorization: basic(f.secretKey) }, body: "{amount: 1" });
  assert.equal(garbled.status, 400, "a body that is not JSON refunds nothing");
  const rest = await call(f, "DELETE", `/charges/${id}`, undefined, { "idempotency-key": `refund:${id}:2` });
  assert.equal(rest.body.status, "canceled");
  assert.equal(rest.body.canceled_amount, 15000);
  assert.equal(rest.body.last_transaction.status, "refunded");
  assert.equal(rest.body.order.status, "canceled");
  await f.flushWebhooks();
  const types = f.webhooks.filter((w) => w.body.includes(id)).map((w) => w.label);
  assert.ok(types.includes("charge.partial_canceled") && types.includes("charge.refunded") && types.includes("order.canceled"), types.join());
});

test("refund mode pending: the card's cancellation waits (waiting_cancellation) until it finishes (refunded) or fails (error_on_voiding)", async () => {
  const id = charge0((await call(f, "POST", "/orders", cardOrder("4000000000000010"))).body).id;
  assert.equal((await fetch(`${f.controlUrl}/__fake/refund-mode`, { method: "POST", body: JSON.stringify({ mode: "pending" }) })).status, 200);
  try {
    const waiting = await call(f, "DELETE", `/charges/${id}`, { amount: 5000 }, { "idempotency-key": `pending:${id}:1` });
    assert.deepEqual([waiting.body.status, waiting.body.canceled_amount, waiting.body.last_transaction.status], ["paid", 0, "waiting_cancellation"], waiting.text);
    assert.equal((await call(f, "DELETE", `/charges/${id}`, { amount: 1000 })).status, 412, "one cancellation at a time");
    assert.equal((f.failRefund(id) as Obj).last_transaction.status, "error_on_voiding");
    await call(f, "DELETE", `/charges/${id}`, undefined, { "idempotency-key": `pending:${id}:2` });
    const done = await fetch(`${f.controlUrl}/__fake/refunds/${id}/finish`, { method: "POST" });
    const body = (await done.json()) as Obj;
    assert.deepEqual([body.status, body.canceled_amount, body.last_transaction.status], ["canceled", 15000, "refunded"]);
    assert.equal(f.refundsMade(id), 2);
  } finally {
    f.setRefundMode("immediate");
  }
});

test("chargeback: the charge becomes chargedback (final), the order keeps its status, charge.chargedback is sent", async () => {
  const res = await call(f, "POST", "/orders", cardOrder("5100000000000024"));
  const id = charge0(res.body).id;
  const cb = await fetch(`${f.controlUrl}/__fake/chargeback/${id}`, { method: "POST" });
  assert.equal(cb.status, 200);
  const after = await call(f, "GET", `/charges/${id}`);
  assert.equal(after.body.status, "chargedback");
  assert.equal(after.body.order.status, "paid");
  assert.equal((await call(f, "DELETE", `/charges/${id}`)).status, 412);
  await f.flushWebhooks();
  assert.ok(f.webhooks.some((w) => w.label === "charge.chargedback" && JSON.parse(w.body).data.id === id));
});

test("faults: refuse, reset, hang, 500, 429 create nothing; lost-answer and 500-after-work create, and the lookup finds it", async () => {
  const body = cardOrder("4000000000000010");
  await f.setFault("refuse");
  await assert.rejects(call(f, "POST", "/orders", body), (e: Error & { cause?: { code?: string } }) => e.cause?.code === "ECONNREFUSED");
  // The control server stays up while the API refuses.
  assert.equal((await fetch(`${f.controlUrl}/__fake/fault`, { method: "POST", body: JSON.stringify({ mode: "none" }) })).status, 200);
  await f.setFault("reset", { times: 1 });
  await assert.rejects(call(f, "POST", "/orders", body));
  await f.setFault("hang", { times: 1, match: "POST /orders" });
  await assert.rejects(call(f, "POST", "/orders", body, {}, AbortSignal.timeout(200)), { name: "TimeoutError" });
  await f.setFault("500", { times: 1 });
  assert.equal((await call(f, "POST", "/orders", body)).status, 500);
  await f.setFault("429", { times: 1 });
  const limited = await call(f, "POST", "/orders", body);
  assert.equal(limited.status, 429);
  assert.equal(limited.headers.get("retry-after"), "1");
  assert.equal(f.ordersCreated(body.code), 0, "no fault so far did the work");
  assert.equal((await call(f, "GET", `/orders?code=${body.code}`)).body.paging.total, 0);

  await f.setFault("lost-answer", { times: 1 });
  await assert.rejects(call(f, "POST", "/orders", body, { "idempotency-key": `create:${body.code}` }));
  assert.equal(f.ordersCreated(body.code), 1);
  const replay = await call(f, "POST", "/orders", body, { "idempotency-key": `create:${body.code}` });
  assert.equal(replay.body.code, body.code);
  assert.equal(f.ordersCreated(body.code), 1);
  await f.setFault("500-after-work", { times: 1 });
  const other = cardOrder("4000000000000010");
  assert.equal((await call(f, "POST", "/orders", other)).status, 500);
  assert.equal((await call(f, "GET", `/orders?code=${other.code}`)).body.paging.total, 1);
  assert.deepEqual(f.requests.filter((r) => r.fault).map((r) => r.fault), ["reset", "hang", "500", "429", "lost-answer", "500-after-work"]);
});

test("latency delays every answer (after the work); webhooks can be dropped, duplicated and reordered", async () => {
  f.setLatency(300);
  const started = Date.now();
  const body = pixOrder();
  await call(f, "POST", "/orders", body);
  assert.ok(Date.now() - started >= 300);
  f.setLatency(0);
  const id = charge0((await call(f, "GET", `/orders?code=${body.code}`)).body.data[0]).id;
  await f.flushWebhooks();
  const before = f.webhooks.length;
  f.setWebhookFault("drop", 1);
  f.pay(id); // charge.paid dropped, order.paid sent
  await f.flushWebhooks();
  const dropped = f.webhooks.slice(before);
  assert.deepEqual(dropped.map((w) => [w.label, !!w.dropped]), [["charge.paid", true], ["order.paid", false]]);
  const r2 = charge0((await call(f, "POST", "/orders", pixOrder())).body).id;
  await f.flushWebhooks();
  const mark = f.webhooks.length;
  f.setWebhookFault("out-of-order", 1);
  f.pay(r2);
  await f.flushWebhooks();
  assert.deepEqual(f.webhooks.slice(mark).map((w) => w.label), ["order.paid", "charge.paid"]);
  f.setWebhookFault("duplicate", 1);
  const r3 = charge0((await call(f, "POST", "/orders", pixOrder())).body).id;
  await f.flushWebhooks();
  assert.equal(f.webhooks.filter((w) => w.label === "order.created" && JSON.parse(w.body).data.charges[0].id === r3).length, 2);
});
