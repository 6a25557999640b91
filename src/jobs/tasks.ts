import type { Db } from "../db/client.js";
import type { FastifyBaseLogger } from "fastify";
import { purgeIdempotencyKeys } from "../http/idempotency.js";
import { salesRollupTask } from "../modules/connect/connect.service.js";
import { deliveryLogTask } from "../modules/webhooks/delivery-log.js";
import type { Task } from "./runner.js";

/** What the worker runs, from the modules that own the work. */
export interface TaskSources {
  webhooks: { tasks: Task[]; delivery: Parameters<typeof deliveryLogTask>[0] };
  subscriptions: { tasks: Task[] };
  ledger: { tasks: Task[] };
  charges: { tasks: Task[] };
  connect: { tasks: Task[] };
}

/** The catalog of background tasks: each module's own, and the HTTP layer's key purge. */
export function createTasks(deps: { db: Db; modules: TaskSources; log?: FastifyBaseLogger }): Task[] {
  const { modules } = deps;
  return [
    ...modules.webhooks.tasks,
    ...(deps.log ? [deliveryLogTask(modules.webhooks.delivery, deps.log)] : []),
    ...modules.subscriptions.tasks,
    ...modules.ledger.tasks,
    // Submerchants' totalSales: the charges' sales tail folded into running counts, like ledger.rollup.
    salesRollupTask(deps.db),
    {
      name: "idempotency.purge",
      intervalMs: 60 * 60 * 1000,
      run: async () => {
        await purgeIdempotencyKeys(deps.db);
        return 0;
      },
    },
    ...modules.charges.tasks,
    ...modules.connect.tasks,
  ];
}
