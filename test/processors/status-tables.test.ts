import { test } from "node:test";
import assert from "node:assert/strict";
import { digitableLineToBarcode } from "../../src/processors/instructions.js";
import { barcodeToDigitableLine } from "../../src/lib/boleto.js";
import { mercadopagoDeclineReason } from "../../src/processors/mercadopago/declines.js";
import { mapMercadoPagoPayment } from "../../src/processors/mercadopago/statuses.js";
import { pagarmeDeclineReason } from "../../src/processors/pagarme/declines.js";
import { mapPagarmeCharge } from "../../src/processors/pagarme/statuses.js";

test("Pagar.me decline codes: ABECS and Pagar.me/Stone's own, unknown ones are card_declined", () => {
  const cases: [string | null, string][] = [
    ["51", "insufficient_funds"], ["54", "expired_card"], ["63", "incorrect_cvc"], ["N7", "incorrect_cvc"], ["n7", "incorrect_cvc"],
    ["14", "incorrect_number"], ["05", "card_declined"], ["57", "card_declined"], ["96", "processing_error"],
    ["1016", "insufficient_funds"], ["1001", "expired_card"], ["2001", "expired_card"], ["1045", "incorrect_cvc"],
    ["1011", "incorrect_number"], ["1000", "card_declined"], ["9111", "processing_error"], [null, "card_declined"], ["zz", "card_declined"],
  ];
  for (const [code, reason] of cases) assert.equal(pagarmeDeclineReason(code), reason, String(code));
});

test("Pagar.me charge and transaction statuses -> feira", () => {
  const m = (status: string, tx?: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    mapPagarmeCharge({ status, last_transaction: tx ?? null, ...extra });
  assert.deepEqual(m("paid", { status: "captured" }), { outcome: "paid", providerCode: "paid/captured" });
  assert.equal(m("overpaid").outcome, "paid");
  assert.equal(m("underpaid").outcome, "in_analysis");
  assert.equal(m("processing").outcome, "in_analysis");
  assert.equal(m("pending", { status: "waiting_payment" }).outcome, "pending");
  assert.equal(m("pending", { status: "analyzing" }).outcome, "in_analysis");
  assert.equal(m("pending", { status: "waiting_payment", threed_authentication_url: "https://3ds" }).outcome, "authentication_required");
  assert.deepEqual(m("failed", { status: "not_authorized", acquirer_return_code: "51" }), { outcome: "refused", reason: "insufficient_funds", providerCode: "51" });
  assert.deepEqual(m("failed", { status: "not_authorized", acquirer_return_code: "1045" }), { outcome: "refused", reason: "incorrect_cvc", providerCode: "1045" });
  assert.deepEqual(m("failed", { status: "with_error" }), { outcome: "failed", reason: "processing_error", providerCode: "failed/with_error" });
  assert.equal(m("failed", { status: "not_authorized", antifraud_response: { status: "reproved" } }).reason, "blocked_by_risk_rules");
  assert.deepEqual(m("canceled", { status: "refunded" }, { paid_amount: 1000 }), { outcome: "refunded", providerCode: "canceled/refunded" });
  assert.deepEqual(m("canceled", { status: "canceled" }), { outcome: "failed", reason: "canceled", providerCode: "canceled/canceled" });
  assert.equal(m("canceled", { status: "expired" }).reason, "expired");
  assert.equal(m("chargedback").outcome, "charged_back");
  assert.equal(m("something_new").outcome, "in_analysis", "an unknown status is never a decision");
});

test("Mercado Pago status_detail decline reasons", () => {
  assert.equal(mercadopagoDeclineReason("cc_rejected_insufficient_amount"), "insufficient_funds");
  assert.equal(mercadopagoDeclineReason("cc_rejected_bad_filled_security_code"), "incorrect_cvc");
  assert.equal(mercadopagoDeclineReason("cc_rejected_bad_filled_date"), "expired_card");
  assert.equal(mercadopagoDeclineReason("cc_rejected_card_error"), "processing_error");
  assert.equal(mercadopagoDeclineReason("cc_rejected_call_for_authorize"), "card_declined");
  assert.equal(mercadopagoDeclineReason("cc_rejected_new_thing"), "card_declined");
});

test("Mercado Pago statuses -> feira", () => {
  const m = (status: string, status_detail?: string, payment_method_id = "visa", payment_type_id?: string) =>
    mapMercadoPagoPayment({ status, status_detail, payment_method_id, payment_type_id });
  assert.deepEqual(m("approved", "accredited"), { outcome: "paid", providerCode: "approved/accredited" });
  assert.equal(m("approved", "partially_refunded").outcome, "paid");
  assert.equal(m("pending", "pending_waiting_transfer", "pix", "bank_transfer").outcome, "pending");
  assert.equal(m("pending", "pending_waiting_payment", "bolbradesco", "ticket").outcome, "pending");
  assert.equal(m("pending", "pending_challenge", "visa", "credit_card").outcome, "authentication_required");
  assert.equal(m("pending", "pending_contingency", "visa", "credit_card").outcome, "in_analysis");
  assert.equal(m("in_process", "pending_review_manual").outcome, "in_analysis");
  assert.equal(m("authorized", "pending_capture").outcome, "in_analysis");
  assert.deepEqual(m("rejected", "cc_rejected_insufficient_amount", "master", "credit_card"), { outcome: "refused", reason: "insufficient_funds", providerCode: "cc_rejected_insufficient_amount" });
  assert.equal(m("rejected", "rejected_by_bank", "pix", "bank_transfer").outcome, "failed");
  assert.deepEqual(m("cancelled", "expired", "pix"), { outcome: "failed", reason: "expired", providerCode: "cancelled/expired" });
  assert.equal(m("cancelled", "by_collector", "pix").reason, "canceled");
  assert.equal(m("refunded", "refunded").outcome, "refunded");
  assert.equal(m("charged_back", "settled").outcome, "charged_back");
  assert.equal(m("in_mediation").outcome, "paid");
  assert.equal(m("brand_new").outcome, "in_analysis");
});

test("a digitable line gives back its barcode", () => {
  const barcode = "00193373700000001000500940144816060680935031";
  assert.equal(digitableLineToBarcode(barcodeToDigitableLine(barcode)), barcode);
});
