import type { PaidAmount } from "../../../processors/processor.js";
import { amountDueOn, percentOf } from "../amount-due.js";
import { payerDay, termsOfCharge, type ChargeRow } from "../charges.mapper.js";

// What a live payment paid, as the charge keeps it (paidBreakdown), when the provider says what
// the payer paid (a Pix with a due date: its fine and interest after the due date, its discount
// before): the processor's amount is the truth, as the payer's bank computed it. Its parts are
// the provider's when it names them and they add up; else feira's own computation for the day
// it learns of the payment, when that gives the same total; else the difference is read as the
// discount (paid less than the amount) or as the fine first, up to the charge's fine, and the
// rest as interest (paid more): the payer's bank may count a due date on a weekend or holiday
// as the next business day (docs/processors.md, "Efí: Pix with a due date").

export type Breakdown = { principal: number; discount: number; fine: number; interest: number };

export function providerBreakdown(c: ChargeRow, paid: PaidAmount, at: Date): Breakdown {
  const principal = c.amount;
  const p = paid.parts;
  if (p && principal + p.fineMinor + p.interestMinor - p.discountMinor === paid.totalMinor) {
    return { principal, discount: p.discountMinor, fine: p.fineMinor, interest: p.interestMinor };
  }
  const terms = termsOfCharge(c);
  const { total, ...expected } = amountDueOn(principal, terms, payerDay(at));
  if (total === paid.totalMinor) return expected;
  if (paid.totalMinor <= principal) return { principal, discount: principal - paid.totalMinor, fine: 0, interest: 0 };
  const extra = paid.totalMinor - principal;
  const fine = Math.min(extra, terms?.fineBp ? percentOf(principal, terms.fineBp) : 0);
  return { principal, discount: 0, fine, interest: extra - fine };
}
