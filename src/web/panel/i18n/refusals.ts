import type { ErrorCode } from "../../../core/errors.js";

// The API's refusals that a person meets in the panel, in each language, by their stable code
// (src/core/errors.ts) rather than by the English message, whose figures are in the API's format
// ("70.00 BRL"). {placeholders} are the error's params; an amount among them is written in the
// page's money format (R$ 70,00). A code missing here shows the API's own message.
export const REFUSALS: Record<"en" | "pt-BR", Partial<Record<ErrorCode, string>>> = {
  en: {
    refund_exceeds_refundable: "The amount is more than is left to refund ({available}).",
    insufficient_balance: "{amount} is more than the submerchant's available balance.",
    amount_too_large: "The amount is above the maximum of {max}.",
    submerchant_not_active: "The submerchant is not active yet: it cannot charge in production, be paid out or receive a production split.",
  },
  "pt-BR": {
    refund_exceeds_refundable: "O valor é maior que o que resta para reembolsar ({available}).",
    insufficient_balance: "{amount} é mais que o saldo disponível do vendedor.",
    amount_too_large: "O valor passa do máximo de {max}.",
    submerchant_not_active: "O vendedor ainda não está ativo: não pode cobrar em produção, pedir saques nem participar de um split em produção.",
  },
};
