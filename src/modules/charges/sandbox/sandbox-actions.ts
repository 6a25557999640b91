import { withTx, type Db } from "../../../db/client.js";
import { AppError, invalid, notFound } from "../../../core/errors.js";
import type { RequestCtx } from "../../../core/context.js";
import type { PaymentProcessor } from "../../../processors/processor.js";
import type { ConnectService } from "../../connect/index.js";
import { grossOf } from "../../ledger/index.js";
import { EVENT_FOR_STATUS, type ChargeEffects } from "../charge-effects.js";
import { EXPIRY, type ChargeStatus } from "../charge-status.js";
import { amountDueOn } from "../amount-due.js";
import { termsOfCharge, toChargeResponse, type ChargeRow } from "../charges.mapper.js";
import * as repo from "../charges.repo.js";
import type { LatePayments } from "../provider-state/late-payments.js";

// The sandbox's actions: what stands in for the payer, the issuer's 3DS page, the risk review,
// the clock and the payer's bank page, and the resend of a simulated status. Each moves a
// sandbox charge through the same guarded transitions (charge-effects) as a live one.

export interface SandboxActionDeps {
  db: Db;
  effects: ChargeEffects;
  connect: Pick<ConnectService, "checkCanResend">;
  /** A charge of the caller's scope, or the 404. */
  get(ctx: RequestCtx, id: string): Promise<ChargeRow>;
  /** The adapter that served a charge (3DS capture). */
  processorFor(ctx: RequestCtx, processorName?: string | null): PaymentProcessor;
  now: () => Date;
  /** The payer's day a charge's amount due is computed for (the test clock's, in the sandbox). */
  dayFor(ctx: RequestCtx, c: ChargeRow): Promise<string>;
  /** A boleto's second payment (its line and its Pix both paid): refunded as a late payment is. */
  late: Pick<LatePayments, "secondPayment">;
}

/** What paid a boleto: its line, or the Pix BR Code it carries. */
export type PaidWith = "boleto" | "pix";
const paidWithOf = (c: ChargeRow): PaidWith => ((c.paymentDetails as { paidWith?: PaidWith } | null)?.paidWith ?? "boleto");

const SANDBOX_ONLY = () => new AppError("forbidden", "Forbidden: sandbox endpoints need a sandbox (sk_test_) key");

export function createSandboxActions(deps: SandboxActionDeps) {
  const { db, effects, get, processorFor, now } = deps;

  /** Sends an event with a simulated status for a sandbox charge; stores no change to it. */
  async function resendWebhook(ctx: RequestCtx, id: string, status: ChargeStatus) {
    const charge = await get(ctx, id);
    if (charge.environment !== "sandbox") throw invalid("resend-webhook is only available for test-mode charges (created with a sandbox key)");
    await deps.connect.checkCanResend(charge.merchantId);
    const event = EVENT_FOR_STATUS[status];
    const eventId = await withTx(db, (tx) => effects.announce(tx, charge, event, { status }));
    return { eventId, event, status };
  }

  // Sandbox actions that stand in for the payer, the issuer's 3DS page and the risk review.
  async function sandboxAct(ctx: RequestCtx, id: string, act: (c: ChargeRow) => Promise<{ to: ChargeStatus; patch: Partial<ChargeRow> }>) {
    if (ctx.environment !== "sandbox") throw SANDBOX_ONLY();
    const charge = await get(ctx, id);
    const { to, patch } = await act(charge);
    return toChargeResponse(await withTx(db, (tx) => effects.moveTo(tx, charge, to, patch)));
  }

  /** What the payer owes on the clock's day, or the 409 past payableUntil. */
  async function dueToday(ctx: RequestCtx, c: ChargeRow) {
    const terms = termsOfCharge(c);
    if (!terms) return null;
    const day = await deps.dayFor(ctx, c);
    if (day > terms.payableUntil) throw new AppError("invalid_state", `Charge ${c.id} was payable until ${terms.payableUntil}; the test clock is at ${day}`);
    return amountDueOn(c.amount, terms, day);
  }

  // The payer pays what is due on the test clock's day: less the discount before its date, plus
  // the fine and interest after the due date; nothing past payableUntil (the charge expired).
  // `via` names what a boleto's payer used, its line or its Pix (kept as paymentDetails.paidWith);
  // the other one paid after is a second payment, refunded as a late payment is (secondPayment).
  async function pay(ctx: RequestCtx, id: string, via?: PaidWith) {
    const charge = await get(ctx, id);
    if (via && charge.status === "paid" && charge.paymentMethodType === "boleto" && via !== paidWithOf(charge)) {
      if (ctx.environment !== "sandbox") throw SANDBOX_ONLY();
      const amount = (await dueToday(ctx, charge))?.total ?? charge.amount;
      const after = await deps.late.secondPayment(charge, amount);
      if (!after) throw new AppError("invalid_state", `Charge ${charge.id} was already paid twice; its second payment was refunded`);
      return toChargeResponse(after);
    }
    return sandboxAct(ctx, id, async (c) => {
      if (c.paymentMethodType === "credit_card") throw new AppError("invalid_state", `Charge ${c.id} is a card charge; only payer-paid methods (Pix, boleto, ...) are paid this way`);
      const details = c.paymentMethodType === "boleto" ? { paymentDetails: { ...(c.paymentDetails as Record<string, unknown> | null), paidWith: via ?? "boleto" } } : {};
      const due = await dueToday(ctx, c);
      if (!due) return { to: "paid", patch: { paidAt: now(), ...details } };
      const { total: _total, ...paidBreakdown } = due;
      return { to: "paid", patch: { paidAt: now(), paidBreakdown, ...details } };
    });
  }

  // Stands in for the clock: the same transition and reason as the expiry janitor, now.
  const expire = (ctx: RequestCtx, id: string) => sandboxAct(ctx, id, async (c) => {
    if (c.paymentMethodType === "credit_card" || c.status !== "pending") {
      throw new AppError("invalid_state", `Charge ${c.id} is ${c.status === "pending" ? "a card charge" : c.status}; only a pending payer-paid charge (Pix, boleto, ...) expires`);
    }
    return EXPIRY;
  });

  // Stands in for the payer's bank that cannot make a Pix Automático debit (fail-debits): the
  // bank's refusal, as a card issuer's for the same cause, not an expiry.
  const refuseDebit = (ctx: RequestCtx, id: string) => sandboxAct(ctx, id, async (c) => {
    if (c.paymentMethodType !== "pix_automatico" || c.status !== "pending") {
      throw new AppError("invalid_state", `Charge ${c.id} is not a pending Pix Automático debit`);
    }
    return { to: "refused", patch: { reason: "insufficient_funds" } };
  });

  const authenticate = (ctx: RequestCtx, id: string, result: "succeeded" | "failed") => sandboxAct(ctx, id, async (c) => {
    if (c.status !== "authentication_required") throw new AppError("invalid_state", `Charge ${c.id} is ${c.status}, not authentication_required`);
    if (result === "failed") return { to: "refused", patch: { reason: "authentication_failed" } };
    const adapter = processorFor(ctx, c.processor);
    // Only an adapter that holds authorizations (3DS, review) answers authentication_required.
    if (!adapter.capture) throw new Error(`processor ${adapter.name} held an authorization but declares no capture`);
    const captured = await adapter.capture({ chargeId: c.id, pspRefId: c.pspRefId ?? "", amountMinor: grossOf(c) });
    return captured.outcome === "paid"
      ? { to: "paid", patch: { paidAt: now() } }
      : { to: captured.outcome, patch: { reason: captured.reason } };
  });

  const review = (ctx: RequestCtx, id: string, result: "approved" | "rejected") => sandboxAct(ctx, id, async (c) => {
    if (c.status !== "in_analysis") throw new AppError("invalid_state", `Charge ${c.id} is ${c.status}, not in_analysis`);
    return result === "approved" ? { to: "paid", patch: { paidAt: now() } } : { to: "refused", patch: { reason: "rejected_by_review" } };
  });

  /**
   * The payer's answer on a sandbox bank page (Open Finance consent, PSE): approve pays the
   * charge, reject refuses it. Only pending sandbox charges of that method.
   */
  async function bankDecision(id: string, method: "open_finance" | "pse", decision: "approve" | "reject") {
    const charge = await repo.findSandboxCharge(db, id);
    if (!charge || charge.paymentMethodType !== method) throw notFound("Charge", id);
    const to = decision === "approve" ? "paid" : "refused";
    const patch = decision === "approve" ? { paidAt: now() } : { reason: "rejected_by_payer" };
    return withTx(db, (tx) => effects.moveTo(tx, charge, to, patch));
  }

  async function findSandbox(id: string) {
    return repo.findSandboxCharge(db, id);
  }

  /**
   * The expiry janitor of sandbox charges: an unpaid charge past its expiresAt (Pix, boleto and
   * the other payer-paid methods) fails with reason "expired": the legacy charge.updated goes to
   * its postback URL and charge.failed to the endpoints. The guarded transition makes a payment
   * that lands at the same moment win or lose cleanly, never both. Live charges ask their
   * provider first (provider-state/live-expiry.ts).
   */
  async function expireUnpaid(): Promise<number> {
    let n = 0;
    for (const c of await repo.expiredPendingCharges(db, "sandbox", 100)) {
      const moved = await withTx(db, (tx) => effects.moveTo(tx, c, EXPIRY.to, EXPIRY.patch))
        .then(() => 1, (err: unknown) => {
          if (err instanceof AppError && (err.code === "conflict" || err.code === "invalid_state")) return 0; // paid meanwhile
          throw err;
        });
      n += moved;
    }
    return n;
  }

  return { resendWebhook, pay, expire, refuseDebit, authenticate, review, bankDecision, findSandbox, expireUnpaid };
}

export type SandboxActions = ReturnType<typeof createSandboxActions>;
