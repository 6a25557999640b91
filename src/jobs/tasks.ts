import type { Config } from "../config.js";
import type { Db } from "../db/client.js";
import type { FastifyBaseLogger } from "fastify";
import type { Services } from "../app.js";
import { purgeIdempotencyKeys } from "../http/idempotency.js";
import { deliveryLogTask } from "../modules/webhooks/delivery-log.js";
import type { Task } from "./runner.js";

/** The catalog of background tasks; a new kind of work is one entry here. */
export function createTasks(deps: { config: Config; db: Db; services: Services; log?: FastifyBaseLogger }): Task[] {
  return [
    ...deps.services.webhooks.tasks,
    ...(deps.log ? [deliveryLogTask(deps.services.webhooks.delivery, deps.log)] : []),
    ...deps.services.subscriptions.tasks,
    {
      // Moves pending balance to available on its settlement dates.
      name: "ledger.settle",
      intervalMs: 60_000,
      run: () => deps.services.ledger.settle({ dueBy: new Date() }),
    },
    {
      // Folds committed ledger entries into the running balances that GET /v1/balance and the
      // payout check read (the rollups plus the entries since); exact whether it ran or not.
      name: "ledger.rollup",
      intervalMs: 5_000,
      run: () => deps.services.ledger.rollUp(),
    },
    {
      name: "idempotency.purge",
      intervalMs: 60 * 60 * 1000,
      run: async () => {
        await purgeIdempotencyKeys(deps.db);
        return 0;
      },
    },
    {
      // Unpaid Pix, boleto and other payer-paid charges past their expiresAt become failed.
      name: "charges.expire",
      intervalMs: 30_000,
      run: () => deps.services.charges.expireUnpaid(),
    },
    {
      // Refunds left pending by a crash are finished against the processor's record. The grace
      // outlasts any live request (its idempotency lease bounds how long it may run).
      name: "refunds.reconcile",
      intervalMs: 30_000,
      run: () => deps.services.refunds.reconcilePending(deps.config.idempotencyLeaseMs),
    },
  ];
}
