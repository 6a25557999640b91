import type { ConfigChanges } from "../../db/config-changes.js";
import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Task } from "../../jobs/runner.js";
import type { Sealer } from "../../lib/crypto.js";
import type { LedgerService } from "../ledger/index.js";
import type { MerchantService } from "../merchants/index.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import { submerchantBalanceRoutes } from "./balance.routes.js";
import { connectRoutes } from "./connect.routes.js";
import { createConnectService, salesRollupTask } from "./connect.service.js";
import { createDocumentService } from "./documents.js";
import { payoutRoutes } from "./payouts.routes.js";
import { createPayoutService } from "./payouts.service.js";

// Connect (docs/decisions.md): submerchants with KYC documents and accreditation,
// their keys, fees-info, the default split, and payout requests. The charges module asks it to
// check a charge's split (checkCharge) before the processor is called; the ledger posts shares.
export interface ConnectModuleDeps {
  db: Db;
  config: Pick<Config, "webhookAllowPrivateUrls" | "production" | "amountLimits" | "live">;
  sealer: Sealer;
  merchants: Pick<MerchantService, "createSubmerchantAccount" | "revealKeys" | "getFees">;
  ledger: Pick<LedgerService, "reservePayout" | "completePayout" | "releasePayout" | "returnPayout" | "availableBalance" | "onReversal" | "balanceOf">;
  processors: ProcessorRegistry;
  configChanges: ConfigChanges;
}

const READ_BACK_INTERVAL_MS = 2_000;

export function createConnectModule(deps: ConnectModuleDeps) {
  const service = createConnectService(deps);
  const documents = createDocumentService({ db: deps.db, sealer: deps.sealer, connect: service });
  const payouts = createPayoutService({
    ...deps, connect: service, amountLimits: deps.config.amountLimits, autoApprove: deps.config.live.payoutAutoApprove === true,
    // A send's call may make the transfer until its timeout: twice that before anything judges it by its absence.
    sendLeaseMs: 2 * deps.config.live.timeoutMs,
  });
  // Every refund, chargeback or dispute that takes an owner's available balance below zero first
  // draws on its pending payout requests, in the reversal's transaction.
  deps.ledger.onReversal(payouts.coverReversal);
  const routes = async (app: FastifyInstance) => {
    await app.register(connectRoutes(service, documents));
    await app.register(payoutRoutes(payouts));
    await app.register(submerchantBalanceRoutes(service, deps.ledger));
  };
  // Submerchants' totalSales: the charges' sales tail folded into running counts, like ledger.rollup.
  // Transfers still being sent are read back where they were sent: lost answers, crashes and
  // missed notices only delay a payout's decision.
  const tasks: Task[] = [salesRollupTask(deps.db), payouts.transfers.task(READ_BACK_INTERVAL_MS)];
  return { service, documents, payouts, routes, tasks };
}

export type ConnectModule = ReturnType<typeof createConnectModule>;
