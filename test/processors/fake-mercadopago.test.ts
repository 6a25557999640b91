import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { after, before, test } from "node:test";
import { parseBrCode } from "../../src/lib/pix.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startReceiver, type ReceivedRequest, type Receiver } from "../helpers/webhook-receiver.js";
import { until } from "../helpers/wait.js";

// The Mercado Pago fake, exercised over HTTP as feira's adapter will use it: card tokens,
// payments, the mandatory X-Idempotency-Key, search by external_reference, refunds, cancel,
// chargebacks, thin signed webhooks, and each fault mode.

type Obj = Record<string, any>;
let f: FakeMercadoPago;
let hooks: Receiver;
before(async () => {
  hooks = await startReceiver();
  f = await startFakeMercadoPago({ webhookUrl: `${hooks.url}/mp?source_news=webhooks`, webhookRetryDelayMs: 20 });
});
after(async () => { await f.close(); await hooks.close(); });

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, fake = f) {
  const res = await fetch(fake.url + path, {
    method, body: body === undefined ? undefined : JSON.stringify(body),
    headers: { authorization: `Bearer ${fake.accessToken}`, "content-type": "application/json", ...headers },
  });
  const text = await res.text();
  return { status: res.status, text, body: (text ? JSON.parse(text) : undefined) as Obj };
}
let seq = 0;
const ref = () => `ch_mp_${++seq}_${Date.now()}`;
const payer = { email: "maria@example.com", first_name: "Maria", last_name: "Silva", identification: { type: "CPF", number: "12345678909" } };
async function token(holder = "APRO", number = "5031433215406351", fake = f): Promise<string> {
  const res = await fetch(`${fake.url}/v1/card_tokens?public_key=${fake.publicKey}`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ card_number: number, security_code: "123", expiration_month: 11, expiration_year: 2030, cardholder: { name: holder, identification: payer.identification } }),
  });
  assert.equal(res.status, 201);
  return ((await res.json()) as Obj).id;
}
const cardPayment = async (holder = "APRO", extra: Obj = {}) => ({ transaction_amount: 150, token: await token(holder), installments: 3, payment_method_id: "master", external_reference: ref(), payer, ...extra });
const pixPayment = (amount = 29.9) => ({ transaction_amount: amount, payment_method_id: "pix", external_reference: ref(), description: "Pedido", payer });
const create = (body: Obj, key = `create:${body.external_reference}`, fake = f) => call("POST", "/v1/payments", body, { "x-idempotency-key": key }, fake);

// The documented check, written from the docs and the SDK's validator, not from the fake.
function verify(r: ReceivedRequest, secret: string): boolean {
  const parts = Object.fromEntries(String(r.headers["x-signature"] ?? "").split(",").map((p) => p.split("=").map((s) => s.trim()) as [string, string]));
  const dataId = new URL(r.path, "http://x").searchParams.get("data.id") ?? "";
  const manifest = `id:${dataId};request-id:${r.headers["x-request-id"]};ts:${parts.ts};`;
  const expected = createHmac("sha256", secret).update(manifest).digest("hex");
  return typeof parts.v1 === "string" && parts.v1.length === expected.length && timingSafeEqual(Buffer.from(parts.v1), Buffer.from(expected));
}
const hooksFor = (id: number) => hooks.requests.filter((r) => new URL(r.path, "http://x").searchParams.get("data.id") === String(id));

test("auth: Bearer access token; card tokens take the public key or the token; anything else is 401", async () => {
  assert.equal((await call("GET", "/v1/payments/1", undefined, { authorization: "Bearer nope" })).status, 401);
  assert.equal((await call("GET", "/v1/payments/1", undefined, { authorization: "" })).body.error, "unauthorized");
  const noKey = await fetch(`${f.url}/v1/card_tokens?public_key=wrong`, { method: "POST", body: "{}" });
  assert.equal(noKey.status, 401);
  const withBearer = await call("POST", "/v1/card_tokens", { card_number: "4235647728025682", security_code: "123", expiration_month: 1, expiration_year: 2031, cardholder: { name: "APRO" } });
  assert.equal(withBearer.status, 201, withBearer.text);
  assert.equal(withBearer.body.last_four_digits, "5682");
  assert.ok(!withBearer.text.includes("4235647728025682"));
  const bad = await call("POST", "/v1/card_tokens", { card_number: "4235647728025683", security_code: "1", expiration_month: 13, expiration_year: 2031, cardholder: {} });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body.cause.map((c: Obj) => c.code), ["E301", "E302", "325", "221"]);
});

test("card with installments: approved; outcomes follow the cardholder name; a token is single-use; brand must match", async () => {
  const body = await cardPayment();
  const res = await create(body);
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.status, "approved");
  assert.equal(res.body.status_detail, "accredited");
  assert.equal(res.body.installments, 3);
  assert.equal(res.body.transaction_amount, 150);
  assert.equal(res.body.card.last_four_digits, "6351");
  assert.equal(res.body.external_reference, body.external_reference);
  assert.deepEqual((await call("GET", `/v1/payments/${res.body.id}`)).body, res.body);
  for (const [holder, status, detail] of [["FUND", "rejected", "cc_rejected_insufficient_amount"], ["SECU", "rejected", "cc_rejected_bad_filled_security_code"],
    ["DISA", "rejected", "cc_rejected_card_disabled"], ["CONT", "in_process", "pending_contingency"], ["OTHE", "rejected", "cc_rejected_other_reason"]]) {
    const r = await create(await cardPayment(holder!));
    assert.deepEqual([r.status, r.body.status, r.body.status_detail], [201, status, detail], holder);
  }
  const reused = await create({ ...body, external_reference: ref() });
  assert.equal(reused.status, 400);
  assert.equal(reused.body.cause[0].code, 2006);
  assert.equal((await create(await cardPayment("APRO", { payment_method_id: "visa" }))).body.cause[0].code, "diff_param_bins");
  assert.equal((await create(await cardPayment("APRO", { installments: 13 }))).status, 400);
});

test("X-Idempotency-Key: mandatory; a replay returns the same payment; another body is 409; in flight is 409 401001", async () => {
  const body = pixPayment();
  assert.equal((await call("POST", "/v1/payments", body)).status, 400);
  const first = await create(body);
  const again = await create(body);
  assert.equal(again.status, 201);
  assert.equal(again.body.id, first.body.id);
  const other = await create({ ...body, transaction_amount: 30 }, `create:${body.external_reference}`);
  assert.equal(other.status, 409);
  assert.equal(other.body.error, "conflict");
  assert.equal(f.paymentsCreated(body.external_reference), 1);
  f.setLatency(300);
  const slow = pixPayment();
  const pending = create(slow);
  await until("the slow payment created", () => f.paymentsCreated(slow.external_reference) === 1);
  const during = await create(slow);
  f.setLatency(0);
  assert.equal(during.status, 409);
  assert.equal(during.body.cause[0].code, 401001);
  assert.equal((await pending).status, 201);
  assert.equal((await create(slow)).body.id, (await pending).body.id);
  f.expireIdempotencyKeys();
  await create(body);
  assert.deepEqual(f.duplicateReferences(), [body.external_reference]);
  const found = await call("GET", `/v1/payments/search?external_reference=${body.external_reference}&sort=date_created&criteria=desc`);
  assert.equal(found.body.paging.total, 2);
  assert.equal(found.body.results.length, 2);
  assert.ok(f.requests.some((r) => r.headers["x-idempotency-key"] === `create:${body.external_reference}`));
});

test("Pix: real BR Code, PNG base64, ticket URL and expiry; paid via the control API; thin webhooks signed as documented", async () => {
  const res = await create(pixPayment(29.9));
  assert.equal(res.body.status, "pending");
  assert.equal(res.body.status_detail, "pending_waiting_transfer");
  const tx = res.body.point_of_interaction.transaction_data;
  const parsed = parseBrCode(tx.qr_code);
  assert.ok(parsed.crcValid);
  assert.equal(parsed.fields.get("54"), "29.90");
  assert.equal(Buffer.from(tx.qr_code_base64, "base64").subarray(1, 4).toString(), "PNG");
  assert.equal((await fetch(tx.ticket_url)).status, 200);
  assert.ok(Math.abs(Date.parse(res.body.date_of_expiration) - Date.now() - 86_400_000) < 5000);
  assert.match(res.body.date_created, /-04:00$/);
  const paid = await fetch(`${f.controlUrl}/__fake/pay/${res.body.id}`, { method: "POST" });
  assert.equal(((await paid.json()) as Obj).status, "approved");
  await f.flushWebhooks();
  const got = hooksFor(res.body.id);
  assert.equal(got.length, 2);
  for (const r of got) {
    assert.ok(verify(r, f.webhookSecret), `signature of ${r.path}`);
    assert.ok(!verify(r, "another-secret"));
    const url = new URL(r.path, "http://x");
    assert.equal(url.searchParams.get("type"), "payment");
    assert.equal(url.searchParams.get("source_news"), "webhooks");
    const ts = Number(/ts=(\d+)/.exec(String(r.headers["x-signature"]))![1]);
    assert.ok(Math.abs(ts - Date.now()) < 10_000, "ts in milliseconds");
  }
  const bodies = got.map((r) => JSON.parse(r.body) as Obj);
  assert.deepEqual(bodies.map((b) => b.action), ["payment.created", "payment.updated"]);
  assert.deepEqual(bodies[1]!.data, { id: String(res.body.id) });
  assert.equal(bodies[1]!.type, "payment");
});

test("a payment made with a seller's token is the seller's: the application's token reads, searches, cancels and refunds it not (404, left out); the seller's does; its notice carries the seller's user_id", async () => {
  const redirectUri = "https://marketplace.example/callback";
  const page = await fetch(`${f.url}/authorization?${new URLSearchParams({ client_id: f.clientId, response_type: "code", platform_id: "mp", redirect_uri: redirectUri })}`, { redirect: "manual" });
  const code = new URL(page.headers.get("location")!).searchParams.get("code")!;
  const grant = await call("POST", "/oauth/token", { client_id: f.clientId, client_secret: f.clientSecret, grant_type: "authorization_code", code, redirect_uri: redirectUri });
  const as = { authorization: `Bearer ${grant.body.access_token}` };
  const body = pixPayment(50);
  const made = await call("POST", "/v1/payments", { ...body, application_fee: 5 }, { ...as, "x-idempotency-key": `seller:${body.external_reference}` });
  assert.equal(made.status, 201, made.text);
  assert.equal(made.body.collector_id, grant.body.user_id);
  const id = made.body.id as number;
  const search = `/v1/payments/search?external_reference=${body.external_reference}`;
  // The application's own token: not found, wherever it looks.
  assert.equal((await call("GET", `/v1/payments/${id}`)).status, 404);
  assert.equal((await call("GET", `/v1/payments/${id}/refunds`)).status, 404);
  assert.deepEqual((await call("GET", search)).body.results, []);
  assert.equal((await call("PUT", `/v1/payments/${id}`, { status: "cancelled" }, { "x-idempotency-key": `cancel:${id}` })).status, 404);
  assert.equal((await call("POST", `/v1/payments/${id}/refunds`, {}, { "x-idempotency-key": `refund:${id}` })).status, 404);
  // The seller's token: the payment, as made.
  assert.equal((await call("GET", `/v1/payments/${id}`, undefined, as)).body.id, id);
  assert.deepEqual((await call("GET", search, undefined, as)).body.results.map((p: Obj) => p.id), [id]);
  assert.equal((await call("PUT", `/v1/payments/${id}`, { status: "cancelled" }, { ...as, "x-idempotency-key": `cancel:${id}` })).body.status, "cancelled");
  await f.flushWebhooks();
  const notices = hooksFor(id).map((r) => JSON.parse(r.body) as Obj);
  assert.ok(notices.length >= 2);
  for (const n of notices) assert.equal(n.user_id, grant.body.user_id);
});

test("boleto is bolbradesco with the payer's address; barcode and digitable line are valid; 'boleto' is refused", async () => {
  const address = { zip_code: "01310100", street_name: "Av. Paulista", street_number: "1000", neighborhood: "Bela Vista", city: "São Paulo", federal_unit: "SP" };
  const missing = await create({ transaction_amount: 100, payment_method_id: "bolbradesco", external_reference: ref(), payer });
  assert.equal(missing.status, 400);
  assert.match(missing.body.message, /payer\.address\.zip_code/);
  assert.match((await create({ transaction_amount: 100, payment_method_id: "boleto", external_reference: ref(), payer })).body.message, /bolbradesco/);
  const res = await create({ transaction_amount: 123.45, payment_method_id: "bolbradesco", external_reference: ref(), payer: { ...payer, address } });
  assert.equal(res.status, 201, res.text);
  assert.equal(res.body.status_detail, "pending_waiting_payment");
  const td = res.body.transaction_details;
  assert.ok(isValidBoleto(td.digitable_line));
  assert.match(td.barcode.content, /^237\d{41}$/);
  assert.equal((await fetch(td.external_resource_url)).status, 200);
  const cancelled = await call("PUT", `/v1/payments/${res.body.id}`, { status: "cancelled" });
  assert.deepEqual([cancelled.body.status, cancelled.body.status_detail], ["cancelled", "by_collector"]);
  assert.equal((await call("PUT", `/v1/payments/${res.body.id}`, { status: "cancelled" })).status, 400);
});

test("identification: CPF and CNPJ (alphanumeric included) with their check digits; any other type or a wrong number is refused", async () => {
  const address = { zip_code: "01310100", street_name: "Av. Paulista", street_number: "1000", neighborhood: "Bela Vista", city: "São Paulo", federal_unit: "SP" };
  const boleto = (identification: Obj) => create({ transaction_amount: 100, payment_method_id: "bolbradesco", external_reference: ref(), payer: { ...payer, address, identification } });
  const ok = await boleto({ type: "CNPJ", number: "12ABC34501DE35" });
  assert.equal(ok.status, 201, ok.text);
  assert.deepEqual(ok.body.payer.identification, { type: "CNPJ", number: "12ABC34501DE35" });
  const refusals: [string, Obj, string][] = [
    ["CNPJ stripped of its letters", { type: "CNPJ", number: "123450135" }, "Invalid user identification number"],
    ["alphanumeric CNPJ with a wrong check digit", { type: "CNPJ", number: "12ABC34501DE36" }, "Invalid user identification number"],
    ["a CNPJ's characters sent as a CPF", { type: "CPF", number: "123450135" }, "Invalid user identification number"],
    ["CPF with a wrong check digit", { type: "CPF", number: "12345678900" }, "Invalid user identification number"],
    ["an RG", { type: "RG", number: "123456789" }, "Invalid user identification type"],
  ];
  for (const [what, identification, message] of refusals) {
    const res = await boleto(identification);
    assert.equal(res.status, 400, `${what}: ${res.text}`);
    assert.deepEqual([res.body.message, res.body.error], [message, "bad_request"], what);
  }
  // A card token's cardholder document: codes 322 (type) and 324 (number) of the data entry errors.
  for (const [identification, code] of [[{ type: "RG", number: "123456789" }, "322"], [{ type: "CNPJ", number: "123450135" }, "324"]] as const) {
    const res = await fetch(`${f.url}/v1/card_tokens?public_key=${f.publicKey}`, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ card_number: "5031433215406351", security_code: "123", expiration_month: 11, expiration_year: 2030, cardholder: { name: "APRO", identification } }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(((await res.json()) as Obj).cause.map((c: Obj) => c.code), [code]);
  }
});

test("refunds: partial leaves it approved/partially_refunded, the rest refunds it; a replayed key refunds once", async () => {
  const p = (await create(await cardPayment())).body;
  assert.equal((await call("POST", `/v1/payments/${p.id}/refunds`, { amount: 50 })).status, 400, "X-Idempotency-Key is mandatory");
  const r1 = await call("POST", `/v1/payments/${p.id}/refunds`, { amount: 50.25 }, { "x-idempotency-key": "refund:1" });
  assert.equal(r1.status, 201, r1.text);
  assert.equal(r1.body.amount, 50.25);
  assert.equal(r1.body.payment_id, p.id);
  assert.equal((await call("POST", `/v1/payments/${p.id}/refunds`, { amount: 50.25 }, { "x-idempotency-key": "refund:1" })).body.id, r1.body.id);
  let now = (await call("GET", `/v1/payments/${p.id}`)).body;
  assert.deepEqual([now.status, now.status_detail, now.transaction_amount_refunded], ["approved", "partially_refunded", 50.25]);
  assert.equal((await call("POST", `/v1/payments/${p.id}/refunds`, { amount: 100 }, { "x-idempotency-key": "refund:2" })).status, 400);
  const rest = await call("POST", `/v1/payments/${p.id}/refunds`, undefined, { "x-idempotency-key": "refund:3" });
  assert.equal(rest.body.amount, 99.75);
  now = (await call("GET", `/v1/payments/${p.id}`)).body;
  assert.deepEqual([now.status, now.status_detail, now.transaction_amount_refunded, now.refunds.length], ["refunded", "refunded", 150, 2]);
  assert.equal((await call("GET", `/v1/payments/${p.id}/refunds`)).body.length, 2);
});

test("refund mode pending: the refund is pending and holds its amount until approved (payment refunded) or rejected (released)", async () => {
  const p = (await create(await cardPayment())).body;
  assert.equal((await fetch(`${f.controlUrl}/__fake/refund-mode`, { method: "POST", body: JSON.stringify({ mode: "pending" }) })).status, 200);
  try {
    const r1 = await call("POST", `/v1/payments/${p.id}/refunds`, { amount: 100 }, { "x-idempotency-key": `pending:${p.id}:1` });
    assert.deepEqual([r1.status, r1.body.status], [201, "pending"], r1.text);
    assert.equal((await call("GET", `/v1/payments/${p.id}`)).body.transaction_amount_refunded, 0, "nothing went back yet");
    assert.equal((await call("POST", `/v1/payments/${p.id}/refunds`, { amount: 60 }, { "x-idempotency-key": `pending:${p.id}:2` })).status, 400, "the pending amount is held");
    assert.equal((f.rejectRefund(r1.body.id) as Obj).status, "rejected");
    assert.equal(typeof f.approveRefund(r1.body.id), "string", "a settled refund stays settled");
    const r2 = await call("POST", `/v1/payments/${p.id}/refunds`, undefined, { "x-idempotency-key": `pending:${p.id}:3` });
    assert.deepEqual([r2.body.status, r2.body.amount], ["pending", 150], "the rejected amount is refundable again");
    const approved = await fetch(`${f.controlUrl}/__fake/refunds/${r2.body.id}/approve`, { method: "POST" });
    assert.equal(approved.status, 200);
    const now = (await call("GET", `/v1/payments/${p.id}`)).body;
    assert.deepEqual([now.status, now.transaction_amount_refunded], ["refunded", 150]);
    assert.deepEqual((await call("GET", `/v1/payments/${p.id}/refunds`)).body.map((r: Obj) => r.status), ["rejected", "approved"]);
    assert.equal(f.refundsMade(p.id), 2);
  } finally {
    f.setRefundMode("approved");
  }
});

test("chargebacks and disputes: in_mediation, then charged_back with a readable chargeback", async () => {
  const p = (await create(await cardPayment())).body;
  assert.equal((f.dispute(p.id) as Obj).status, "in_mediation");
  assert.equal((f.chargeback(p.id) as Obj).status, "charged_back");
  const [cbId] = [...f.chargebacks.keys()];
  const cb = await call("GET", `/v1/chargebacks/${cbId}`);
  assert.deepEqual(cb.body.payments, [p.id]);
  assert.equal(cb.body.amount, 150);
  assert.equal(cb.body.documentation_status, "not_supplied");
  assert.equal(cb.body.coverage_applied, false);
  assert.equal((await call("POST", `/v1/payments/${p.id}/refunds`, undefined, { "x-idempotency-key": "refund:cb" })).status, 400);
});

test("pay-before-cancel: the payer pays just before the cancel, which is refused; late: a cancelled Pix is paid all the same", async () => {
  const raced = (await create(pixPayment())).body;
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay-before-cancel`, { method: "POST", body: JSON.stringify({ times: 1 }) })).status, 200);
  const refused = await call("PUT", `/v1/payments/${raced.id}`, { status: "cancelled" });
  assert.equal(refused.status, 400);
  assert.equal(refused.body.cause[0].code, "invalid_payment_status");
  assert.equal((await call("GET", `/v1/payments/${raced.id}`)).body.status, "approved");
  const plain = (await create(pixPayment())).body;
  assert.equal((await call("PUT", `/v1/payments/${plain.id}`, { status: "cancelled" })).body.status, "cancelled", "one cancel only was raced");
  assert.equal((await fetch(`${f.controlUrl}/__fake/pay/${plain.id}`, { method: "POST" })).status, 409, "a cancelled Pix is not paid");
  const late = await fetch(`${f.controlUrl}/__fake/pay/${plain.id}`, { method: "POST", body: JSON.stringify({ late: true }) });
  assert.equal(late.status, 200);
  assert.equal((await call("GET", `/v1/payments/${plain.id}`)).body.status, "approved");
});

test("signature faults: bad, missing and stale signatures; ts in seconds on request", async () => {
  const seconds = await startFakeMercadoPago({ webhookUrl: `${hooks.url}/seconds`, signatureTs: "s" });
  try {
    const p = (await create(pixPayment(), "k-s", seconds)).body;
    await seconds.flushWebhooks();
    const r = hooksFor(p.id).at(-1)!;
    assert.ok(verify(r, seconds.webhookSecret));
    assert.match(String(r.headers["x-signature"]), /^ts=\d{10},v1=[0-9a-f]{64}$/);
  } finally { await seconds.close(); }
  for (const mode of ["bad", "missing", "stale"] as const) {
    f.setSignatureFault(mode, 1);
    const p = (await create(pixPayment())).body;
    await f.flushWebhooks();
    const r = hooksFor(p.id)[0]!;
    if (mode === "stale") {
      assert.ok(verify(r, f.webhookSecret));
      assert.ok(Date.now() - Number(/ts=(\d+)/.exec(String(r.headers["x-signature"]))![1]) > 300_000);
    } else assert.equal(verify(r, f.webhookSecret), false, mode);
    assert.ok(r.headers["x-request-id"]);
  }
});

test("faults: refuse, hang, 500 and 429 create nothing; lost-answer creates, the search finds it and the key replays it", async () => {
  const body = await cardPayment();
  await f.setFault({ mode: "refuse" });
  await assert.rejects(create(body), (e: Error & { cause?: { code?: string } }) => e.cause?.code === "ECONNREFUSED");
  const ctl = await fetch(`${f.controlUrl}/__fake/fault`, { method: "POST", body: JSON.stringify({ mode: "500", times: 1, match: "POST /v1/payments" }) });
  assert.equal(ctl.status, 200);
  assert.equal((await call("GET", "/v1/payments/search")).status, 200, "the match leaves reads alone");
  assert.equal((await create(body)).status, 500);
  await f.setFault("429", { times: 1 });
  assert.equal((await create(body)).status, 429);
  await f.setFault("hang", { times: 1 });
  await assert.rejects(fetch(`${f.url}/v1/payments`, { method: "POST", headers: { authorization: `Bearer ${f.accessToken}`, "x-idempotency-key": "h" }, body: JSON.stringify(body), signal: AbortSignal.timeout(200) }), { name: "TimeoutError" });
  assert.equal(f.paymentsCreated(body.external_reference), 0);
  await f.setFault("lost-answer", { times: 1 });
  await assert.rejects(create(body));
  assert.equal((await call("GET", `/v1/payments/search?external_reference=${body.external_reference}`)).body.paging.total, 1);
  const replay = await create(body);
  assert.equal(replay.status, 201);
  assert.equal(f.paymentsCreated(body.external_reference), 1);
});

test("webhook faults: dropped, duplicated, out of order; a failing receiver is retried", async () => {
  const ids: number[] = [];
  for (const mode of ["drop", "duplicate", "out-of-order"] as const) {
    const p = (await create(pixPayment())).body;
    await f.flushWebhooks();
    f.setWebhookFault(mode, 1);
    f.pay(p.id);
    f.expire((await create(pixPayment())).body.id);
    await f.flushWebhooks();
    ids.push(p.id);
  }
  assert.equal(hooksFor(ids[0]!).length, 1, "payment.updated dropped");
  assert.equal(hooksFor(ids[1]!).length, 3, "payment.updated twice");
  const order = hooks.requests.map((r) => Number(new URL(r.path, "http://x").searchParams.get("data.id")));
  assert.ok(order.lastIndexOf(ids[2]!) > order.indexOf(ids[2]! + 1), "the pay notification came after the next one");
  let calls = 0;
  const flaky = await startReceiver({ respond: () => ({ status: ++calls < 3 ? 500 : 200 }) });
  try {
    const id = (await create(pixPayment())).body.id;
    await f.flushWebhooks();
    f.setWebhookUrl(flaky.url);
    f.pay(id);
    await f.flushWebhooks();
    assert.equal(f.webhooks.at(-1)!.attempts, 3);
    assert.equal(f.webhooks.at(-1)!.status, 200);
  } finally { f.setWebhookUrl(`${hooks.url}/mp`); await flaky.close(); }
});
