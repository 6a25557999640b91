import { AppError } from "../../../core/errors.js";
import { formatMajor } from "../../../lib/money.js";
import { installmentPlan, type InstallmentPlan, type InstallmentTerms } from "../../../lib/price-table.js";

// A card charge's installments against the merchant's terms (PUT /v1/settings/installments):
// more than the maximum is the request's problem, named; beyond the interest-free ones the buyer
// pays the price table's total, which is what the processor is asked for. `amount` stays the
// price: the difference is interest, the originator's alone (ledger.service.ts postChargePaid).

/** The plan the buyer pays with interest, or null when it is the price (interest-free, or not a card). */
export function interestPlan(
  method: { methodType: string; installments: number }, amountMinor: number, currency: string, terms: InstallmentTerms,
): InstallmentPlan | null {
  if (method.methodType !== "credit_card" || method.installments === 1) return null;
  const n = method.installments;
  if (n > terms.maxInstallments) {
    throw new AppError("validation_failed", `paymentMethod.installments must be at most ${terms.maxInstallments}, this merchant's maximum (GET /v1/settings/installments), not ${n}`);
  }
  const plan = installmentPlan(amountMinor, terms, n);
  if (!plan) {
    throw new AppError("validation_failed", `paymentMethod.installments: ${formatMajor(amountMinor, currency)} ${currency} cannot be paid in ${n} installments of at least one cent each`);
  }
  return plan.interestFree ? null : plan;
}
