// The installments module's public face for other modules: what they may import from it.
export { DEFAULT_INSTALLMENT_TERMS, installmentPlan, installmentPlans, type InstallmentPlan, type InstallmentTerms } from "../../lib/price-table.js";
export { InstallmentQuote } from "./installments.schemas.js";
export { planView } from "./installments.service.js";
