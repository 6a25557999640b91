import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import { barcodeToDigitableLine } from "../../src/lib/boleto.js";
import { parseBrCode } from "../../src/lib/pix.js";
import { createMercadoPagoProcessor } from "../../src/processors/mercadopago/mercadopago.processor.js";
import { verifyMercadoPagoSignature } from "../../src/processors/mercadopago/signature.js";
import { failoverDecision } from "../../src/processors/routing.js";
import type { AuthorizeResult } from "../../src/processors/processor.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { authorization, boleto, card, check, CUSTOMER, logSink, pix } from "./adapter-inputs.js";

// The Mercado Pago adapter against the local fake over real HTTP.

const VISA = "4235647728025682";
let fake: FakeMercadoPago;
let hooks: Receiver;
const sink = logSink();
let mp: ReturnType<typeof createMercadoPagoProcessor>;
before(async () => {
  hooks = await startReceiver();
  fake = await startFakeMercadoPago({ webhookUrl: hooks.url, webhookRetryDelayMs: 20 });
  mp = createMercadoPagoProcessor({ accessToken: fake.accessToken, publicKey: fake.publicKey, baseUrl: fake.url, timeoutMs: 2_000, log: sink.log });
});
after(async () => {
  await mp.close();
  await fake.close();
  await hooks.close();
});

const pspOf = (r: AuthorizeResult) => (r.outcome === "unknown" ? undefined : r.pspRefId);
const named = (holderName: string) => card(VISA, { holderName });

test("card: a token with the public key, then the payment keyed by the charge id, its external_reference", async () => {
  const input = authorization(named("APRO"));
  const r = await mp.authorize(input);
  assert.equal(r.outcome, "paid", JSON.stringify(r));
  const token = fake.requests.find((q) => q.route === "POST /v1/card_tokens" && q.headers["x-idempotency-key"] === `feira-card-token-${input.chargeId}`);
  assert.ok(token, "card token created");
  assert.match(token.url, new RegExp(`public_key=${fake.publicKey}`));
  const payment = fake.requests.find((q) => q.route === "POST /v1/payments" && q.headers["x-idempotency-key"] === `feira-charge-${input.chargeId}`)!;
  const body = JSON.parse(payment.body);
  assert.deepEqual([body.external_reference, body.transaction_amount, body.installments, body.payment_method_id], [input.chargeId, 150, 3, "visa"]);
  // The card number went only to /v1/card_tokens, and no log line carries it or the token.
  assert.ok(fake.requests.filter((q) => q.body.includes(VISA)).every((q) => q.route === "POST /v1/card_tokens"));
  for (const line of sink.lines) assert.doesNotMatch(line, new RegExp(`${VISA}|${fake.accessToken}|"123"`));
  // A retry of the same charge: the same payment, one only.
  const again = await mp.authorize(input);
  assert.equal(pspOf(again), pspOf(r));
  assert.equal(fake.paymentsCreated(input.chargeId), 1);
});

test("rejections are values with feira's reason and Mercado Pago's status_detail", async () => {
  const cases: [string, string, string][] = [
    ["OTHE", "card_declined", "cc_rejected_other_reason"],
    ["FUND", "insufficient_funds", "cc_rejected_insufficient_amount"],
    ["SECU", "incorrect_cvc", "cc_rejected_bad_filled_security_code"],
    ["EXPI", "expired_card", "cc_rejected_bad_filled_date"],
    ["CALL", "card_declined", "cc_rejected_call_for_authorize"],
    ["CERR", "processing_error", "cc_rejected_card_error"],
  ];
  for (const [name, reason, detail] of cases) {
    const r = await mp.authorize(authorization(named(name)));
    assert.deepEqual(r.outcome === "refused" && [r.reason, r.providerCode], [reason, detail], `${name}: ${JSON.stringify(r)}`);
  }
  const review = await mp.authorize(authorization(named("CONT")));
  assert.equal(review.outcome, "in_analysis");
});

test("Pix: the provider's BR Code and expiry, the image drawn by feira; the expiry window is checked first", async () => {
  assert.match(mp.checkInstrument(check("pix", CUSTOMER, { expiresIn: 600 }))!, /^paymentMethod\.expiresIn must be between/);
  assert.match(mp.checkInstrument(check("pix", { ...CUSTOMER, email: null }))!, /^customer\.email is required/);
  const input = authorization(pix(3600), { amountMinor: 2990 });
  const r = await mp.authorize(input);
  assert.equal(r.outcome, "pending", JSON.stringify(r));
  if (r.outcome !== "pending") return;
  const d = r.details as { qrCode: string; qrCodeImage: string };
  assert.equal(parseBrCode(d.qrCode).crcValid, true);
  assert.match(d.qrCodeImage, /^data:image\/png;base64,/);
  assert.ok(Math.abs(r.expiresAt.getTime() - Date.now() - 3_600_000) < 60_000, r.expiresAt.toISOString());
  const body = JSON.parse(fake.requests.find((q) => q.route === "POST /v1/payments" && q.body.includes(input.chargeId))!.body);
  assert.equal(body.transaction_amount, 29.9);
  // Paid at the bank: the lookup by reference reports it.
  assert.equal(typeof fake.pay(Number(r.pspRefId)), "object");
  assert.equal((await mp.lookup({ chargeId: input.chargeId })).outcome, "paid");
});

test("boleto: line, barcode, page and due date; the payer's address is required first; cancel", async () => {
  assert.match(mp.checkInstrument(check("boleto", { ...CUSTOMER, address: null }))!, /^customer\.address/);
  assert.match(mp.checkInstrument(check("boleto", { ...CUSTOMER, name: "Maria" }))!, /^customer\.name/);
  const input = authorization(boleto());
  const r = await mp.authorize(input);
  assert.equal(r.outcome, "pending", JSON.stringify(r));
  if (r.outcome !== "pending") return;
  const d = r.details as Record<string, string>;
  assert.ok(isValidBoleto(d.digitableLine!));
  assert.equal(barcodeToDigitableLine(d.barcode!), d.digitableLine);
  assert.match(d.pdfUrl!, /^http/);
  assert.match(d.dueDate!, /^\d{4}-\d{2}-\d{2}$/);
  assert.equal((await mp.cancel({ chargeId: input.chargeId, pspRefId: r.pspRefId })).outcome, "canceled");
  const after = await mp.lookup({ chargeId: input.chargeId });
  assert.deepEqual(after.outcome === "failed" && after.reason, "canceled");
});

test("refunds: partial then the rest; refundStatus finds a refund whose answer was lost", async () => {
  const input = authorization(named("APRO"), { amountMinor: 10_000 });
  const pspRefId = pspOf(await mp.authorize(input))!;
  const part = await mp.refund({ chargeId: input.chargeId, pspRefId, amountMinor: 2_550, refundId: "re_mp_part", chargeAmountMinor: 10_000 });
  assert.equal(part.outcome, "succeeded", JSON.stringify(part));
  const mid = await mp.lookup({ chargeId: input.chargeId });
  assert.deepEqual(mid.outcome === "paid" && mid.refundedMinor, 2_550);
  await fake.setFault("lost-answer", { times: 1, match: `POST /v1/payments/${pspRefId}/refunds` });
  const lost = await mp.refund({ chargeId: input.chargeId, pspRefId, amountMinor: 7_450, refundId: "re_mp_rest", chargeAmountMinor: 10_000 });
  assert.deepEqual(lost.outcome === "pending" && lost.failure?.kind, "lost");
  const status = await mp.refundStatus({ chargeId: input.chargeId, pspRefId, amountMinor: 7_450, refundId: "re_mp_rest", refundRef: null });
  assert.equal(status.outcome, "succeeded");
  assert.equal((await mp.lookup({ chargeId: input.chargeId })).outcome, "refunded");
});

test("lookup: not_found for an unknown reference; a chargeback is charged_back, a dispute stays paid", async () => {
  assert.deepEqual(await mp.lookup({ chargeId: "ch_never_sent" }), { outcome: "not_found" });
  const input = authorization(named("APRO"));
  const id = Number(pspOf(await mp.authorize(input)));
  fake.dispute(id);
  assert.deepEqual((await mp.lookup({ chargeId: input.chargeId })).outcome, "paid");
  fake.chargeback(id);
  assert.equal((await mp.lookup({ chargeId: input.chargeId, pspRefId: String(id) })).outcome, "charged_back");
});

test("faults: refused, 5xx with and without the work, lost answer, hang", async () => {
  await fake.setFault({ mode: "refuse" });
  const refused = await mp.authorize(authorization(pix()));
  await fake.setFault("none");
  assert.deepEqual(refused.outcome === "unknown" && refused.failure.kind, "connection_refused");

  await fake.setFault("500", { times: 1, match: "POST /v1/payments" });
  const in500 = authorization(pix());
  const r500 = await mp.authorize(in500);
  assert.deepEqual(r500.outcome === "unknown" && r500.failure.kind, "http_5xx");
  assert.deepEqual(failoverDecision(r500, await mp.lookup({ chargeId: in500.chargeId })), { tryNext: true });

  await fake.setFault("500-after-work", { times: 1, match: "POST /v1/payments" });
  const inWorked = authorization(pix());
  const worked = await mp.authorize(inWorked);
  const found = await mp.lookup({ chargeId: inWorked.chargeId });
  assert.equal(found.outcome, "pending");
  assert.equal(failoverDecision(worked, found).tryNext, false);

  await fake.setFault("lost-answer", { times: 1, match: "POST /v1/payments" });
  const inLost = authorization(named("APRO"));
  const lost = await mp.authorize(inLost);
  assert.deepEqual(lost.outcome === "unknown" && lost.failure.kind, "lost");
  assert.equal((await mp.lookup({ chargeId: inLost.chargeId })).outcome, "paid");
  // The retry reuses the charge's key, and a used card token is not a second payment either.
  const retried = await mp.authorize(inLost);
  assert.equal(fake.paymentsCreated(inLost.chargeId), 1, JSON.stringify(retried));

  const slow = createMercadoPagoProcessor({ accessToken: fake.accessToken, publicKey: fake.publicKey, baseUrl: fake.url, timeoutMs: 300 });
  await fake.setFault("hang", { times: 1, match: "POST /v1/payments" });
  const hung = await slow.authorize(authorization(pix()));
  assert.deepEqual(hung.outcome === "unknown" && hung.failure.kind, "timeout");
  await slow.close();
});

test("the fake's webhooks verify with the adapter's signature check", async () => {
  const input = authorization(pix());
  await mp.authorize(input);
  await fake.flushWebhooks();
  const delivered = hooks.requests.filter((h) => h.body.includes('"payment.created"'));
  assert.ok(delivered.length > 0);
  for (const h of delivered) {
    const dataId = new URL(h.path, "http://x").searchParams.get("data.id") ?? undefined;
    const ok = verifyMercadoPagoSignature({
      signature: h.headers["x-signature"] as string, requestId: h.headers["x-request-id"] as string, dataId,
      secret: fake.webhookSecret, now: new Date(),
    });
    assert.deepEqual(ok, { ok: true });
  }
});
