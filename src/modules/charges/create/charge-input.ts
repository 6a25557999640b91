import { isIP } from "node:net";
import { AppError, invalid } from "../../../core/errors.js";
import type { RequestCtx } from "../../../core/context.js";
import { inspectCard } from "../../../lib/cards.js";
import { DEFAULT_EXPIRES_IN, MAX_AMOUNT_MINOR, METHOD_CURRENCIES } from "../../../processors/methods.js";
import type { AsyncInstrument, CardInstrument, ChargeRoute, CustomerInput, PaymentMethodType, PostalAddress } from "../../../processors/processor.js";
import { checkDueTerms } from "./due-terms.js";
import type { PaymentMethodCommand } from "./payment-methods.schemas.js";
import { splitOverflow, type SplitBasis, type SplitRule } from "../../ledger/index.js";

// The rules of a charge the schema cannot express, which the charge pipeline runs in its order
// (charge-pipeline.ts), and the method as the processor and the ledger need it. Nothing here
// writes; errors are 422s naming the field.
export interface SavedCards {
  cardForCharge(ctx: RequestCtx, cardId: string): Promise<{
    number: string; brand: string; holderName: string; expirationMonth: string; expirationYear: string; customerId: string;
  }>;
}

export interface NormalizedCharge {
  amountMinor: number;
  currency: string;
  methodType: PaymentMethodType;
  instrument: CardInstrument | AsyncInstrument;
  /** The stored, safe view of the method: never the number or CVV. */
  methodView: Record<string, unknown>;
  brand: string | null;
  installments: number;
}

export function checkSplit(ctx: RequestCtx, split: readonly SplitRule[] | undefined): void {
  if (!split) return;
  const seen = new Set<string>();
  let total = 0;
  for (const [i, rule] of split.entries()) {
    if (rule.merchantId === ctx.merchantId) throw invalid(`split.${i}.merchantId is the charging merchant; its share is the remainder`);
    if (seen.has(rule.merchantId)) throw invalid(`split.${i}.merchantId appears twice`);
    seen.add(rule.merchantId);
    total += Math.round((rule.percentage ?? 0) * 100);
  }
  if (total > 10_000) throw invalid("split percentages must not add up to more than 100");
}

/**
 * The split (`field`: the charge's own or the default one) fits the charge: its fixed amounts in
 * the currency's precision and, with its percentages, within the net (the fee bearers paying the
 * fee). Run with the gross as the net while the fees are not known yet (every caller's check),
 * then with the net before the processor is called (split.ts splitOverflow).
 */
export function checkSplitFits(c: SplitBasis, split: readonly SplitRule[] | null, field: string): void {
  const overflow = splitOverflow(c, split);
  if (overflow) throw invalid(`${field}.${overflow.index}.${overflow.field} ${overflow.message}`);
}

export function checkCustomer(c: { id?: string; name?: string; email?: string; phone?: string; ipAddress?: string }): void {
  if (c.ipAddress !== undefined && isIP(c.ipAddress) === 0) throw invalid("customer.ipAddress must be an IPv4 or IPv6 address");
  if (c.id) return;
  if (!c.name) throw invalid("customer.name is required when customer.id is not given");
  if (!c.email && !c.phone) throw invalid("customer.email or customer.phone is required when customer.id is not given");
}

/**
 * The buyer's address as a processor reads it, from the flat `customer.address` a request sends
 * (and a customer keeps): null unless it names the postal code, street, number, city and state.
 */
export function postalAddressOf(a: Record<string, unknown> | null | undefined): PostalAddress | null {
  const text = (key: string) => (typeof a?.[key] === "string" && a[key] !== "" ? a[key] : undefined);
  const [postalCode, street, number, city, state] = ["postalCode", "street", "number", "city", "state"].map(text);
  if (!postalCode || !street || !number || !city || !state) return null;
  return {
    postalCode, street, number, city, state, country: text("country") ?? "BR",
    ...(text("neighborhood") ? { neighborhood: text("neighborhood") } : {}),
    ...(text("complement") ? { complement: text("complement") } : {}),
  };
}

/** What a method's payment instructions can carry (a Pix QR code, a boleto barcode). */
export function checkMethodAmount(method: PaymentMethodType, amountMinor: number): void {
  const max = MAX_AMOUNT_MINOR[method];
  if (max !== undefined && amountMinor > max) throw invalid(`amount is above what a ${method} payment can carry`);
}

export async function normalizeMethod(
  ctx: RequestCtx, pm: PaymentMethodCommand, money: { amountMinor: number; currency: string }, customerId: string | undefined,
  deps: {
    cards: SavedCards; now: Date;
    /** The processor that will serve the charge: it says what it serves and adds its own rules. */
    processor: Pick<ChargeRoute, "supports" | "checkInstrument" | "decodeWalletToken"> | null;
    customer: CustomerInput | null;
  },
): Promise<Omit<NormalizedCharge, "amountMinor" | "currency">> {
  const { amountMinor, currency } = money;
  const allowed = METHOD_CURRENCIES[pm.type];
  if (allowed !== "any" && !allowed.includes(currency)) {
    throw new AppError("currency_not_supported", `paymentMethod.type ${pm.type} needs currency ${allowed.join(" or ")}, not ${currency}`);
  }
  checkMethodAmount(pm.type, amountMinor);
  if (deps.processor && !deps.processor.supports(pm.type, currency)) {
    throw new AppError("method_not_supported", `paymentMethod.type ${pm.type} in ${currency} is not served by the payment processor of this environment`);
  }
  const { type: _type, ...methodOptions } = pm as { type: string } & Record<string, unknown>;
  const problem = deps.processor?.checkInstrument({
    method: pm.type, currency, amountMinor, options: pm.type === "credit_card" ? {} : methodOptions, customer: deps.customer, now: deps.now,
  });
  if (problem) throw invalid(problem);
  // With no processor for this environment, the charge is refused once the request's own
  // problems are answered (processorFor, in the charge service).
  if (pm.type !== "credit_card") {
    const { type, ...options } = pm as { type: string; expiresIn?: number } & Record<string, unknown>;
    // A boleto's or Pix's due date, fine, interest and discount: the view keeps them (the amount
    // due is read from it), the processor gets them with the defaulted payableUntil.
    const terms = checkDueTerms(pm, money, deps.now, deps.customer);
    return {
      methodType: pm.type,
      instrument: { kind: pm.type, expiresIn: options.expiresIn ?? DEFAULT_EXPIRES_IN[pm.type], options: terms ? { ...options, ...terms } : options },
      // A debit names the mandate it is made under; other methods' options stay out of the view.
      methodView: pm.type === "pix_automatico" ? { type, mandateId: pm.mandateId } : { type, ...terms },
      brand: null,
      installments: 1,
    };
  }

  const sources = [pm.number !== undefined, pm.cardId !== undefined, pm.wallet !== undefined].filter(Boolean).length;
  if (sources !== 1) throw invalid("paymentMethod needs exactly one of number, cardId or wallet");
  let card: { number: string; holderName: string; expirationMonth: string; expirationYear: string; cvv?: string };
  const view: Record<string, unknown> = { type: "credit_card" };
  if (pm.cardId) {
    const saved = await deps.cards.cardForCharge(ctx, pm.cardId);
    if (customerId && saved.customerId !== customerId) throw invalid("paymentMethod.cardId belongs to another customer");
    card = { ...saved, cvv: pm.cvv };
    view.cardId = pm.cardId;
  } else if (pm.wallet) {
    const decoded = deps.processor?.decodeWalletToken?.(pm.wallet.token, deps.now) ?? null;
    if (!decoded) throw invalid("paymentMethod.wallet.token is not a valid wallet token");
    card = { ...decoded, holderName: pm.holderName ?? "WALLET HOLDER" };
    view.walletType = pm.wallet.type;
  } else {
    for (const field of ["holderName", "expirationMonth", "expirationYear", "cvv"] as const) {
      if (pm[field] === undefined) throw invalid(`paymentMethod.${field} is required with paymentMethod.number`);
    }
    card = { number: pm.number!, holderName: pm.holderName!, expirationMonth: pm.expirationMonth!, expirationYear: pm.expirationYear!, cvv: pm.cvv };
  }
  const checked = inspectCard({ ...card, cvv: card.cvv ?? "", now: deps.now, requireCvv: card.cvv !== undefined });
  if (!checked.ok) throw invalid(`paymentMethod.${checked.field}: ${checked.message}`);
  const installments = pm.installments ?? 1;
  Object.assign(view, {
    brand: checked.brand, firstSix: checked.firstSix, lastFour: checked.lastFour, holderName: card.holderName,
    expirationMonth: checked.expirationMonth, expirationYear: checked.expirationYear, installments,
  });
  return {
    methodType: "credit_card",
    instrument: {
      kind: "card", number: checked.number, brand: checked.brand, holderName: card.holderName,
      expirationMonth: checked.expirationMonth, expirationYear: checked.expirationYear, cvv: card.cvv,
      installments, threeDSMode: pm.threeDSMode ?? "none", wallet: pm.wallet,
    },
    methodView: view,
    brand: checked.brand,
    installments,
  };
}
