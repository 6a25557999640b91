import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { memoryLeases, postgresLeases } from "../../core/key-limit.js";
import type { Task } from "../../jobs/runner.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import type { CardService } from "../cards/index.js";
import type { ConnectService } from "../connect/index.js";
import type { CustomerService } from "../customers/index.js";
import type { LedgerService } from "../ledger/index.js";
import type { MerchantService } from "../merchants/index.js";
import { createChargeEffects } from "./charge-effects.js";
import { createChargeDisputes } from "./charge-disputes.js";
import { chargePageUrl, createChargePage } from "./charge-page.js";
import { chargeRoutes, type ChargeDisputesView } from "./create/charges.routes.js";
import { createChargeService } from "./charges.service.js";
import { createProcessorRecords } from "./processor-records.repo.js";
import { createChargeCancel } from "./provider-state/charge-cancel.js";
import { createLiveExpiry } from "./provider-state/live-expiry.js";
import { createNoticeGate } from "./provider-state/provider-notices.js";
import { createProviderSync, type ProviderSync } from "./provider-state/provider-sync.js";
import { providerWebhookRoutes, type MandateNotices, type PayoutNotices } from "./provider-state/provider-webhooks.routes.js";
import { createRefundService } from "./refunds/refunds.service.js";
import { refundRoutes } from "./refunds/refunds.routes.js";
import { createReleases } from "./holds/release.service.js";
import { releaseRoutes } from "./holds/release.routes.js";
import { sandboxRoutes } from "./sandbox/sandbox.routes.js";
import { sandboxBankRoutes } from "./sandbox/sandbox-bank.routes.js";
import { createWaitingCharges } from "./create/waiting-charges.js";
import { sellersOf, type ChargeSellers } from "./charge-sellers.js";
import type { ChargeRow } from "./charges.mapper.js";
import type { SellerAccounts } from "../../processors/provider-split.js";

// The charge path: its internal API (check a ChargeCommand, create what was checked, or submit
// both), refunds, the effects every status change has (ledger, outbox, listeners of other
// modules), the sandbox's own routes and the jobs that finish what a request left open.

export interface ChargesModuleDeps {
  db: Db;
  config: Pick<Config, "publicBaseUrl" | "webhookAllowPrivateUrls" | "production" | "amountLimits" | "idempotencyLeaseMs" | "live" | "databaseUrl">;
  processors: ProcessorRegistry;
  merchants: Pick<MerchantService, "chargeProfile" | "getProfile">;
  customers: Pick<CustomerService, "get" | "inlineForCharge" | "named" | "validateInline">;
  cards: Pick<CardService, "cardForCharge">;
  ledger: LedgerService;
  connect: Pick<ConnectService, "checkCharge" | "chargeSettlement" | "providerAccounts" | "chargeSellers" | "sellerAccount" | "checkCanResend">;
  /** Reads back the payouts' transfers a provider's notice names (connect's payout transfers). */
  payoutNotices?: PayoutNotices;
  /** Reads back the Pix Automático recurrences a provider's notice names (subscriptions' live mandates). */
  mandateNotices?: MandateNotices;
}

/** Where the sandbox simulator keeps what it answered (the processor's own memory, in a table). */
export const sandboxProcessorRecords = createProcessorRecords;

export function createChargesModule(deps: ChargesModuleDeps) {
  const { db, config } = deps;
  const effects = createChargeEffects({ customers: deps.customers, ledger: deps.ledger });
  const service = createChargeService({ ...deps, effects, waiting: createWaitingCharges(config.live.maxWaiting) });
  // A payment on a seller's own account is read, cancelled and refunded with the seller's token (charge-sellers.ts).
  const sellers: ChargeSellers = (charge) => deps.connect.chargeSellers(charge);
  const refunds = createRefundService({ db, effects, ledger: deps.ledger, processorFor: service.processorFor, amountLimits: config.amountLimits, sellers });
  /** What a call about a live charge's payment (its dispute's evidence) carries of its sellers; 422 when a seller's authorization cannot be had. */
  const chargeSellers = async (charge: ChargeRow): Promise<SellerAccounts> => {
    const processor = sync.processorOf(charge);
    return processor ? sellersOf(charge, processor, sellers) : {};
  };
  const sync = createProviderSync({ db, effects, processors: deps.processors, ledger: deps.ledger, sellers, sellerAccount: deps.connect.sellerAccount });
  const liveExpiry = createLiveExpiry({ db, sync });
  const chargeCancel = createChargeCancel({ sync });
  const disputeMoney = createChargeDisputes({ effects, ledger: deps.ledger });
  const page = createChargePage({ db, merchants: deps.merchants, dayFor: service.dayFor });
  // A charge's view shows its disputes, which the disputes module (built after this one) lists.
  let disputesOf: ChargeDisputesView = async () => [];
  const showDisputes = (view: ChargeDisputesView) => { disputesOf = view; };
  const tasks: Task[] = [
    // Unpaid Pix, boleto and other payer-paid charges past their expiresAt become failed.
    { name: "charges.expire", intervalMs: 30_000, run: () => service.expireUnpaid() },
    // Live ones ask their provider first, and are cancelled there.
    { name: "charges.expire-live", intervalMs: 30_000, run: () => liveExpiry.expireLive() },
    // Refunds left pending by a crash are finished against the processor's record. The grace
    // outlasts any live request (its idempotency lease bounds how long it may run).
    { name: "refunds.reconcile", intervalMs: 30_000, run: () => refunds.reconcilePending(config.idempotencyLeaseMs) },
    // Live charges still open (and paid ones, for chargebacks), and live refunds still pending,
    // are read again at their provider: a lost webhook or answer only delays.
    {
      name: "charges.reconcile-live", intervalMs: config.live.reconcileIntervalMs,
      run: async () => (await sync.reconcileLive()) + (await refunds.reconcileLive(config.live.timeoutMs)),
    },
  ];
  // A provider's notice may be about a refund: the charge's pending refunds are read again too.
  const withRefunds: ProviderSync = {
    ...sync,
    async syncByReference(processor, refs) {
      const found = await sync.syncByReference(processor, refs);
      if (found) await refunds.reconcileNotice(processor, refs);
      return found;
    },
  };
  // Provider notices' reads are budgeted like API keys' requests: shared by the processes on PostgreSQL.
  const notices = createNoticeGate({
    db, sync: withRefunds, limits: config.live.webhookLookups, store: config.databaseUrl ? postgresLeases(db) : memoryLeases(),
  });
  const routes = async (app: FastifyInstance) => {
    await app.register(chargeRoutes(service, (scope, id) => disputesOf(scope, id), (token) => chargePageUrl(config, token)));
    await app.register(refundRoutes(refunds));
    await app.register(releaseRoutes(createReleases({ db, ledger: deps.ledger })));
    await app.register(sandboxRoutes(service));
    await app.register(sandboxBankRoutes(service));
    await app.register(providerWebhookRoutes(notices, deps.processors, deps.payoutNotices, deps.mandateNotices, sync.syncNoticeDisputes));
  };
  // A provider's disputes go to the disputes module (built after this one), which registers itself.
  const handleDisputes = sync.handleDisputes;
  return { service, useClock: service.useClock, refunds, effects, sync, notices, page, liveExpiry, cancelOpen: chargeCancel.cancelOpen, disputeMoney, showDisputes, handleDisputes, chargeSellers, routes, tasks };
}

export type ChargesModule = ReturnType<typeof createChargesModule>;
