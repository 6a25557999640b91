import type { Task } from "../../jobs/runner.js";
import { installmentsRoutes } from "./installments.routes.js";
import { createInstallmentsService, type InstallmentsDeps } from "./installments.service.js";

/** Card installments the buyer pays: the merchant's terms per environment and the quote. */
export function createInstallmentsModule(deps: InstallmentsDeps) {
  const service = createInstallmentsService(deps);
  // No background work: the terms are read with the merchant when a charge or quote needs them.
  const tasks: Task[] = [];
  return { service, routes: installmentsRoutes(service), tasks };
}

export type InstallmentsModule = ReturnType<typeof createInstallmentsModule>;
