import type { Db } from "../../db/client.js";
import type { ConfigChanges } from "../../db/config-changes.js";
import type { LoginThrottle } from "../../http/rate-limit.js";
import type { Sealer } from "../../lib/crypto.js";
import { merchantRoutes } from "./merchants.routes.js";
import { createMerchantService } from "./merchants.service.js";
import { NO_TASKS } from "../../jobs/runner.js";

/** Merchants: accounts, keys, login, fees and the admin routes over them. */
export function createMerchantsModule(deps: { db: Db; sealer: Sealer; adminApiKey: string | undefined; configChanges: ConfigChanges }) {
  const service = createMerchantService(deps);
  /** The routes, with the login lockout that the HTTP layer owns. */
  const routes = (loginThrottle: LoginThrottle) => merchantRoutes(service, loginThrottle);
  return { service, routes, tasks: NO_TASKS };
}

export type MerchantsModule = ReturnType<typeof createMerchantsModule>;
