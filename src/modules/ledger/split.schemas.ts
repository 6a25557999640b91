import { Type } from "typebox";

// The wire shape of a split rule, one for every place that takes one (a charge's own split, a
// subscription's, the Connect default split) and answers it. What the schema cannot say (one of
// percentage or amount, the sum, the recipients) is checked by connect's split-rules.ts, whose
// 422s name the rule's field ("split.0.amount").
export const SplitRuleSchema = Type.Object({
  merchantId: Type.String({ minLength: 1, maxLength: 64 }),
  percentage: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100, multipleOf: 0.01, description: "Percent of the net (of the gross when a rule is the fee bearer), at most 2 decimals. Exactly one of percentage and amount." })),
  amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: "A fixed share in currency units of the charge's currency (10.5 = 10.50 BRL), as the charge's amount. Exactly one of percentage and amount." })),
  liable: Type.Optional(Type.Boolean({ description: "This recipient gives back refunds, disputes and chargebacks in place of the parties that are not liable (docs/guarantees.md). Without any, each party gives back its own part." })),
  feeBearer: Type.Optional(Type.Boolean({ description: "This recipient's share pays the charge's processing fee: the shares are then of the gross, and the fee comes out of the fee bearers' shares." })),
  hold: Type.Optional(Type.Boolean({ description: "This share stays held (not pending, not available) until POST /v1/charges/{id}/release or the charge's refund." })),
}, { additionalProperties: false });

/** A split rule as answered: as taken, without the request's bounds (a nullable list is matched against its schema when serialized). */
export const SplitRuleView = Type.Object({
  merchantId: Type.String(),
  percentage: Type.Optional(Type.Number()),
  amount: Type.Optional(Type.Number()),
  liable: Type.Optional(Type.Boolean()),
  feeBearer: Type.Optional(Type.Boolean()),
  hold: Type.Optional(Type.Boolean()),
});
