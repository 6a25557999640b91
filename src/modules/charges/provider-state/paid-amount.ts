import type { PaidAmount } from "../../../processors/processor.js";
import { breakdownOfPaid } from "../amount-due.js";
import { payerDay, termsOfCharge, type ChargeRow } from "../charges.mapper.js";

// A live charge with terms (a boleto or a Pix with a due date: a fine, interest or a discount)
// paid at its processor: what the payer paid is the processor's to say (its notice, read back),
// as the payer's bank computed it, not feira's arithmetic. It is kept as the sandbox keeps its
// own (paidBreakdown), so paidAmount, the receipt and the ledger's collected excess (fine +
// interest - discount, the originator's) read the same field. Its parts are the provider's when
// it names them (the API Pix's componentesValor) and they add up; else breakdownOfPaid: feira's
// own for the day it learns of the payment when the totals agree, else the difference told apart
// (the payer's bank may count a due date on a weekend or holiday as the next business day:
// docs/processors.md, "Efí: Pix with a due date").

/** Adds the paid breakdown to a move into paid, when the charge has terms and the processor said what was paid. */
export function withPaidBreakdown<M extends { to: string; patch: Partial<ChargeRow> }>(charge: ChargeRow, move: M, paid: PaidAmount | undefined, at: Date): M {
  const terms = termsOfCharge(charge);
  if (move.to !== "paid" || !terms || paid === undefined) return move;
  const principal = charge.amount;
  const p = paid.parts;
  const breakdown = p && principal + p.fineMinor + p.interestMinor - p.discountMinor === paid.totalMinor
    ? { principal, discount: p.discountMinor, fine: p.fineMinor, interest: p.interestMinor }
    : breakdownOfPaid(principal, terms, payerDay(at), paid.totalMinor);
  return { ...move, patch: { ...move.patch, paidBreakdown: breakdown } };
}
