import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import { barcodeToDigitableLine } from "../../src/lib/boleto.js";
import { parseBrCode } from "../../src/lib/pix.js";
import { createPagarmeProcessor } from "../../src/processors/pagarme/pagarme.processor.js";
import { failoverDecision } from "../../src/processors/routing.js";
import type { AuthorizeResult } from "../../src/processors/processor.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { authorization, boleto, card, check, CUSTOMER, logSink, pix } from "./adapter-inputs.js";

// The Pagar.me adapter against the local fake over real HTTP.

let fake: FakePagarme;
const sink = logSink();
let pagarme: ReturnType<typeof createPagarmeProcessor>;
before(async () => {
  fake = await startFakePagarme();
  pagarme = createPagarmeProcessor({ secretKey: fake.secretKey, baseUrl: fake.url, timeoutMs: 2_000, log: sink.log });
});
after(async () => {
  await pagarme.close();
  await fake.close();
});

const ordersFor = (chargeId: string) => fake.requests.filter((r) => r.route === "POST /orders" && r.body.includes(chargeId));
const pspOf = (r: AuthorizeResult) => (r.outcome === "unknown" ? undefined : r.pspRefId);

test("card with installments: paid, keyed by the charge id, which is the order code", async () => {
  const input = authorization(card("4000000000000010"));
  const r = await pagarme.authorize(input);
  assert.equal(r.outcome, "paid", JSON.stringify(r));
  assert.match(pspOf(r)!, /^ch_/);
  const [sent] = ordersFor(input.chargeId);
  assert.equal(sent!.headers["idempotency-key"], `feira-charge-${input.chargeId}`);
  const body = JSON.parse(sent!.body);
  assert.equal(body.code, input.chargeId);
  assert.equal(body.payments[0].credit_card.installments, 3);
  assert.equal(body.items[0].amount, 15_000);
  // The same charge id again (a retry): the same payment, still one order.
  const again = await pagarme.authorize(input);
  assert.equal(pspOf(again), pspOf(r));
  assert.equal(fake.ordersCreated(input.chargeId), 1);
  // Nothing the adapter logged carries the card, the CVV or the key.
  assert.ok(sink.lines.length > 0);
  for (const line of sink.lines) assert.doesNotMatch(line, /4000000000000010|"123"|sk_test|Basic /);
});

test("declines are values with feira's reason and the acquirer's code (ABECS and legacy)", async () => {
  const cases: [string, string, string][] = [
    ["4000000000000028", "card_declined", "05"],
    ["4000000000000036", "insufficient_funds", "51"],
    ["4000000000000044", "incorrect_cvc", "N7"],
    ["5100000000000016", "incorrect_cvc", "63"],
    ["4000000000000051", "expired_card", "54"],
    ["4000000000000069", "incorrect_number", "14"],
  ];
  for (const [number, reason, code] of cases) {
    const r = await pagarme.authorize(authorization(card(number, { brand: number.startsWith("5") ? "mastercard" : "visa" })));
    assert.deepEqual(r.outcome === "refused" && { reason: r.reason, code: r.providerCode }, { reason, code }, `${number}: ${JSON.stringify(r)}`);
  }
  const legacy = await startFakePagarme({ returnCodes: "legacy" });
  const old = createPagarmeProcessor({ secretKey: legacy.secretKey, baseUrl: legacy.url, timeoutMs: 2_000 });
  try {
    const r = await old.authorize(authorization(card("4000000000000036")));
    assert.deepEqual(r.outcome === "refused" && [r.reason, r.providerCode], ["insufficient_funds", "1016"]);
  } finally {
    await old.close();
    await legacy.close();
  }
});

test("a processing error is failed; an unknown outcome (charge processing) is in_analysis and settles by lookup", async () => {
  const failed = await pagarme.authorize(authorization(card("4000000000000101")));
  assert.deepEqual(failed.outcome === "failed" && failed.reason, "processing_error");
  const input = authorization(card("4000000000000119"));
  const held = await pagarme.authorize(input);
  assert.equal(held.outcome, "in_analysis");
  assert.equal(typeof fake.pay(pspOf(held)!), "object");
  assert.equal((await pagarme.lookup({ chargeId: input.chargeId })).outcome, "paid");
});

test("Pix: the provider's BR Code and expiry, the image drawn by feira; a phone is required", async () => {
  assert.match(pagarme.checkInstrument(check("pix", { ...CUSTOMER, phone: null }))!, /^customer\.phone is required/);
  assert.equal(pagarme.checkInstrument(check("pix", CUSTOMER)), null);
  const r = await pagarme.authorize(authorization(pix(1800), { amountMinor: 2990 }));
  assert.equal(r.outcome, "pending", JSON.stringify(r));
  if (r.outcome !== "pending") return;
  const details = r.details as { qrCode: string; qrCodeImage: string; expiresAt: string };
  assert.equal(parseBrCode(details.qrCode).crcValid, true);
  assert.match(details.qrCodeImage, /^data:image\/png;base64,/);
  assert.equal(details.expiresAt, r.expiresAt.toISOString());
  assert.ok(Math.abs(r.expiresAt.getTime() - Date.now() - 1_800_000) < 60_000);
});

test("boleto: line, barcode, PDF and due date; cancel before payment", async () => {
  assert.match(pagarme.checkInstrument(check("boleto", { ...CUSTOMER, documentId: null }))!, /^customer\.document is required/);
  const dueDate = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);
  const input = authorization(boleto({ dueDate }));
  const r = await pagarme.authorize(input);
  assert.equal(r.outcome, "pending", JSON.stringify(r));
  if (r.outcome !== "pending") return;
  const d = r.details as Record<string, string>;
  assert.match(d.digitableLine!, /^\d{47}$/);
  assert.ok(isValidBoleto(d.digitableLine!));
  // Pagar.me's barcode is an image URL: the 44 digits are derived from the line.
  assert.equal(barcodeToDigitableLine(d.barcode!), d.digitableLine);
  assert.match(d.pdfUrl!, /^http/);
  assert.equal(d.dueDate, dueDate);
  const canceled = await pagarme.cancel({ chargeId: input.chargeId, pspRefId: r.pspRefId });
  assert.equal(canceled.outcome, "canceled");
  const after = await pagarme.lookup({ chargeId: input.chargeId });
  assert.deepEqual(after.outcome === "failed" && after.reason, "canceled");
});

test("refunds: partial keeps the charge paid with the refunded amount; the rest makes it refunded", async () => {
  const input = authorization(card("4000000000000010"), { amountMinor: 10_000 });
  const paid = await pagarme.authorize(input);
  const pspRefId = pspOf(paid)!;
  const part = await pagarme.refund({ chargeId: input.chargeId, pspRefId, amountMinor: 3_000, refundId: "re_part1", chargeAmountMinor: 10_000 });
  assert.equal(part.outcome, "succeeded", JSON.stringify(part));
  const again = await pagarme.refund({ chargeId: input.chargeId, pspRefId, amountMinor: 3_000, refundId: "re_part1", chargeAmountMinor: 10_000 });
  assert.equal(again.outcome, "succeeded");
  const mid = await pagarme.lookup({ chargeId: input.chargeId, pspRefId });
  assert.deepEqual(mid.outcome === "paid" && mid.refundedMinor, 3_000, "the same refund id twice refunds once");
  assert.equal((await pagarme.refundStatus({ chargeId: input.chargeId, pspRefId, amountMinor: 3_000, refundId: "re_part1", refundRef: null })).outcome, "succeeded");
  const rest = await pagarme.refund({ chargeId: input.chargeId, pspRefId, amountMinor: 7_000, refundId: "re_rest1", chargeAmountMinor: 10_000 });
  assert.equal(rest.outcome, "succeeded");
  assert.equal((await pagarme.lookup({ chargeId: input.chargeId })).outcome, "refunded");
  // More than is left: refused by Pagar.me, mapped, nothing raw.
  const over = await pagarme.refund({ chargeId: input.chargeId, pspRefId, amountMinor: 1, refundId: "re_over1", chargeAmountMinor: 10_000 });
  assert.equal(over.outcome, "failed");
});

test("lookup: not_found for an unknown reference; a chargeback is reported as charged_back", async () => {
  assert.deepEqual(await pagarme.lookup({ chargeId: "ch_never_sent" }), { outcome: "not_found" });
  const input = authorization(card("4000000000000010"));
  const paid = await pagarme.authorize(input);
  assert.equal(typeof fake.chargeback(pspOf(paid)!), "object");
  assert.equal((await pagarme.lookup({ chargeId: input.chargeId })).outcome, "charged_back");
});

test("faults: each says what it proves, and a lost answer is found by the lookup, never paid twice", async () => {
  // Refused connection: provably nothing sent, a second processor may be tried.
  await fake.setFault("refuse");
  const refused = await pagarme.authorize(authorization(card("4000000000000010")));
  await fake.setFault("none");
  assert.deepEqual(refused.outcome === "unknown" && refused.failure.kind, "connection_refused");
  assert.deepEqual(failoverDecision(refused), { tryNext: true });

  // 500 without the work: the lookup finds nothing, failover allowed.
  await fake.setFault("500", { times: 1, match: "POST /orders" });
  const input500 = authorization(card("4000000000000010"));
  const r500 = await pagarme.authorize(input500);
  assert.deepEqual(r500.outcome === "unknown" && r500.failure.kind, "http_5xx");
  assert.deepEqual(failoverDecision(r500, await pagarme.lookup({ chargeId: input500.chargeId })), { tryNext: true });

  // 500 after the work: the lookup finds the payment, no failover; it is adopted.
  await fake.setFault("500-after-work", { times: 1, match: "POST /orders" });
  const inputWorked = authorization(card("4000000000000010"));
  const worked = await pagarme.authorize(inputWorked);
  const found = await pagarme.lookup({ chargeId: inputWorked.chargeId });
  assert.equal(found.outcome, "paid");
  assert.equal(failoverDecision(worked, found).tryNext, false);

  // Lost answer: unknown, never a failover; the lookup finds it; a retry makes no second order.
  await fake.setFault("lost-answer", { times: 1, match: "POST /orders" });
  const inputLost = authorization(card("4000000000000010"));
  const lost = await pagarme.authorize(inputLost);
  assert.deepEqual(lost.outcome === "unknown" && lost.failure.kind, "lost");
  assert.equal(failoverDecision(lost, { outcome: "not_found" }).tryNext, false);
  assert.equal((await pagarme.lookup({ chargeId: inputLost.chargeId })).outcome, "paid");
  assert.equal((await pagarme.authorize(inputLost)).outcome, "paid");
  assert.equal(fake.ordersCreated(inputLost.chargeId), 1);

  // A provider that hangs: a timeout within PROCESSOR_TIMEOUT_MS, never a guess.
  const slow = createPagarmeProcessor({ secretKey: fake.secretKey, baseUrl: fake.url, timeoutMs: 300 });
  await fake.setFault("hang", { times: 1, match: "POST /orders" });
  const hung = await slow.authorize(authorization(card("4000000000000010")));
  assert.deepEqual(hung.outcome === "unknown" && hung.failure.kind, "timeout");
  await slow.close();
});

test("a wrong secret key is a 4xx refusal: failed, mapped, nothing raw", async () => {
  const wrong = createPagarmeProcessor({ secretKey: "sk_test_wrong", baseUrl: fake.url, timeoutMs: 2_000 });
  try {
    const r = await wrong.authorize(authorization(card("4000000000000010")));
    assert.equal(r.outcome, "failed");
    if (r.outcome !== "failed") return;
    assert.deepEqual({ kind: r.failure?.kind, status: r.failure?.status }, { kind: "http_4xx", status: 401 });
    assert.doesNotMatch(r.failure!.message, /denied/);
  } finally {
    await wrong.close();
  }
});
