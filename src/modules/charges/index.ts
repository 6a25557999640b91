// The charges module's public face: what other modules, the app and the panel may import.
// Everything else in this folder (create/, refunds/, provider-state/, sandbox/, the repo) is the
// module's own and may move without notice to them.
export { createChargesModule, sandboxProcessorRecords, type ChargesModule, type ChargesModuleDeps } from "./charges.module.js";
export type { ChargeCheck, ChargeService, PreparedCharge } from "./charges.service.js";
export type { RefundService } from "./refunds/refunds.service.js";
export type { ChargeEffects } from "./charge-effects.js";
export type { ChargeCancel } from "./provider-state/charge-cancel.js";
export type { ChargeDisputes } from "./charge-disputes.js";
export type { ChargeDisputesView } from "./create/charges.routes.js";
export type { ProviderDisputeHandler } from "./provider-state/provider-sync.js";
export type { ChargeCommand } from "./create/charge-command.js";
export { rejectServerFields } from "./create/charge-pipeline.js";
export { CHARGE_STATUSES, type ChargeStatus } from "./charge-status.js";
export { toChargeResponse, type ChargeRow } from "./charges.mapper.js";
// Wire schemas other routes embed (a link's or a subscription's charge, customer and method).
export { CARD_CHARGE_EXAMPLE, Charge, ChargeCustomer, CreateChargeBody, ListChargesQuery, RefundBody, ShippingAddressInput, SplitRule } from "./charges.schemas.js";
export { discriminatedByType, PAYMENT_METHOD_COMPONENTS, PaymentMethodInput } from "./create/payment-methods.schemas.js";
export { amountDueOf, chargePageUrl, type ChargePage, type ChargePageView, type HowToPay } from "./charge-page.js";
