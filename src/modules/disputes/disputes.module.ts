import type { FastifyInstance } from "fastify";
import type { Db, Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import type { Sealer } from "../../lib/crypto.js";
import type { ChargeDisputes, ChargeDisputesView, ChargeService } from "../charges/index.js";
import { disputeRoutes } from "./disputes.routes.js";
import { createDisputeService } from "./disputes.service.js";

// Disputes: chargebacks and Pix MED as objects with a deadline, evidence
// and money held. The charge path moves the money (charge-disputes.ts); this module owns the
// dispute, its routes, its sandbox and its deadline.
export interface DisputesModuleDeps {
  db: Db;
  sealer: Sealer;
  charges: Pick<ChargeService, "get">;
  chargeModule: { disputeMoney: ChargeDisputes; showDisputes(view: ChargeDisputesView): void };
  /** The sandbox test clock: "now" for a scope, and a hook run when a merchant advances it. */
  clock: { now(q: Queryable, scope: Scope): Promise<Date>; onAdvance(listener: (scope: Scope) => Promise<unknown>): void };
}

export function createDisputesModule(deps: DisputesModuleDeps) {
  const service = createDisputeService({
    db: deps.db, sealer: deps.sealer, charges: deps.charges, money: deps.chargeModule.disputeMoney, clockNow: deps.clock.now,
  });
  deps.chargeModule.showDisputes(service.ofCharge);
  // Advancing a merchant's test clock past a deadline loses its unanswered disputes before
  // the clock answers, as the worker would by then.
  deps.clock.onAdvance((scope) => service.loseOverdue({ merchantId: scope.merchantId, environment: "sandbox" }, 1000));
  const tasks: Task[] = [
    // Unanswered disputes past evidenceDueBy (real time, or the merchant's test clock) are lost.
    { name: "disputes.deadline", intervalMs: 60_000, run: () => service.loseOverdue() },
  ];
  const routes = async (app: FastifyInstance) => {
    await app.register(disputeRoutes(service));
  };
  return { service, routes, tasks };
}

export type DisputesModule = ReturnType<typeof createDisputesModule>;
