import { daysBetween } from "../../lib/calendar.js";

// The amount a boleto or Pix with a due date asks on a given day (docs/processors.md, "Collection terms"): one
// pure function, which GET /v1/charges/{id} (amountDue), the sandbox's pay and the ledger's
// posting of the payment all read. Days are calendar days (YYYY-MM-DD) of the payer's calendar
// (Brasília), never instants: a due date is a whole day.

/** A charge's collection terms in minor units and basis points (1 % = 100), as stored. */
export interface DueTerms {
  dueDate: string;
  /** The last day it can be paid; after it the charge expires. */
  payableUntil: string;
  /** Once, on any day after the due date: basis points of the principal. */
  fineBp?: number;
  /** Simple interest per month after the due date, pro rata die (a month = 30 days): basis points. */
  interestMonthlyBp?: number;
  /** Until `until` (inclusive): a fixed amount, or basis points of the principal. */
  discount?: { amountMinor?: number; bp?: number; until: string };
}

export interface AmountDue {
  /** The charge's amount. */
  principal: number;
  discount: number;
  fine: number;
  interest: number;
  /** principal - discount + fine + interest. */
  total: number;
}

/**
 * num / den rounded half up (both non-negative), in BigInt: the interest's numerator (amount x
 * basis points x days) passes 2^53 for large amounts long overdue, where a float would round.
 */
function roundHalfUp(num: bigint, den: bigint): number {
  return Number((2n * num + den) / (2n * den));
}

/** `bp` basis points of `amountMinor`, rounded half up to the cent. */
export function percentOf(amountMinor: number, bp: number): number {
  return roundHalfUp(BigInt(amountMinor) * BigInt(bp), 10_000n);
}

/**
 * What the payer owes on `day`: on or before `discount.until`, the amount less the discount; on
 * or before the due date, the amount; after it, the amount plus the fine (once) plus simple
 * interest of monthly/30 per calendar day after the due date. Each part is rounded half up to the
 * cent on its own (the fine and the interest each once, never day by day). Terms null: the amount.
 */
export function amountDueOn(amountMinor: number, terms: DueTerms | null, day: string): AmountDue {
  const due: AmountDue = { principal: amountMinor, discount: 0, fine: 0, interest: 0, total: amountMinor };
  if (!terms) return due;
  const late = daysBetween(terms.dueDate, day);
  if (late > 0) {
    due.fine = terms.fineBp ? percentOf(amountMinor, terms.fineBp) : 0;
    due.interest = terms.interestMonthlyBp
      ? roundHalfUp(BigInt(amountMinor) * BigInt(terms.interestMonthlyBp) * BigInt(late), 30n * 10_000n)
      : 0;
  } else if (terms.discount && day <= terms.discount.until) {
    const d = terms.discount;
    // Never more than the amount less one cent: a charge is never free (validated on creation too).
    due.discount = Math.min(amountMinor - 1, d.amountMinor ?? percentOf(amountMinor, d.bp ?? 0));
  }
  due.total = amountMinor - due.discount + due.fine + due.interest;
  return due;
}

/**
 * The breakdown of what a processor reports paid (`paidMinor`, a PaidAmount's totalMinor) for a charge with terms on `day`:
 * the amount due that day when it matches; otherwise the difference from the amount is told
 * apart from the processor's own total, never invented: more than the amount is the fine (up to
 * the terms' fine) then interest, less is a discount. `principal - discount + fine + interest`
 * is always `paidMinor`.
 */
export function breakdownOfPaid(amountMinor: number, terms: DueTerms, day: string, paidMinor: number): Omit<AmountDue, "total"> {
  const { total, ...expected } = amountDueOn(amountMinor, terms, day);
  if (total === paidMinor) return expected;
  const excess = paidMinor - amountMinor;
  if (excess <= 0) return { principal: amountMinor, discount: -excess, fine: 0, interest: 0 };
  const fine = Math.min(excess, terms.fineBp ? percentOf(amountMinor, terms.fineBp) : 0);
  return { principal: amountMinor, discount: 0, fine, interest: excess - fine };
}
