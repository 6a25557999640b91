import { NO_TASKS } from "../../jobs/runner.js";
import { installmentsRoutes } from "./installments.routes.js";
import { createInstallmentsService, type InstallmentsDeps } from "./installments.service.js";

/** Card installments the buyer pays: the merchant's terms per environment and the quote. */
export function createInstallmentsModule(deps: InstallmentsDeps) {
  const service = createInstallmentsService(deps);
  return { service, routes: installmentsRoutes(service), tasks: NO_TASKS };
}

export type InstallmentsModule = ReturnType<typeof createInstallmentsModule>;
