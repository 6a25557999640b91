// The installments a card buyer may choose and what each costs them: one pure function, used by
// the quote (GET /v1/installments), the charge (its totalAmount) and the checkout pages.
//
// Up to `interestFreeInstallments` the buyer pays the price split in equal parts. Beyond them
// the merchant's monthly rate applies by the price table (Tabela Price, the French amortization
// system Brazilian stores quote): PMT = P·i / (1 - (1+i)^-n). Money is in minor units:
//   installmentAmount = PMT rounded half up to the cent (P / n for an interest-free plan);
//   totalAmount      = n·PMT rounded half up once (the price itself for an interest-free plan);
//   the last installment = totalAmount - (n - 1)·installmentAmount, so the parts always sum to
//   the total exactly; it differs from installmentAmount by at most n/2 cents.
// A plan whose installments would not each be at least one cent is not offered.

export interface InstallmentTerms {
  /** 1-12: the most installments a buyer may choose. */
  maxInstallments: number;
  /** 1-maxInstallments: up to this many, the buyer pays the price and nothing more. */
  interestFreeInstallments: number;
  /** 0-999: the monthly rate in hundredths of a percent (299 = 2.99 % a month). */
  monthlyInterestBasisPoints: number;
}

export interface InstallmentPlan {
  installments: number;
  installmentAmount: number;
  totalAmount: number;
  interestFree: boolean;
}

/** Today's behaviour, before a merchant sets anything: up to 12 installments, all interest-free. */
export const DEFAULT_INSTALLMENT_TERMS: InstallmentTerms = { maxInstallments: 12, interestFreeInstallments: 12, monthlyInterestBasisPoints: 0 };

/** Integer division of a non-negative numerator, rounded half up. */
const divideHalfUp = (numerator: number, denominator: number) => Math.floor((2 * numerator + denominator) / (2 * denominator));

/** The plan of `installments` for a price of `amountMinor`, or null when it is not offered. */
export function installmentPlan(amountMinor: number, terms: InstallmentTerms, installments: number): InstallmentPlan | null {
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 1) throw new RangeError(`amount must be a positive integer of minor units, got ${amountMinor}`);
  if (!Number.isInteger(installments) || installments < 1 || installments > terms.maxInstallments) return null;
  const interestFree = installments <= terms.interestFreeInstallments || terms.monthlyInterestBasisPoints === 0;
  let installmentAmount: number;
  let totalAmount: number;
  if (interestFree) {
    // Exact in integers: no float rounding can move a half cent.
    installmentAmount = divideHalfUp(amountMinor, installments);
    totalAmount = amountMinor;
  } else {
    const i = terms.monthlyInterestBasisPoints / 10_000;
    const pmt = (amountMinor * i) / (1 - (1 + i) ** -installments);
    installmentAmount = Math.round(pmt);
    totalAmount = Math.round(pmt * installments);
  }
  const last = totalAmount - (installments - 1) * installmentAmount;
  if (installmentAmount < 1 || last < 1) return null;
  return { installments, installmentAmount, totalAmount, interestFree };
}

/** Every plan offered for a price, from 1 installment up to the merchant's maximum. */
export function installmentPlans(amountMinor: number, terms: InstallmentTerms): InstallmentPlan[] {
  const plans: InstallmentPlan[] = [];
  for (let n = 1; n <= terms.maxInstallments; n++) {
    const plan = installmentPlan(amountMinor, terms, n);
    if (plan) plans.push(plan);
  }
  return plans;
}

/** The parts a plan's buyer pays, the last one taking the rounding difference. */
export function installmentParts(plan: InstallmentPlan): number[] {
  const parts = new Array<number>(plan.installments).fill(plan.installmentAmount);
  parts[plan.installments - 1] = plan.totalAmount - (plan.installments - 1) * plan.installmentAmount;
  return parts;
}
