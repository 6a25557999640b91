import type { Db } from "../../db/client.js";
import type { Task } from "../../jobs/runner.js";
import type { AmountLimits } from "../../lib/money.js";
import type { CardService } from "../cards/index.js";
import type { ChargeCancel, ChargeEffects, ChargeService, RefundService } from "../charges/index.js";
import type { CustomerService } from "../customers/index.js";
import type { MerchantService } from "../merchants/index.js";
import { createBillingEngine } from "./billing-engine.js";
import { createSandboxClock } from "./clock.js";
import { clockRoutes } from "./clock.routes.js";
import { createLiveMandates, type MandateProvider } from "./live-mandates.js";
import { createMandateReconciliation, MANDATE_RECHECK_MS } from "./mandate-reconciliation.js";
import { createMandates } from "./mandates.js";
import { createOpenPayments } from "./open-payments.js";
import { mandateRoutes } from "./mandates.routes.js";
import { planRoutes } from "./plans.routes.js";
import { createPlanService } from "./plans.service.js";
import * as plansRepo from "./plans.repo.js";
import type { EventContext } from "./subscription-events.js";
import { subscriptionRoutes } from "./subscriptions.routes.js";
import { createSubscriptionService } from "./subscriptions.service.js";
import * as repo from "./subscriptions.repo.js";

export interface SubscriptionModuleDeps {
  db: Db;
  charges: Pick<ChargeService, "check" | "submit" | "pay" | "refuseDebit" | "get">;
  effects: Pick<ChargeEffects, "onStatusChange">;
  refunds: Pick<RefundService, "refund">;
  /** Cancels a charge still open at its processor (a cancelled subscription's first QR or scheduled debit). */
  cancelOpen: ChargeCancel["cancelOpen"];
  cards: Pick<CardService, "create">;
  customers: Pick<CustomerService, "resolveForCharge" | "named">;
  merchants: Pick<MerchantService, "getMerchant">;
  /** The ceiling on plan prices (config.amountLimits). */
  amountLimits: AmountLimits;
  /** How long a worker's claim on a subscription lasts (the idempotency lease is a good bound). */
  leaseMs: number;
  /** Production Pix Automático: the mandates of the processor pix_automatico= names (the registry's). */
  mandateProvider?: MandateProvider;
  now?: () => Date;
}

const BATCH = 100;
const LANES = 4;

/**
 * Plans, subscriptions, the billing engine and the sandbox clock. The engine listens to charge
 * status changes (in the charge's own transaction) and its renewal task claims due
 * subscriptions in batches.
 */
export function createSubscriptionModule(deps: SubscriptionModuleDeps) {
  const { db } = deps;
  const events: EventContext = {
    plan: async (q, s) => (await plansRepo.findPlan(q, s, s.planId)) ?? null,
    customer: (q, s) => deps.customers.named(q, s, s.customerId),
  };
  // The sandbox's payer's bank debits through the mandates, which are made with the engine.
  const engine = createBillingEngine({ db, charges: deps.charges, events, now: deps.now, debit: (s, chargeId) => mandates.debit(s, chargeId) });
  // Charges made for a subscription carry its id in a column only the billing engine sets (a
  // client's metadata.subscriptionId is just metadata); no other charge can concern the billing
  // engine, so they are created without a transaction around.
  deps.effects.onStatusChange({
    concerns: (charge) => charge.subscriptionId !== null,
    onChange: engine.onChargeStatus,
  });
  const plans = createPlanService({ db, amountLimits: deps.amountLimits });
  const liveMandates = createLiveMandates({ db, provider: deps.mandateProvider ?? (() => null), charges: deps.charges, customers: deps.customers });
  const mandates = createMandates({ db, engine, events, charges: deps.charges, merchants: deps.merchants, live: liveMandates });
  const openPayments = createOpenPayments({ db, charges: deps.charges, cancelOpen: deps.cancelOpen, refunds: deps.refunds });
  const service = createSubscriptionService({ ...deps, engine, events, plans, mandates, liveMandates, openPayments });
  const reconcile = createMandateReconciliation({ db, service });
  const clock = createSandboxClock({ db, engine, leaseMs: deps.leaseMs, now: deps.now });

  const tasks: Task[] = [{
    // Renewals, retries, cancels at period end, trial ends and unpaid first payments that fell
    // due, by real time, or by the merchant's test clock for sandbox subscriptions.
    name: "subscriptions.bill",
    intervalMs: 1_000,
    run: async () => {
      const rows = await repo.claimDue(db, { limit: BATCH, leaseMs: deps.leaseMs, mode: "real" });
      if (rows.length < BATCH) rows.push(...(await repo.claimDue(db, { limit: BATCH - rows.length, leaseMs: deps.leaseMs, mode: "clocks" })));
      // A few lanes at once: each renewal waits on the database most of the time.
      const lanes = Array.from({ length: LANES }, (_, i) => rows.filter((_, j) => j % LANES === i));
      await Promise.all(lanes.map((lane) => engine.runClaimed(lane, (s) => engine.clockNow(db, s))));
      return rows.length;
    },
  }, {
    // Live mandates whose notice was lost (or never sent) are read back from their processor,
    // each once per MANDATE_RECHECK_MS.
    name: "subscriptions.mandates.reconcile",
    intervalMs: MANDATE_RECHECK_MS,
    run: () => reconcile.run(),
  }];

  async function routes(app: import("fastify").FastifyInstance) {
    await app.register(planRoutes(plans));
    await app.register(subscriptionRoutes(service));
    await app.register(mandateRoutes(mandates, service));
    await app.register(clockRoutes(clock));
  }

  return { routes, tasks, service, plans, engine, clock, mandates, mandateNotices: reconcile.notice, reconcileMandates: reconcile.run };
}

export type SubscriptionModule = ReturnType<typeof createSubscriptionModule>;
