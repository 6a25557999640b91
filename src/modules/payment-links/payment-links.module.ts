import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import { webRoutes } from "../../web/web.routes.js";
import type { ChargeService } from "../charges/index.js";
import type { MerchantService } from "../merchants/index.js";
import type { ShippingService } from "../shipping/index.js";
import { paymentLinkRoutes } from "./payment-links.routes.js";
import { createPaymentLinkService } from "./payment-links.service.js";
import { createPublicLimits } from "./public-limits.js";
import { NO_TASKS } from "../../jobs/runner.js";

/** Payment links and the hosted checkout page; live freight comes from the shipping module. */
export function createPaymentLinksModule(deps: {
  db: Db; config: Config; charges: ChargeService; merchants: MerchantService; shipping: ShippingService;
}) {
  const { db, config } = deps;
  const service = createPaymentLinkService({ db, config, charges: deps.charges, shipping: deps.shipping, merchants: deps.merchants });
  const limits = createPublicLimits({ config, db });
  return {
    service,
    routes: async (app: FastifyInstance) => {
      await app.register(paymentLinkRoutes(service, limits));
      await app.register(webRoutes(service));
    },
    tasks: NO_TASKS,
  };
}
