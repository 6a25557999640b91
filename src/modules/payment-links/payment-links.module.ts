import type { FastifyInstance } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import { webRoutes } from "../../web/web.routes.js";
import type { ChargeService } from "../charges/charges.service.js";
import type { MerchantService } from "../merchants/merchants.service.js";
import { createMelhorEnvioClient, type MelhorEnvioClient } from "../shipping/melhor-envio.client.js";
import { shippingRoutes } from "../shipping/shipping.routes.js";
import { createShippingService } from "../shipping/shipping.service.js";
import { paymentLinkRoutes } from "./payment-links.routes.js";
import { createPaymentLinkService } from "./payment-links.service.js";
import { createPublicLimits } from "./public-limits.js";

/** Payment links, the hosted checkout page and the Melhor Envio integration behind its freight. */
export function createPaymentLinksModule(deps: {
  db: Db; config: Config; sealer: Sealer; charges: ChargeService; merchants: MerchantService; melhorEnvio?: MelhorEnvioClient;
}) {
  const { db, config } = deps;
  const client = deps.melhorEnvio ?? createMelhorEnvioClient({ baseUrl: config.shippingProviderUrl });
  const shipping = createShippingService({ db, config, sealer: deps.sealer, client, merchants: deps.merchants });
  const service = createPaymentLinkService({ db, config, charges: deps.charges, shipping, merchants: deps.merchants });
  const limits = createPublicLimits({ config, db });
  return {
    shipping,
    service,
    routes: async (app: FastifyInstance) => {
      await app.register(shippingRoutes(shipping));
      await app.register(paymentLinkRoutes(service, limits));
      await app.register(webRoutes(service));
    },
  };
}
