// The the ledger module's public face for other modules: what they may import from it.
// Everything else in this folder is the module's own (its module file is public too).
export { computeChargeFees, computePayoutFee, type FeeDefinition } from "./fees.js";
export type { LedgerService, PayoutPosting, Reversal } from "./ledger.service.js";
export { grossOf, reversalParts, splitOverflow, splitShares, type Share, type SplitBasis, type SplitOverflow, type SplitRule } from "./split.js";
export { SplitRuleSchema, SplitRuleView } from "./split.schemas.js";
export { sharesHeldAt } from "./reversals.js";
export { Amounts, Balance, SubmerchantBalance } from "./ledger.schemas.js";
