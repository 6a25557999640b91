// The the ledger module's public face for other modules: what they may import from it.
// Everything else in this folder is the module's own (its module file is public too).
export { computeChargeFees, computePayoutFee, type FeeDefinition } from "./fees.js";
export type { LedgerService, PayoutPosting, Reversal } from "./ledger.service.js";
export { grossOf, splitShares, type SplitRule } from "./split.js";
export { sharesHeldAt } from "./reversals.js";
export { Balance } from "./ledger.schemas.js";
