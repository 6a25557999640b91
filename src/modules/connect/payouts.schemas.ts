import { Type } from "typebox";
import { PageEnvelope } from "./connect.schemas.js";

const EXAMPLE = {
  id: "po_01jd5c2r7s8t9v0w1x2y3z4a5b",
  merchantId: "sm_01jd5a8w2n7q3k9x4c6v8b0m2p",
  amount: 10000,
  currency: "BRL",
  status: "pending",
  payoutFee: 300,
  netAmount: 9700,
  processedAt: null,
  createdAt: "2026-11-23T12:30:00.000Z",
  reason: null,
};

export const PayoutStatus = Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected")]);

export const CreatePayoutBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: 100_000_000_000, description: "In cents (integer), BRL. Reserved from the available balance at once." }),
}, { additionalProperties: false, examples: [{ amount: 10000 }] });

export const PayoutParams = Type.Object({ merchantId: Type.String({ minLength: 1, maxLength: 64 }) });

export const PayoutRequest = Type.Object({
  id: Type.String(),
  merchantId: Type.String({ description: "The submerchant paid out." }),
  amount: Type.Integer({ description: "Cents." }),
  currency: Type.Literal("BRL"),
  status: PayoutStatus,
  payoutFee: Type.Integer({ description: "Cents: fixed + amount x percentage / 100 of the submerchant's payout fee, rounded half-up once." }),
  netAmount: Type.Integer({ description: "Cents sent by Pix to the submerchant's CNPJ: amount - payoutFee." }),
  processedAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
  createdAt: Type.String({ format: "date-time" }),
  reason: Type.Union([Type.String(), Type.Null()], { description: "Why it was rejected, when it was." }),
}, { examples: [EXAMPLE] });

const DateFilter = (what: string) => Type.Optional(Type.String({ format: "date", description: `Only requests ${what} on this day (UTC), YYYY-MM-DD.` }));

export const ListPayoutsQuery = Type.Object({
  merchantId: Type.Optional(Type.String({ maxLength: 64 })),
  status: Type.Optional(PayoutStatus),
  currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
  createdAt: DateFilter("made"),
  processedAt: DateFilter("approved or rejected"),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: "Starts at 1." })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Items per page, 1 to 100." })),
}, { additionalProperties: false });

export const PayoutList = Type.Object({ data: Type.Array(PayoutRequest), ...PageEnvelope }, {
  examples: [{ data: [EXAMPLE], page: 1, pages: 1, total: 1, size: 10 }],
});

export const RejectBody = Type.Object({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
}, { additionalProperties: false, examples: [{ reason: "Bank details under review" }] });
