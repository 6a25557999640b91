import type { ConfigChanges } from "../../db/config-changes.js";
import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db, Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import type { Sealer } from "../../lib/crypto.js";
import type { LedgerService } from "../ledger/index.js";
import type { MerchantService } from "../merchants/index.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import { connectRoutes } from "./connect.routes.js";
import { createConnectService, salesRollupTask } from "./connect.service.js";
import { createDocumentService } from "./documents.js";
import { createPayoutSchedules } from "./payout-schedules.js";
import { payoutRoutes } from "./payouts.routes.js";
import { createPayoutService } from "./payouts.service.js";
import { createProviderTransfers } from "./provider-transfers.js";
import { providerAccountRoutes } from "./provider-accounts.routes.js";
import { createProviderAccountService } from "./provider-accounts.service.js";
import { createSellerTokens } from "./seller-tokens.js";
import { createReconciliations } from "./reconciliations.js";
import { reconciliationRoutes } from "./reconciliations.routes.js";

// Connect (docs/decisions.md): submerchants with KYC documents and accreditation,
// their keys, fees-info, the default split, and payout requests. The charges module asks it to
// check a charge's split (checkCharge) before the processor is called; the ledger posts shares.
export interface ConnectModuleDeps {
  db: Db;
  config: Pick<Config, "webhookAllowPrivateUrls" | "production" | "amountLimits" | "live" | "publicBaseUrl" | "jwtSecret" | "encryptionKey">;
  sealer: Sealer;
  merchants: Pick<MerchantService, "createSubmerchantAccount" | "revealKeys" | "getFees">;
  ledger: Pick<LedgerService, "reservePayout" | "completePayout" | "releasePayout" | "returnPayout" | "availableBalance" | "balanceOf" | "onReversal" | "postProviderTransfer">;
  processors: ProcessorRegistry;
  configChanges: ConfigChanges;
  /** "now" for a scope: real time, or the merchant's sandbox test clock (the subscriptions module's). */
  clockNow(q: Queryable, scope: Scope): Promise<Date>;
}

const READ_BACK_INTERVAL_MS = 2_000;
const SCHEDULE_INTERVAL_MS = 60_000;
const TOKEN_SWEEP_INTERVAL_MS = 3_600_000;
const RECONCILE_INTERVAL_MS = 10 * 60_000;
const PROVIDER_TRANSFERS_INTERVAL_MS = 5 * 60_000;

export function createConnectModule(deps: ConnectModuleDeps) {
  const sellerTokens = createSellerTokens({ db: deps.db, sealer: deps.sealer, processors: deps.processors });
  const service = createConnectService({ ...deps, sellerTokens });
  const documents = createDocumentService({ db: deps.db, sealer: deps.sealer, connect: service });
  const payouts = createPayoutService({
    ...deps, connect: service, amountLimits: deps.config.amountLimits, autoApprove: deps.config.live.payoutAutoApprove === true,
    // A send's call may make the transfer until its timeout: twice that before anything judges it by its absence.
    sendLeaseMs: 2 * deps.config.live.timeoutMs,
  });
  // Every refund, chargeback or dispute that takes an owner's available balance below zero first
  // draws on its pending payout requests, in the reversal's transaction.
  deps.ledger.onReversal(payouts.coverReversal);
  // A scheduled run may send its payout (PAYOUT_AUTO_APPROVE): its lease outlasts a send's.
  const providerAccounts = createProviderAccountService({ db: deps.db, processors: deps.processors, connect: service, sellerTokens, config: deps.config });
  const schedules = createPayoutSchedules({
    db: deps.db, payouts, ledger: deps.ledger, clockNow: deps.clockNow, leaseMs: 4 * deps.config.live.timeoutMs, atProviders: providerAccounts,
  });
  const providerTransfers = createProviderTransfers({ db: deps.db, processors: deps.processors, ledger: deps.ledger, clockNow: deps.clockNow });
  const reconciliations = createReconciliations({
    db: deps.db, processors: deps.processors, ledger: deps.ledger, connect: service, clockNow: deps.clockNow, beforeRead: providerTransfers.syncAccount,
  });
  const routes = async (app: FastifyInstance) => {
    await app.register(connectRoutes(service, documents, schedules));
    await app.register(payoutRoutes(payouts));
    await app.register(providerAccountRoutes(providerAccounts));
    await app.register(reconciliationRoutes(reconciliations));
  };
  // Submerchants' totalSales: the charges' sales tail folded into running counts, like ledger.rollup.
  // Transfers still being sent are read back where they were sent: lost answers, crashes and
  // missed notices only delay a payout's decision.
  // Scheduled payouts: due ones each minute, and at once when the worker starts (a missed day).
  const tasks: Task[] = [salesRollupTask(deps.db), payouts.transfers.task(READ_BACK_INTERVAL_MS), schedules.task(SCHEDULE_INTERVAL_MS),
    // Sellers' OAuth tokens are renewed a day before they expire, whether or not a charge uses them.
    { name: "connect.seller-tokens", intervalMs: TOKEN_SWEEP_INTERVAL_MS, run: () => sellerTokens.sweep() },
    // Provider settlement's daily reconciliation: each account once a day, tried every 10 minutes.
    reconciliations.task(RECONCILE_INTERVAL_MS),
    // Provider settlement's transfers made by the processors, recorded as read-only payouts.
    providerTransfers.task(PROVIDER_TRANSFERS_INTERVAL_MS)];
  return { service, documents, payouts, schedules, providerAccounts, reconciliations, providerTransfers, routes, tasks };
}

export type ConnectModule = ReturnType<typeof createConnectModule>;
