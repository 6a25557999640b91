import type { Db } from "../../db/client.js";
import type { Task } from "../../jobs/runner.js";
import { ledgerRoutes } from "./ledger.routes.js";
import { createLedgerService } from "./ledger.service.js";

/** The ledger: balances and their routes, the postings other modules make, and its jobs. */
export function createLedgerModule(deps: { db: Db }) {
  const service = createLedgerService(deps);
  const tasks: Task[] = [
    // Moves pending balance to available on its settlement dates.
    { name: "ledger.settle", intervalMs: 60_000, run: () => service.settle({ dueBy: new Date() }) },
    // Ends the holds of recipients' holdDays once over (holds.ts), before their settlement.
    { name: "ledger.hold-days", intervalMs: 60_000, run: () => service.releaseHeldDays({ now: new Date() }) },
    // Folds committed ledger entries into the running balances that GET /v1/balance and the
    // payout check read (the rollups plus the entries since); exact whether it ran or not.
    { name: "ledger.rollup", intervalMs: 5_000, run: () => service.rollUp() },
  ];
  return { service, routes: ledgerRoutes(service), tasks };
}

export type LedgerModule = ReturnType<typeof createLedgerModule>;
