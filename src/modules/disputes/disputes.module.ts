import type { FastifyInstance } from "fastify";
import type { Db, Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import { AppError } from "../../core/errors.js";
import { systemCtx } from "../../core/context.js";
import type { Sealer } from "../../lib/crypto.js";
import type { FoundDispute } from "../../processors/processor.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import type { ChargeDisputes, ChargeDisputesView, ChargeRow, ChargeService, ProviderDisputeHandler } from "../charges/index.js";
import type { SellerAccounts } from "../../processors/provider-split.js";
import { canMove } from "./dispute-status.js";
import { findByRef, openProviderDisputes } from "./disputes.repo.js";
import { disputeRoutes } from "./disputes.routes.js";
import { createDisputeService } from "./disputes.service.js";

// Disputes: chargebacks and Pix MED as objects with a deadline, evidence
// and money held. The charge path moves the money (charge-disputes.ts) and reads the providers
// (provider-sync.ts); this module owns the dispute, its routes, its sandbox, its deadline and the
// read-back of open live disputes.

export interface DisputesModuleDeps {
  db: Db;
  sealer: Sealer;
  charges: Pick<ChargeService, "get">;
  chargeModule: {
    disputeMoney: ChargeDisputes; showDisputes(view: ChargeDisputesView): void; handleDisputes(handler: ProviderDisputeHandler): void;
    /** What a call about a live charge's payment carries of its sellers (a payment on a seller's own account). */
    chargeSellers(charge: ChargeRow): Promise<SellerAccounts>;
    /** Reads disputes back at their provider and applies them (the charge path's provider sync). */
    sync: {
      /** `on`: the sellers' accounts the disputes are read on, when they are a seller's (its token reads them). */
      syncDisputes(processor: string, refs: readonly string[], on?: SellerAccounts): Promise<void>;
      /** Applies a provider's dispute to the live charge of its payment; false when none is. */
      syncDispute(processor: string, dispute: FoundDispute): Promise<boolean>;
    };
  };
  /** The live processors, whose adapters' disputes capability reads disputes and takes evidence. */
  processors: Pick<ProcessorRegistry, "adapter" | "definitions">;
  /** The sandbox test clock: "now" for a scope, and a hook run when a merchant advances it. */
  clock: { now(q: Queryable, scope: Scope): Promise<Date>; onAdvance(listener: (scope: Scope) => Promise<unknown>): void };
}

/** How many open live disputes one reconciliation round reads back. */
const RECONCILE_BATCH = 50;

export function createDisputesModule(deps: DisputesModuleDeps) {
  const service = createDisputeService({
    db: deps.db, sealer: deps.sealer, charges: deps.charges, money: deps.chargeModule.disputeMoney, clockNow: deps.clock.now,
    capabilityOf: (processor) => deps.processors.adapter("production", processor)?.disputes,
    sellersOf: deps.chargeModule.chargeSellers,
  });
  deps.chargeModule.showDisputes(service.ofCharge);
  // A provider's dispute of a live charge (its notice read back, or a payment read carrying it).
  deps.chargeModule.handleDisputes(service.fromProvider);
  // Advancing a merchant's test clock past a deadline loses its unanswered disputes before
  // the clock answers, as the worker would by then.
  deps.clock.onAdvance((scope) => service.loseOverdue({ merchantId: scope.merchantId, environment: "sandbox" }, 1000));
  // Open live disputes are read back at their provider, 50 a round from where the last stopped:
  // a decision whose notice was lost only waits. Only processors whose disputes are read by id.
  let after: string | undefined;
  /** The sellers' accounts a dispute is read on where its charge's payment is a seller's own (read with the seller's token). */
  async function sellersOfDispute(d: { merchantId: string; chargeId: string; processor: string }): Promise<SellerAccounts> {
    if (!deps.processors.adapter("production", d.processor)?.sellerOwned) return {};
    const charge = await deps.charges.get(systemCtx({ merchantId: d.merchantId, environment: "production" }, "disputes.reconcile-live"), d.chargeId);
    return deps.chargeModule.chargeSellers(charge);
  }
  async function reconcileLive(): Promise<number> {
    const readable = deps.processors.definitions.map((d) => d.name).filter((n) => deps.processors.adapter("production", n)?.disputes?.lookup);
    const batch = await openProviderDisputes(deps.db, readable, RECONCILE_BATCH, after);
    after = batch.length === RECONCILE_BATCH ? batch.at(-1)!.id : undefined;
    for (const d of batch) {
      try {
        if (d.disputeRef) await deps.chargeModule.sync.syncDisputes(d.processor, [d.disputeRef], await sellersOfDispute(d));
      } catch (err) {
        // A provider without an answer (or a seller's authorization) leaves its dispute for the next round; the others go on.
        if (!(err instanceof AppError && (err.code === "unavailable" || err.code === "submerchant_not_at_provider"))) throw err;
      }
    }
    return batch.length;
  }
  // Disputes a provider announces by no notice (Efí's MED infractions) are listed every round in
  // its window; each is applied once per (processor, disputeRef) (the unique key and the guarded
  // move make a repeat, a crash or two workers harmless), and one feira already has as the
  // provider says costs no further call. Answers how many were opened or moved.
  async function pollListed(): Promise<number> {
    let n = 0;
    for (const processor of deps.processors.definitions.map((d) => d.name)) {
      const capability = deps.processors.adapter("production", processor)?.disputes;
      if (!capability?.recent) continue;
      const listed = await capability.recent({ now: new Date() });
      // No answer: the next round lists the same window again.
      if (listed.outcome === "unknown") continue;
      for (const { chargeRef, ...d } of listed.disputes) {
        const known = await findByRef(deps.db, processor, d.disputeRef);
        if (known && (known.status === d.outcome || !canMove(known.status, d.outcome))) continue;
        const ref = await chargeRef();
        if (ref && await deps.chargeModule.sync.syncDispute(processor, { ...d, chargeRef: ref })) n++;
      }
    }
    return n;
  }
  const tasks: Task[] = [
    // Unanswered disputes past evidenceDueBy (real time, or the merchant's test clock) are lost.
    { name: "disputes.deadline", intervalMs: 60_000, run: () => service.loseOverdue() },
    { name: "disputes.reconcile-live", intervalMs: 5 * 60_000, run: reconcileLive },
    { name: "disputes.poll-live", intervalMs: 5 * 60_000, run: pollListed },
  ];
  const routes = async (app: FastifyInstance) => {
    await app.register(disputeRoutes(service));
  };
  return { service, routes, tasks };
}

export type DisputesModule = ReturnType<typeof createDisputesModule>;
