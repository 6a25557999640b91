import type { FastifyInstance } from "fastify";
import { chargeRoutes } from "./charges.routes.js";
import { connectRoutes } from "./connect.routes.js";
import { customerRoutes } from "./customers.routes.js";
import { disputeRoutes } from "./disputes.routes.js";
import { subscriptionRoutes } from "./subscriptions.routes.js";
import { developerRoutes } from "./developers.routes.js";
import { homeRoutes } from "./home.routes.js";
import { linkRoutes } from "./links.routes.js";
import { settingsRoutes } from "./settings.routes.js";
import { shippingRoutes } from "./shipping.routes.js";
import type { PanelKit } from "./kit.js";

/** The pages of each area of the panel, one file (or two) per area. */
export function areaRoutes(kit: PanelKit) {
  return async (app: FastifyInstance) => {
    for (const area of [homeRoutes, chargeRoutes, disputeRoutes, customerRoutes, developerRoutes, connectRoutes, subscriptionRoutes, linkRoutes, shippingRoutes, settingsRoutes]) await app.register(area(kit));
  };
}
