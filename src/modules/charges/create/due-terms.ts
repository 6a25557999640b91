import { invalid } from "../../../core/errors.js";
import { addDays, calendarDate, isIsoDate } from "../../../lib/calendar.js";
import { toMinor } from "../../../lib/money.js";
import { BRAZIL_TIME_ZONE } from "../../../processors/calendar.js";
import { DEFAULT_EXPIRES_IN } from "../../../processors/methods.js";
import type { CustomerInput } from "../../../processors/processor.js";
import type { DueTerms } from "../amount-due.js";

// A boleto's or a Pix's collection terms (docs/processors.md, "Collection terms"): checked once, at the charge's
// creation, before anything is written; stored in the charge's payment method view in the
// request's own words (percent, currency units), and read back as DueTerms for the arithmetic.

/** The ceilings usual for consumer debts in Brazil (CDC art. 52 par. 1 for the fine; 1 % a month of interest). */
export const MAX_FINE_PERCENT = 2;
export const MAX_MONTHLY_INTEREST_PERCENT = 1;
/** A charge with a fine or interest stays payable this many days after its due date unless payableUntil says otherwise. */
export const DEFAULT_DAYS_PAYABLE_AFTER_DUE = 30;

export interface TermsInput {
  type: string;
  dueDate?: string;
  fine?: { percent: number };
  interest?: { monthlyPercent: number };
  discount?: { amount?: number; percent?: number; until: string };
  payableUntil?: string;
}

/** The terms as stored in the charge's paymentMethod (and answered by GET): the request's units. */
export interface TermsView {
  dueDate: string;
  payableUntil: string;
  fine?: { percent: number };
  interest?: { monthlyPercent: number };
  discount?: { amount?: number; percent?: number; until: string };
}

const bp = (percent: number) => Math.round(percent * 100);

function checkPercent(field: string, value: number, max: number): void {
  if (!(value > 0)) throw invalid(`${field} must be greater than 0`);
  if (value > max) throw invalid(`${field} must be at most ${max} (percent)`);
  if (Math.abs(value * 100 - bp(value)) > 1e-7) throw invalid(`${field} must have at most 2 decimals`);
}

function checkDay(field: string, day: string): void {
  if (!isIsoDate(day)) throw invalid(`${field} must be a calendar date written YYYY-MM-DD`);
}

/**
 * The terms of a boleto or Pix as the charge keeps them, or null when the request names none (a
 * plain Pix, a boleto with only its due date: today's behaviour). 422 naming the field otherwise.
 * `now` picks a boleto's default due date (3 days on, as its instructions do) and "today".
 */
export function checkDueTerms(
  pm: TermsInput, money: { amountMinor: number; currency: string }, now: Date, customer: CustomerInput | null,
): TermsView | null {
  if (pm.type !== "boleto" && pm.type !== "pix") return null;
  const hasTerms = pm.fine !== undefined || pm.interest !== undefined || pm.discount !== undefined || pm.payableUntil !== undefined;
  if (pm.type === "pix" && pm.dueDate === undefined) {
    if (hasTerms) throw invalid("paymentMethod.dueDate is required with fine, interest, discount or payableUntil");
    return null;
  }
  if (pm.type === "boleto" && !hasTerms) return null;
  const today = calendarDate(now, BRAZIL_TIME_ZONE);
  const dueDate = pm.dueDate ?? calendarDate(new Date(now.getTime() + DEFAULT_EXPIRES_IN.boleto * 1000), BRAZIL_TIME_ZONE);
  checkDay("paymentMethod.dueDate", dueDate);
  if (dueDate < today) throw invalid("paymentMethod.dueDate must not be before today (America/Sao_Paulo)");
  if (pm.type === "pix") {
    if ("expiresIn" in pm && pm.expiresIn !== undefined) throw invalid("paymentMethod.expiresIn does not apply to a Pix with dueDate (it is payable until payableUntil)");
    // The Central Bank's cobv names its payer (devedor: cpf or cnpj, and nome).
    if (!customer?.documentId || !customer.name) throw invalid("paymentMethod.dueDate: a Pix with a due date needs the buyer's customer.document (CPF or CNPJ) and customer.name");
  }
  if (pm.fine) checkPercent("paymentMethod.fine.percent", pm.fine.percent, MAX_FINE_PERCENT);
  if (pm.interest) checkPercent("paymentMethod.interest.monthlyPercent", pm.interest.monthlyPercent, MAX_MONTHLY_INTEREST_PERCENT);
  if (pm.discount) checkDiscount(pm.discount, dueDate, money);
  const defaultUntil = pm.fine || pm.interest ? addDays(dueDate, DEFAULT_DAYS_PAYABLE_AFTER_DUE) : dueDate;
  const payableUntil = pm.payableUntil ?? defaultUntil;
  checkDay("paymentMethod.payableUntil", payableUntil);
  if (payableUntil < dueDate) throw invalid("paymentMethod.payableUntil must not be before paymentMethod.dueDate");
  return {
    dueDate, payableUntil,
    ...(pm.fine ? { fine: { percent: pm.fine.percent } } : {}),
    ...(pm.interest ? { interest: { monthlyPercent: pm.interest.monthlyPercent } } : {}),
    ...(pm.discount ? { discount: pm.discount } : {}),
  };
}

function checkDiscount(d: NonNullable<TermsInput["discount"]>, dueDate: string, money: { amountMinor: number; currency: string }): void {
  if ((d.amount === undefined) === (d.percent === undefined)) throw invalid("paymentMethod.discount needs exactly one of amount or percent");
  checkDay("paymentMethod.discount.until", d.until);
  if (d.until > dueDate) throw invalid("paymentMethod.discount.until must not be after paymentMethod.dueDate");
  if (d.percent !== undefined) {
    checkPercent("paymentMethod.discount.percent", d.percent, 99.99);
    return;
  }
  const m = toMinor(d.amount, money.currency, { field: "paymentMethod.discount.amount", minUnits: 0 });
  if (!m.ok) throw invalid(m.message);
  if (m.minor < 1 || m.minor >= money.amountMinor) throw invalid("paymentMethod.discount.amount must be greater than 0 and less than amount");
}

/** A charge's stored terms (its paymentMethod view) as the arithmetic reads them, or null. */
export function dueTermsOf(view: Record<string, unknown>, currency: string): DueTerms | null {
  if (typeof view.dueDate !== "string" || typeof view.payableUntil !== "string") return null;
  const v = view as unknown as TermsView;
  const discount = v.discount && {
    until: v.discount.until,
    ...(v.discount.percent !== undefined ? { bp: bp(v.discount.percent) } : {}),
    ...(v.discount.amount !== undefined ? { amountMinor: minorOf(v.discount.amount, currency) } : {}),
  };
  return {
    dueDate: v.dueDate, payableUntil: v.payableUntil,
    ...(v.fine ? { fineBp: bp(v.fine.percent) } : {}),
    ...(v.interest ? { interestMonthlyBp: bp(v.interest.monthlyPercent) } : {}),
    ...(discount ? { discount } : {}),
  };
}

function minorOf(units: number, currency: string): number {
  const m = toMinor(units, currency, { minUnits: 0 });
  if (!m.ok) throw new Error(`a stored discount amount is not money: ${m.message}`);
  return m.minor;
}
