import { breakdownOfPaid } from "../amount-due.js";
import { payerDay, termsOfCharge, type ChargeRow } from "../charges.mapper.js";

// A live charge with terms (a boleto with a fine, interest or a discount) paid at its processor:
// what the payer paid is the processor's to say (its notice, read back), not feira's arithmetic.
// It is kept as the sandbox keeps its own (paidBreakdown), so paidAmount, the receipt and the
// ledger's collected excess (fine + interest - discount, the originator's) read the same field.

/** Adds the paid breakdown to a move into paid, when the charge has terms and the processor said what was paid. */
export function withPaidBreakdown<M extends { to: string; patch: Partial<ChargeRow> }>(charge: ChargeRow, move: M, paidMinor: number | undefined, at: Date): M {
  const terms = termsOfCharge(charge);
  if (move.to !== "paid" || !terms || paidMinor === undefined) return move;
  return { ...move, patch: { ...move.patch, paidBreakdown: breakdownOfPaid(charge.amount, terms, payerDay(at), paidMinor) } };
}
