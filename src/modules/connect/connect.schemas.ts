import { Type } from "typebox";
import { MerchantUrl } from "../../http/schemas.js";
import { SplitRuleSchema } from "../ledger/index.js";
import { FeeDefinitionSchema } from "../merchants/index.js";
import { ADMIN_TARGETS, PUBLIC_STATUSES } from "./submerchant-status.js";
import { ProviderAccount } from "./provider-accounts.schemas.js";

// Wire schemas of the Connect routes: submerchants, their documents and keys, fees-info and the
// default split. Payout requests are in payouts.schemas.ts.

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);
const DateTime = () => Type.String({ format: "date-time" });
const Literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Unsafe<T>({ type: "string", enum: [...values], ...(description ? { description } : {}) });

export const SUBMERCHANT_EXAMPLE = {
  id: "sm_01jd5a8w2n7q3k9x4c6v8b0m2p",
  tradeName: "Padaria Aurora",
  legalName: "Aurora Alimentos LTDA",
  companyTaxId: "11222333000181",
  averageMonthlyRevenue: 50000,
  averageOrderValue: 35.5,
  productType: "physical",
  website: "https://padaria-aurora.example.com",
  gatewayId: "mer_01jd59z0c1v2b3n4m5k6j7h8g9",
  approvedAt: null,
  inactivatedAt: null,
  status: "pending",
  accreditationStatus: "pending",
  statusReason: null,
  contactEmail: "financeiro@padaria-aurora.example.com",
  productDescription: "Breads, cakes and coffee delivered in Sao Paulo",
  softDescriptor: "PADARIAAURORA",
  postbackUrl: "https://padaria-aurora.example.com/feira/notifications",
  currency: "BRL",
  rejectedAt: null,
  blockedAt: null,
  createdAt: "2026-11-23T12:00:00.000Z",
  updatedAt: "2026-11-23T12:00:00.000Z",
  totalSales: 0,
  payoutSchedule: { interval: "weekly", weekDay: 5, monthDay: null, minimumAmount: 10000 },
  holdDays: 0,
  providerAccounts: [],
};

const INTERVALS = ["manual", "daily", "weekly", "monthly"] as const;
const WEEK_DAY = "ISO 8601: 1 = Monday .. 7 = Sunday";

export const PayoutScheduleBody = Type.Object({
  interval: Literals(INTERVALS, "manual: payouts only when requested (the default); otherwise feira requests the payout of the whole available balance on each due day at 06:00 Brasília time (America/Sao_Paulo)."),
  weekDay: Type.Optional(Type.Integer({ minimum: 1, maximum: 7, description: `The weekly schedule's day (required for weekly, refused otherwise), ${WEEK_DAY}.` })),
  monthDay: Type.Optional(Type.Integer({ minimum: 1, maximum: 28, description: "The monthly schedule's day of the month, 1 to 28 (required for monthly, refused otherwise)." })),
  minimumAmount: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000_000_000, description: "In cents: a due day whose available balance is below it requests nothing (default 0). Not for manual." })),
}, { additionalProperties: false });

export const PayoutSchedule = Type.Object({
  interval: Literals(INTERVALS),
  weekDay: Type.Union([Type.Integer({ description: WEEK_DAY }), Type.Null()]),
  monthDay: Type.Union([Type.Integer(), Type.Null()]),
  minimumAmount: Type.Integer({ description: "In cents." }),
}, { description: "When feira requests this submerchant's payouts by itself (platform settlement): on each due day at 06:00 Brasília time, once per day." });

const HOLD_DAYS = "In platform settlement, the submerchant's split shares stay held this many days after payment, then settle as usual (its charges' own shares are not held); 0, the default, holds nothing. Applies to charges made after it.";

export const UpdateSubmerchantBody = Type.Object({
  payoutSchedule: Type.Optional(PayoutScheduleBody),
  holdDays: Type.Optional(Type.Integer({ minimum: 0, maximum: 180, description: HOLD_DAYS })),
}, {
  additionalProperties: false, minProperties: 1,
  examples: [{ payoutSchedule: { interval: "weekly", weekDay: 5, minimumAmount: 10000 } }, { payoutSchedule: { interval: "monthly", monthDay: 1 } }, { holdDays: 7 }],
});

export const CreateSubmerchantBody = Type.Object({
  tradeName: Type.String({ minLength: 1, maxLength: 200 }),
  legalName: Type.String({ minLength: 1, maxLength: 200 }),
  companyTaxId: Type.String({ minLength: 14, maxLength: 18, description: "CNPJ, formatted (11.222.333/0001-81) or not; check digits are verified." }),
  contactEmail: Type.String({ format: "email", maxLength: 254 }),
  website: MerchantUrl({ description: "The company's site (http or https)." }),
  productType: Literals(["digital", "physical", "both"] as const),
  productDescription: Type.String({ minLength: 1, maxLength: 1000 }),
  averageMonthlyRevenue: Type.Number({ minimum: 0, description: "In BRL (currency units, at most 2 decimals)." }),
  averageOrderValue: Type.Number({ minimum: 0, description: "In BRL (currency units, at most 2 decimals)." }),
  softDescriptor: Type.Optional(Type.String({ minLength: 1, maxLength: 22, pattern: "^[A-Za-z0-9 .*-]+$", description: "Shown on card statements: letters, digits, spaces and . * -." })),
  postbackUrl: Type.Optional(MerchantUrl({ description: "Receives the accreditation status notifications {merchantId, status, date} (https in production)." })),
}, {
  additionalProperties: false,
  examples: [{
    tradeName: "Padaria Aurora", legalName: "Aurora Alimentos LTDA", companyTaxId: "11.222.333/0001-81",
    contactEmail: "financeiro@padaria-aurora.example.com", website: "https://padaria-aurora.example.com",
    productType: "physical", productDescription: "Breads, cakes and coffee delivered in Sao Paulo",
    averageMonthlyRevenue: 50000, averageOrderValue: 35.5, softDescriptor: "PADARIAAURORA",
    postbackUrl: "https://padaria-aurora.example.com/feira/notifications",
  }],
});

export const Submerchant = Type.Object({
  id: Type.String({ description: "sm_ id; also the merchantId of its charges, balances, splits and payouts." }),
  tradeName: Type.String(),
  legalName: Type.String(),
  companyTaxId: Type.String({ description: "CNPJ without punctuation." }),
  averageMonthlyRevenue: Type.Number(),
  averageOrderValue: Type.Number(),
  productType: Literals(["digital", "physical", "both"] as const),
  website: Type.String(),
  gatewayId: Type.String({ description: "The master merchant the submerchant belongs to." }),
  approvedAt: Nullable(DateTime()),
  inactivatedAt: Nullable(DateTime()),
  status: Literals(PUBLIC_STATUSES),
  accreditationStatus: Literals(["pending", ...ADMIN_TARGETS] as const, "The status with the review stage: pre_approved shows as pending in status."),
  statusReason: Nullable(Type.String()),
  contactEmail: Type.String(),
  productDescription: Type.String(),
  softDescriptor: Nullable(Type.String()),
  postbackUrl: Nullable(Type.String()),
  currency: Type.String(),
  rejectedAt: Nullable(DateTime()),
  blockedAt: Nullable(DateTime()),
  createdAt: DateTime(),
  updatedAt: DateTime(),
  totalSales: Type.Integer({ description: "Paid charges (refunded ones included) of the submerchant in the key's environment." }),
  payoutSchedule: PayoutSchedule,
  holdDays: Type.Integer({ description: HOLD_DAYS }),
  providerAccounts: Type.Array(ProviderAccount, { description: "Its accounts at processors, for provider settlement (POST /v1/submerchants/{id}/provider-accounts)." }),
}, { examples: [SUBMERCHANT_EXAMPLE] });

const DateFilter = (what: string) => Type.Optional(Type.String({ format: "date", description: `Only submerchants whose ${what} falls on this day (UTC), YYYY-MM-DD.` }));

export const SORTABLE = ["createdAt", "updatedAt", "tradeName", "legalName", "companyTaxId", "status", "approvedAt"] as const;

export const ListSubmerchantsQuery = Type.Object({
  status: Type.Optional(Literals(PUBLIC_STATUSES)),
  companyTaxId: Type.Optional(Type.String({ maxLength: 18, description: "Exact CNPJ, formatted or not." })),
  legalName: Type.Optional(Type.String({ maxLength: 200, description: "Case-insensitive substring." })),
  tradeName: Type.Optional(Type.String({ maxLength: 200, description: "Case-insensitive substring." })),
  currency: Type.Optional(Type.String({ pattern: "^[A-Za-z]{3}$" })),
  createdAt: DateFilter("creation"),
  updatedAt: DateFilter("last change"),
  approvedAt: DateFilter("approval"),
  rejectedAt: DateFilter("rejection"),
  blockedAt: DateFilter("blocking"),
  inactivatedAt: DateFilter("inactivation"),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: "Starts at 1." })),
  size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: "Items per page, 1 to 100." })),
  orderBy: Type.Optional(Type.String({
    maxLength: 200,
    description: `Comma-separated fields, - for descending (default -createdAt). Fields: ${SORTABLE.join(", ")}.`,
    examples: ["-createdAt,tradeName"],
  })),
}, { additionalProperties: false });

export const PageEnvelope = {
  page: Type.Integer(),
  pages: Type.Integer({ description: "Number of pages for this size (0 when nothing matches)." }),
  total: Type.Integer({ description: "Items matching the filters." }),
  size: Type.Integer(),
};

export const SubmerchantList = Type.Object({ data: Type.Array(Submerchant), ...PageEnvelope }, {
  examples: [{ data: [SUBMERCHANT_EXAMPLE], page: 1, pages: 1, total: 1, size: 10 }],
});

export const DOCUMENT_KINDS = ["cnpj_card", "social_contract", "responsible_document_front", "responsible_document_back", "selfie_with_document"] as const;
export type DocumentKind = (typeof DOCUMENT_KINDS)[number];
/** The back of the responsible's document is optional: passports and the digital CNH have one side. */
export const REQUIRED_DOCUMENTS: readonly DocumentKind[] = ["cnpj_card", "social_contract", "responsible_document_front", "selfie_with_document"];

export const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;
/** One upload, from the API or the panel: each kind at most once. */
export const DOCUMENT_UPLOAD_LIMITS = { fileSize: MAX_DOCUMENT_BYTES, files: DOCUMENT_KINDS.length };

const binary = (description: string) => Type.String({ format: "binary", description });
export const UploadDocumentsBody = Type.Object({
  cnpj_card: Type.Optional(binary("Cartão CNPJ (PDF, JPEG or PNG).")),
  social_contract: Type.Optional(binary("Articles of association (contrato social).")),
  responsible_document_front: Type.Optional(binary("Front of the legal representative's ID.")),
  responsible_document_back: Type.Optional(binary("Back of the legal representative's ID (optional for one-sided documents).")),
  selfie_with_document: Type.Optional(binary("Selfie of the representative holding the ID.")),
}, {
  examples: [{ cnpj_card: "(contents of cartao-cnpj.pdf)", social_contract: "(contents of contrato-social.pdf)", responsible_document_front: "(contents of rg-frente.jpg)", selfie_with_document: "(contents of selfie.png)" }],
});

export const SubmerchantDocument = Type.Object({
  id: Type.String(),
  kind: Literals(DOCUMENT_KINDS),
  contentType: Literals(["application/pdf", "image/jpeg", "image/png"] as const, "Detected from the file's content, not its name."),
  size: Type.Integer({ description: "Bytes." }),
  sha256: Type.String(),
  uploadedAt: DateTime(),
});

export const DocumentsResponse = Type.Object({
  submerchantId: Type.String(),
  documents: Type.Array(SubmerchantDocument),
  missing: Type.Array(Literals(DOCUMENT_KINDS), { description: "Required documents not yet on file." }),
  complete: Type.Boolean({ description: "Whether every required document is on file, so the submerchant can be reviewed." }),
}, {
  examples: [{
    submerchantId: SUBMERCHANT_EXAMPLE.id,
    documents: [{ id: "doc_01jd5b0k3m4n5p6q7r8s9t0v1w", kind: "cnpj_card", contentType: "application/pdf", size: 48213, sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", uploadedAt: "2026-11-23T12:05:00.000Z" }],
    missing: ["social_contract", "responsible_document_front", "selfie_with_document"],
    complete: false,
  }],
});

export const DocumentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), documentId: Type.String({ minLength: 1, maxLength: 64 }) });

export const ApiKeysResponse = Type.Object({
  merchantId: Type.String(),
  keys: Type.Array(Type.Object({
    id: Type.String(),
    environment: Literals(["sandbox", "production"] as const),
    key: Type.String({ description: "The full secret key: sk_test_ acts in sandbox, sk_live_ in production." }),
    createdAt: DateTime(),
  })),
}, {
  examples: [{
    merchantId: SUBMERCHANT_EXAMPLE.id,
    keys: [
      { id: "key_01jd5a8w2pqrs", environment: "sandbox", key: "sk_test_EXAMPLE-shown-in-full-here", createdAt: "2026-11-23T12:00:00.000Z" },
      { id: "key_01jd5a8w2tuvw", environment: "production", key: "sk_live_EXAMPLE-shown-in-full-here", createdAt: "2026-11-23T12:00:00.000Z" },
    ],
  }],
});

export const FeesInfo = Type.Object({
  merchant: Type.Object({ id: Type.String(), legalName: Type.String(), companyTaxId: Type.String() }),
  fees: Type.Array(FeeDefinitionSchema),
}, {
  examples: [{
    merchant: { id: SUBMERCHANT_EXAMPLE.id, legalName: "Aurora Alimentos LTDA", companyTaxId: "11222333000181" },
    fees: [
      { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 35, percentages: [3.79, 4.19, 4.59] } },
      { feeType: "tx_spread", paymentMethod: "credit_card", currencyCode: "BRL", brand: "amex", definition: { fixed: 35, percentages: [4.29] } },
      { feeType: "anticipation", paymentMethod: "credit_card", currencyCode: "BRL", brand: null, definition: { fixed: 0, percentages: [1.99, 2.99] } },
    ],
  }],
});

const DefaultSplit = Type.Array(SplitRuleSchema, {
  maxItems: 20,
  description: "Applied to this merchant's charges that carry no split: percentages of the net (after fees) or fixed amounts in each charge's currency, together at most the net (a charge that cannot pay them is refused); the rest stays with the merchant. [] for none.",
});

const SettlementField = Type.Union([Type.Literal("platform"), Type.Literal("provider")], {
  description:
    "The master's, per environment. platform (the default): every sale lands in the operator's processor account and reaches its sellers by payout. " +
    "provider: the processor pays each seller's share into the seller's own account there (a provider account per submerchant). " +
    "Applies to charges created after the change; a charge keeps the settlement it was created under.",
});

export const ConnectSettings = Type.Object({
  defaultSplit: DefaultSplit,
  settlement: SettlementField,
}, { additionalProperties: false, examples: [{ defaultSplit: [{ merchantId: SUBMERCHANT_EXAMPLE.id, percentage: 10 }], settlement: "platform" }] });

export const ConnectSettingsBody = Type.Object({
  defaultSplit: Type.Optional(DefaultSplit),
  settlement: Type.Optional(SettlementField),
}, { additionalProperties: false, minProperties: 1, examples: [{ defaultSplit: [{ merchantId: SUBMERCHANT_EXAMPLE.id, percentage: 10 }] }, { settlement: "provider" }] });

export const AdminStatusBody = Type.Object({
  status: Literals(ADMIN_TARGETS),
  reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
}, { additionalProperties: false, examples: [{ status: "active" }, { status: "rejected", reason: "CNPJ card does not match the legal name" }] });
