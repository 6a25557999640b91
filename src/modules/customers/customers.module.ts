import type { Db } from "../../db/client.js";
import { customerRoutes } from "./customers.routes.js";
import { createCustomerService } from "./customers.service.js";
import { NO_TASKS } from "../../jobs/runner.js";

/** Customers: `routes` for app.ts, `service` for the charge path, the vault and subscriptions. */
export function createCustomersModule(deps: { db: Db }) {
  const service = createCustomerService(deps);
  return { service, routes: customerRoutes(service), tasks: NO_TASKS };
}

export type CustomersModule = ReturnType<typeof createCustomersModule>;
