import type { Config } from "../../config.js";
import type { RequestCtx } from "../../core/context.js";
import { normalizeMoney } from "../../core/amounts.js";
import { invalid } from "../../core/errors.js";
import { scopeOf } from "../../db/scope.js";
import { toMajor } from "../../lib/money.js";
import type { MerchantService } from "../merchants/index.js";
import { installmentPlans, type InstallmentPlan, type InstallmentTerms } from "../../lib/price-table.js";

// The merchant's installment settings per environment and the quote of a price. Both read the
// merchant's charge profile (cached per process, forgotten by every process on a change), so the
// quote a buyer sees and the charge made next use the same terms.

export interface InstallmentSettingsBody {
  maxInstallments: number;
  interestFreeInstallments: number;
  monthlyInterestPercent: number;
}

export interface InstallmentsDeps {
  config: Pick<Config, "amountLimits">;
  merchants: Pick<MerchantService, "chargeProfile" | "setInstallmentTerms">;
}

export const settingsOf = (t: InstallmentTerms): InstallmentSettingsBody => ({
  maxInstallments: t.maxInstallments, interestFreeInstallments: t.interestFreeInstallments, monthlyInterestPercent: t.monthlyInterestBasisPoints / 100,
});

/** A plan in currency units, as the API answers it. */
export const planView = (p: InstallmentPlan, currency: string) => ({
  installments: p.installments, installmentAmount: toMajor(p.installmentAmount, currency), totalAmount: toMajor(p.totalAmount, currency), interestFree: p.interestFree,
});

export function createInstallmentsService(deps: InstallmentsDeps) {
  async function terms(ctx: RequestCtx): Promise<InstallmentTerms> {
    return (await deps.merchants.chargeProfile(ctx.merchantId)).installments[ctx.environment];
  }

  async function getSettings(ctx: RequestCtx): Promise<InstallmentSettingsBody> {
    return settingsOf(await terms(ctx));
  }

  async function putSettings(ctx: RequestCtx, body: InstallmentSettingsBody): Promise<InstallmentSettingsBody> {
    if (body.interestFreeInstallments > body.maxInstallments) {
      throw invalid(`interestFreeInstallments must be at most maxInstallments (${body.maxInstallments}), not ${body.interestFreeInstallments}`);
    }
    // The schema's multipleOf 0.01 admits 2.99 although 2.99 * 100 is 299.00000000000006.
    const basisPoints = Math.round(body.monthlyInterestPercent * 100);
    const next = { maxInstallments: body.maxInstallments, interestFreeInstallments: body.interestFreeInstallments, monthlyInterestBasisPoints: basisPoints };
    await deps.merchants.setInstallmentTerms(scopeOf(ctx), next);
    return settingsOf(next);
  }

  async function quote(ctx: RequestCtx, query: { amount: number; currency: string }) {
    const { amountMinor, currency } = normalizeMoney(query.amount, query.currency, deps.config.amountLimits);
    return { data: installmentPlans(amountMinor, await terms(ctx)).map((p) => planView(p, currency)) };
  }

  return { getSettings, putSettings, quote, terms };
}

export type InstallmentsService = ReturnType<typeof createInstallmentsService>;
