// The collection terms of a boleto in the Pagar.me fake, as Pagar.me documents them (reference
// "Boleto", docs.pagar.me/reference/boleto-1, and the official SDK's CreateBoletoPaymentRequest,
// CreateFineRequest, CreateInterestRequest in pagarme/pagarme-nodejs-sdk), never as feira's
// adapter sends them:
// - `fine` and `interest` are objects whose `days`, `type` and `amount` are all required once the
//   object is sent; `type` is `flat` (cents) or `percentage`; `amount` is an integer (the
//   reference's type), for interest a rate a month; `days` are days after the due date before it
//   is charged (an integer, 0 or more);
// - `max_days_to_pay_past_due`: days the boleto stays payable after `due_at` (an integer, 0 or more);
// - `instructions` at most 256 characters, `document_number` at most 16 (the same reference).
// What the bank collects on a day (amountOn) follows the common Brazilian rule the reference's
// words describe: the fine once, interest of its monthly rate pro rata die (a month = 30 days).

type Obj = Record<string, unknown>;
export interface BoletoRate { days: number; type: "flat" | "percentage"; amount: number }
export interface PagarmeBoletoTerms { fine?: BoletoRate; interest?: BoletoRate; maxDaysToPayPastDue?: number }

const isCount = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function rate(raw: unknown, field: string, err: (field: string, message: string) => void): BoletoRate | undefined {
  if (raw === undefined || raw === null) return undefined;
  const r = (raw && typeof raw === "object" && !Array.isArray(raw) ? raw : {}) as Obj;
  let ok = true;
  if (!isCount(r.days)) { err(`${field}.days`, "The days field is required and must be an integer."); ok = false; }
  if (r.type !== "flat" && r.type !== "percentage") { err(`${field}.type`, "The type field must be flat or percentage."); ok = false; }
  if (!isCount(r.amount)) { err(`${field}.amount`, "The amount field is required and must be an integer."); ok = false; }
  return ok ? { days: r.days as number, type: r.type as BoletoRate["type"], amount: r.amount as number } : undefined;
}

/** Validates the terms of a `payments[].boleto` object (`at` its path); field errors as Pagar.me keys them. */
export function parseBoletoTerms(bo: Obj, at: string, err: (field: string, message: string) => void): PagarmeBoletoTerms {
  if (typeof bo.instructions === "string" && bo.instructions.length > 256) err(`${at}.instructions`, "The instructions field must have at most 256 characters.");
  if (typeof bo.document_number === "string" && bo.document_number.length > 16) err(`${at}.document_number`, "The document_number field must have at most 16 characters.");
  const max = bo.max_days_to_pay_past_due;
  if (max !== undefined && max !== null && !isCount(max)) err(`${at}.max_days_to_pay_past_due`, "The max_days_to_pay_past_due field must be an integer.");
  const fine = rate(bo.fine, `${at}.fine`, err);
  const interest = rate(bo.interest, `${at}.interest`, err);
  return { ...(fine ? { fine } : {}), ...(interest ? { interest } : {}), ...(isCount(max) ? { maxDaysToPayPastDue: max as number } : {}) };
}

/** The terms echoed on the boleto's transaction, in the request's wire names. */
export function termsView(t: PagarmeBoletoTerms | undefined): Obj {
  if (!t) return {};
  return { ...(t.fine ? { fine: t.fine } : {}), ...(t.interest ? { interest: t.interest } : {}), ...(t.maxDaysToPayPastDue !== undefined ? { max_days_to_pay_past_due: t.maxDaysToPayPastDue } : {}) };
}

const DAY_MS = 86_400_000;
const daysLate = (dueDay: string, day: string) => Math.round((Date.parse(`${day}T00:00:00Z`) - Date.parse(`${dueDay}T00:00:00Z`)) / DAY_MS);

/**
 * What the payer's bank collects for a boleto of `amount` cents due on `dueDay` (YYYY-MM-DD) when
 * paid on `day`, from the terms on its transaction (termsView): null past max_days_to_pay_past_due.
 */
export function amountOn(amount: number, dueDay: string, tx: Obj, day: string): number | null {
  const late = daysLate(dueDay, day);
  if (late <= 0) return amount;
  const max = typeof tx.max_days_to_pay_past_due === "number" ? tx.max_days_to_pay_past_due : 0;
  if (late > max) return null;
  const fine = tx.fine as BoletoRate | undefined;
  const interest = tx.interest as BoletoRate | undefined;
  let total = amount;
  if (fine && late >= Math.max(1, fine.days)) total += fine.type === "flat" ? fine.amount : Math.round((amount * fine.amount) / 100);
  if (interest && late >= Math.max(1, interest.days)) {
    const monthly = interest.type === "flat" ? interest.amount : (amount * interest.amount) / 100;
    total += Math.round((monthly * late) / 30);
  }
  return total;
}
