import type { Services } from "../../services.js";
import type { PanelCtx } from "./context.js";

/** The buyers of a page of charges (or of disputes' charges), by customer id, in one read: a list says who paid. */
export function buyersOf(services: Services, p: PanelCtx, charges: readonly { customerId: string | null }[]) {
  return services.customers.getMany(p.ctx, charges.flatMap((c) => (c.customerId ? [c.customerId] : [])));
}
