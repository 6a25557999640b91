import type { Db } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import { cardRoutes } from "./cards.routes.js";
import { createCardService, type CustomerLookup } from "./cards.service.js";
import { NO_TASKS } from "../../jobs/runner.js";

/** The card vault: `routes` for app.ts, `service` (cardForCharge) for the charges module. */
export function createCardModule(deps: { db: Db; sealer: Sealer; customers: CustomerLookup }) {
  const service = createCardService(deps);
  return { routes: cardRoutes(service), service, tasks: NO_TASKS };
}

export type CardModule = ReturnType<typeof createCardModule>;
