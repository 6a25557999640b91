import type { Db } from "../../db/client.js";
import { systemCtx } from "../../core/context.js";
import { AppError, invalid } from "../../core/errors.js";
import type { MandateCapability, MandateInput, MandatePeriodicity, MandateState } from "../../processors/capabilities.js";
import type { ChargeService } from "../charges/index.js";
import type { CustomerService } from "../customers/index.js";
import * as mrepo from "./mandates.repo.js";
import type { SubscriptionRow } from "./subscriptions.repo.js";

// Production Pix Automático: the mandate is made, read and cancelled at the processor that
// `pix_automatico=` names (its mandates capability), never decided from a notice's body. Every
// provider call is made outside any transaction; what it answers is applied by the same
// transitions as the sandbox's payer's bank (mandates.ts), guarded by the mandate's status, so a
// notice, its retry and the reconciliation that read the same state change it once.

export type MandateProvider = (env: "sandbox" | "production") => MandateCapability | null;

/** The Central Bank's periodicity of a plan; null when its cadence has none (two weeks, two months). */
export function mandatePeriodicity(plan: { interval: string; intervalCount: number }): MandatePeriodicity | null {
  const months = plan.interval === "year" ? 12 * plan.intervalCount : plan.interval === "month" ? plan.intervalCount : 0;
  if (plan.interval === "week") return plan.intervalCount === 1 ? "weekly" : null;
  return ({ 1: "monthly", 3: "quarterly", 6: "half_yearly", 12: "yearly" } as Record<number, MandatePeriodicity>)[months] ?? null;
}

/** A date in Brasília (UTC-3, no daylight saving since 2019), as the Central Bank's calendars write it. */
export const brasiliaDate = (at: Date) => new Date(at.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);

/** The live processor's word on a mandate, or the error a sign-up or cancel answers when there is none. */
export function providerAnswer(state: MandateState, what: string): Exclude<MandateState, { outcome: "unknown" | "refused" }> {
  if (state.outcome === "refused") throw invalid(`paymentMethod: the payment processor refused the Pix Automático mandate (code ${state.providerCode ?? "none"})`);
  if (state.outcome === "unknown") throw new AppError("unavailable", `The payment processor gave no answer to rely on while ${what}; retry with the same Idempotency-Key`);
  return state;
}

export interface LiveMandateDeps {
  db: Db;
  provider: MandateProvider;
  charges: Pick<ChargeService, "get">;
  customers: Pick<CustomerService, "named">;
}

export function createLiveMandates(deps: LiveMandateDeps) {
  const { db } = deps;

  /** The processor of the environment's mandates: the sandbox has none (its payer's bank is simulated). */
  const live = (env: "sandbox" | "production") => (env === "production" ? deps.provider(env) : null);

  /** Refuses, before anything is written, a live sign-up no processor serves or whose plan has no periodicity. */
  function checkSignUp(env: "sandbox" | "production", plan: { interval: string; intervalCount: number }) {
    if (env !== "production") return;
    if (!live(env)) throw new AppError("method_not_supported", "paymentMethod.type pix_automatico is not served by the payment processors of this environment (PAYMENT_ROUTES names no pix_automatico processor); use a sandbox key to rehearse it");
    if (!mandatePeriodicity(plan)) throw invalid("planId: a live Pix Automático recurrence is weekly, monthly, quarterly, half-yearly or yearly; this plan's cadence is none of them");
  }

  async function payerOf(s: SubscriptionRow): Promise<MandateInput["payer"]> {
    const c = await deps.customers.named(db, s, s.customerId);
    const type = c.documentType === "cnpj" ? "cnpj" : "cpf";
    return { name: c.name, documentType: type, documentNumber: c.documentId ?? "" };
  }

  /**
   * Makes (or finds again, after a crash) the recurrence of a live sign-up under the mandate's
   * id; journey 3 names the first charge's payment at the processor. The answer's QR is the
   * mandate's.
   */
  async function create(s: SubscriptionRow, m: { id: string; maxAmount: number; retryPolicy: "none" | "3_in_7_days"; firstChargeId: string | null },
    plan: { name: string; interval: string; intervalCount: number }, firstDueAt: Date, now: Date) {
    const capability = live(s.environment)!;
    const first = m.firstChargeId ? await deps.charges.get(systemCtx(s, "billing"), m.firstChargeId) : null;
    const state = providerAnswer(await capability.create({
      mandateId: m.id, journey: first ? "qr_with_payment" : "qr", maxAmountMinor: m.maxAmount,
      ...(first?.pspRefId ? { firstPaymentRef: first.pspRefId } : {}),
      payer: await payerOf(s), periodicity: mandatePeriodicity(plan)!, startDate: brasiliaDate(firstDueAt),
      retryPolicy: m.retryPolicy, description: plan.name, now,
    }), "making the mandate");
    if (state.outcome !== "pending") throw new AppError("unavailable", `The payment processor answered the new mandate as ${state.outcome}; retry with the same Idempotency-Key`);
    return { providerRef: state.mandateRef, qrCode: state.qrCode };
  }

  /** The processor's state of a live mandate, read back (a notice, the reconciliation, a cancel). */
  async function read(m: mrepo.MandateRow): Promise<MandateState> {
    const capability = live(m.environment);
    if (!capability || !m.providerRef) return { outcome: "not_found" };
    return capability.lookup({ mandateId: m.id, mandateRef: m.providerRef });
  }

  /** The merchant's cancel at the processor, before feira's: a mandate still live there would be debited. */
  async function cancelAtProvider(m: mrepo.MandateRow | null | undefined) {
    const capability = m ? live(m.environment) : null;
    if (!m || !capability || !m.providerRef || (m.status !== "pending" && m.status !== "active")) return;
    const state = providerAnswer(await capability.cancel({ mandateId: m.id, mandateRef: m.providerRef }), "cancelling the mandate");
    if (state.outcome === "pending" || state.outcome === "active") throw new AppError("unavailable", "The payment processor still shows the mandate live; retry the cancel");
  }

  return { live, checkSignUp, create, read, cancelAtProvider };
}

export type LiveMandates = ReturnType<typeof createLiveMandates>;
