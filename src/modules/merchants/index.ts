// The merchants module's public face for other modules: what they may import from it.
// Everything else in this folder is the module's own (its module file is public too).
export { FeeDefinitionSchema } from "./merchants.schemas.js";
export type { MerchantService } from "./merchants.service.js";
