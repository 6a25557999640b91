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
  endToEndId: null,
  returnedAmount: 0,
  transfer: null,
  source: "platform",
};

const E2E_EXAMPLE = "E18236120202611231452s0a1b2c3d4e";

const transferStatus = (description?: string) =>
  Type.Union([Type.Literal("sending"), Type.Literal("sent"), Type.Literal("failed")], description ? { description } : {});

export const PayoutStatus = Type.Union([Type.Literal("pending"), Type.Literal("approved"), Type.Literal("rejected"), Type.Literal("returned")], {
  description: "`returned`: approved, then the receiving bank sent money of the Pix transfer back (returnedAmount), which is in the submerchant's available balance again (payout.returned).",
});

export const CreatePayoutBody = Type.Object({
  amount: Type.Integer({ minimum: 1, maximum: 100_000_000_000, description: "In cents (integer minor units: 5000 is 50.00 BRL), unlike a charge's amount, which is in currency units. BRL. Reserved from the available balance at once. At most 99,999,999 (999,999.99 BRL) unless the operator set MAX_AMOUNT_MINOR; above it: 422 amount_too_large." }),
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
  reason: Type.Union([Type.String(), Type.Null()], { description: "Why it was rejected, when it was: the operator's reason, `Pix transfer failed: ...`, or `balance_reversed` (a refund, chargeback or dispute took back money its reserve was needed for)." }),
  endToEndId: Type.Union([Type.String(), Type.Null()], {
    description:
      "The Pix end-to-end id (E2E) of the transfer that paid it, once approved: in production the operator's own transfer, recorded by the " +
      "operator at approval; with PAYOUT_PROVIDER, the processor's (Efí's); in the sandbox the simulator's (ISPB 99999999). Null while pending and when rejected.",
  }),
  returnedAmount: Type.Integer({ description: "Cents of the Pix transfer that the receiving bank sent back (status `returned`), now in the submerchant's available balance again; 0 otherwise." }),
  transfer: Type.Union([Type.Object({ status: transferStatus() }), Type.Null()], {
    description:
      "The Pix transfer feira makes through a processor (PAYOUT_PROVIDER in production, the simulator in the sandbox) when the payout is approved " +
      "without an endToEndId: `sending` while the processor sends it (the payout is still pending), then `sent` (the payout is approved with the " +
      "processor's endToEndId) or `failed` (rejected with the processor's reason, the reserve released). Null when no transfer was made through a " +
      "processor (awaiting approval, the operator's own transfer, or rejected by the operator).",
  }),
  source: Type.Union([Type.Literal("platform"), Type.Literal("provider")], {
    description:
      "`platform`: a payout request feira pays (approved or rejected here). `provider`: a read-only record of a transfer the processor made from " +
      "the seller's own balance there to its bank (provider settlement, on the seller's payoutSchedule as the processor's transfer settings): " +
      "approved, no fee, `transfer.status` `sent`; feira read it back and booked it out of the seller's atProvider balance. Approving or " +
      "rejecting it is a 409.",
  }),
}, { examples: [EXAMPLE, { ...EXAMPLE, transfer: { status: "sending" } }] });

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

export const ApproveBody = Type.Object({
  endToEndId: Type.Optional(Type.String({
    maxLength: 64,
    description:
      "The Pix end-to-end id of the transfer the operator made at its bank: 32 characters, E + the paying institution's 8-digit ISPB + the " +
      "date and time of the transfer in UTC as yyyyMMddHHmm + 11 letters or digits, dated neither later than now nor before the request " +
      "(12 hours of slack each way). Required for production payouts; in the sandbox it replaces the simulator's transfer.",
  })),
  reason: Type.Optional(Type.String({
    minLength: 1, maxLength: 500,
    description: "Accepted because approve and reject share the body {reason?}; only a rejection records a reason, an approval does not store it.",
  })),
}, { additionalProperties: false, examples: [{ endToEndId: E2E_EXAMPLE }] });

export const RejectBody = Type.Object({
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
}, { additionalProperties: false, examples: [{ reason: "Bank details under review" }] });

const ADMIN_EXAMPLE = { ...EXAMPLE, environment: "production", masterId: "mer_01jd59z0c1v2b3n4m5k6j7h8g9", pixKey: "11222333000181", pixKeyType: "cnpj", transferId: null };

export const AdminPayoutRequest = Type.Object({
  ...PayoutRequest.properties,
  environment: Type.Union([Type.Literal("sandbox"), Type.Literal("production")]),
  masterId: Type.String({ description: "The master whose submerchant asked." }),
  pixKey: Type.String({ description: "Where the operator sends netAmount by Pix: the submerchant's CNPJ (digits), its Pix key." }),
  pixKeyType: Type.Literal("cnpj"),
  transferId: Type.Union([Type.String(), Type.Null()], { description: "The transfer's id at the processor that sends it (Efí's idEnvio), derived from the payout id; null when no processor was asked." }),
}, { examples: [ADMIN_EXAMPLE] });

export const AdminListPayoutsQuery = Type.Object({
  status: Type.Optional(PayoutStatus),
  transferStatus: Type.Optional(transferStatus("Only requests whose transfer through a processor is in this state (`sending`: on their way).")),
  environment: Type.Optional(Type.Union([Type.Literal("sandbox"), Type.Literal("production")])),
  merchantId: Type.Optional(Type.String({ maxLength: 64, description: "One submerchant's requests." })),
  page: ListPayoutsQuery.properties.page,
  size: ListPayoutsQuery.properties.size,
}, { additionalProperties: false });

export const AdminPayoutList = Type.Object({ data: Type.Array(AdminPayoutRequest), ...PageEnvelope }, {
  examples: [{ data: [ADMIN_EXAMPLE], page: 1, pages: 1, total: 1, size: 10 }],
});
