import { Type } from "typebox";
import { ListOf, ListQuery } from "../../http/schemas.js";

const IntervalSchema = Type.Union([Type.Literal("day"), Type.Literal("week"), Type.Literal("month"), Type.Literal("year")], {
  description: "How often the plan bills, times intervalCount.",
});

export const CreatePlanBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  price: Type.Number({ description: "Price per period in currency units (29.9 = 29.90 BRL), at least 1, at most the currency's decimals; at most the currency's ceiling, 99,999,999 minor units unless the operator set MAX_AMOUNT_MINOR (999,999.99 BRL); above it: 422 amount_too_large." }),
  currency: Type.String({ pattern: "^[A-Za-z]{3}$", description: "ISO 4217 code." }),
  interval: IntervalSchema,
  intervalCount: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, default: 1, description: "Bills every intervalCount intervals (3 with month = quarterly)." })),
  trialDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 730, default: 0, description: "Free days before the first charge." })),
}, {
  additionalProperties: false,
  examples: [{ name: "Pro monthly", price: 29.9, currency: "BRL", interval: "month", trialDays: 0, description: "Pro plan, billed monthly" }],
});

export const UpdatePlanBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  description: Type.Optional(Type.Union([Type.String({ maxLength: 1000 }), Type.Null()])),
}, {
  additionalProperties: false, minProperties: 1,
  description: "Only the name and description change; price and cadence are fixed (create a new plan and move subscriptions to it).",
  examples: [{ name: "Pro monthly (2027)" }],
});

const planExample = {
  id: "plan_01jd3k2m4n5p6q7r8s9t0v1w2x", livemode: false, name: "Pro monthly", description: "Pro plan, billed monthly",
  price: 29.9, currency: "BRL", interval: "month", intervalCount: 1, trialDays: 0, archived: false,
  createdAt: "2026-11-23T12:00:00.000Z", updatedAt: "2026-11-23T12:00:00.000Z",
};

export const Plan = Type.Object({
  id: Type.String(),
  livemode: Type.Boolean(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  price: Type.Number({ description: "Currency units." }),
  currency: Type.String(),
  interval: IntervalSchema,
  intervalCount: Type.Integer(),
  trialDays: Type.Integer(),
  archived: Type.Boolean({ description: "Archived plans take no new subscriptions; existing ones keep renewing." }),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
}, { examples: [planExample] });

export const ListPlansQuery = Type.Object({
  ...ListQuery,
  archived: Type.Optional(Type.Boolean({ description: "true: only archived plans; false: only active ones; absent: both." })),
}, { additionalProperties: false });

export const PlanList = { ...ListOf(Plan), examples: [{ data: [planExample], hasMore: false }] };
