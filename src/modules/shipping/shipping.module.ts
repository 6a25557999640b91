import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { Sealer } from "../../lib/crypto.js";
import type { MerchantService } from "../merchants/index.js";
import { createMelhorEnvioClient, type MelhorEnvioClient } from "./melhor-envio.client.js";
import { shippingRoutes } from "./shipping.routes.js";
import { createShippingService } from "./shipping.service.js";
import { NO_TASKS } from "../../jobs/runner.js";

/**
 * The merchant's own Melhor Envio account: credentials, the OAuth round trip, token refresh and
 * live freight quotes, which payment links ask for.
 */
export function createShippingModule(deps: {
  db: Db; config: Config; sealer: Sealer; merchants: MerchantService;
  /** The provider's client; by default the real API at SHIPPING_PROVIDER_URL. */
  melhorEnvio?: MelhorEnvioClient;
}) {
  const client = deps.melhorEnvio ?? createMelhorEnvioClient({ baseUrl: deps.config.shippingProviderUrl });
  const service = createShippingService({ db: deps.db, config: deps.config, sealer: deps.sealer, client, merchants: deps.merchants });
  return { service, routes: shippingRoutes(service), tasks: NO_TASKS };
}

export type ShippingModule = ReturnType<typeof createShippingModule>;
