import { installmentsRoutes } from "./installments.routes.js";
import { createInstallmentsService, type InstallmentsDeps } from "./installments.service.js";

/** Card installments the buyer pays: the merchant's terms per environment and the quote. */
export function createInstallmentsModule(deps: InstallmentsDeps) {
  const service = createInstallmentsService(deps);
  return { service, routes: installmentsRoutes(service) };
}

export type InstallmentsModule = ReturnType<typeof createInstallmentsModule>;
