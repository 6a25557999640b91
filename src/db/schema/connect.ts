import { sql } from "drizzle-orm";
import { bigint, index, integer, jsonb, pgTable, primaryKey, smallint, text, uniqueIndex } from "drizzle-orm/pg-core";
import type { StoredSplitRule, SubmerchantStatus } from "./statuses.js";
import { createdAt, money, ts, updatedAt } from "./columns.js";
import { merchants } from "./core.js";

// Connect. A submerchant is a merchant (merchants row with parent_id, its own key, no login);
// this row holds its registration and accreditation. It belongs to the environment of the key
// that registered it (`environment`), as every resource does: it has a key of that environment
// only, and a key of the other environment finds neither it nor anything of it (db/scope.ts).
export const submerchants = pgTable("submerchants", {
  id: text("id").primaryKey().references(() => merchants.id),
  parentId: text("parent_id").notNull().references(() => merchants.id),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  tradeName: text("trade_name").notNull(),
  legalName: text("legal_name").notNull(),
  /** Unmasked: 14 characters (digits, or the alphanumeric CNPJ). */
  companyTaxId: text("company_tax_id").notNull(),
  averageMonthlyRevenue: money("average_monthly_revenue").notNull(),
  averageOrderValue: money("average_order_value").notNull(),
  productType: text("product_type").$type<"digital" | "physical" | "both">().notNull(),
  website: text("website").notNull(),
  contactEmail: text("contact_email").notNull(),
  productDescription: text("product_description").notNull(),
  softDescriptor: text("soft_descriptor"),
  postbackUrl: text("postback_url"),
  currency: text("currency").notNull().default("BRL"),
  /** pending, pre_approved, active, rejected, blocked, inactive (connect/submerchant-status.ts). */
  status: text("status").$type<SubmerchantStatus>().notNull().default("pending"),
  statusReason: text("status_reason"),
  preApprovedAt: ts("pre_approved_at"),
  approvedAt: ts("approved_at"),
  rejectedAt: ts("rejected_at"),
  blockedAt: ts("blocked_at"),
  inactivatedAt: ts("inactivated_at"),
  /** PATCH payoutSchedule (connect/payout-schedule.ts); null: manual, the default. */
  payoutSchedule: jsonb("payout_schedule").$type<{ interval: "daily" | "weekly" | "monthly"; weekDay: number | null; monthDay: number | null; minimumAmount: number }>(),
  /**
   * The next due day's 06:00 in Brasília (by the master's test clock in the sandbox), null when
   * manual; payout_claimed_until is a worker's lease on the run (connect/payout-schedules.ts).
   */
  payoutDueAt: ts("payout_due_at"),
  /**
   * When the schedule was set (by the master's test clock in the sandbox): a processor's
   * automatic transfers begin at the first due day after it (the simulator's, in provider settlement).
   */
  payoutScheduleFrom: ts("payout_schedule_from"),
  payoutClaimedUntil: ts("payout_claimed_until"),
  /** PATCH holdDays: in platform settlement its split shares stay held this many days after payment. */
  holdDays: integer("hold_days").notNull().default(0),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  // The default order of GET /v1/submerchants (createdAt desc nulls last, then id desc), so page 1
  // of a master with 10,000 submerchants reads 10 rows instead of sorting them all.
  index("submerchants_parent_created_idx").on(t.parentId, t.createdAt.desc().nullsLast(), t.id.desc().nullsFirst()),
  // A CNPJ once per Connect and environment: a registration in one environment neither blocks
  // nor reveals one in the other.
  uniqueIndex("submerchants_tax_id_env_uq").on(t.parentId, t.environment, t.companyTaxId),
  // The scheduled payouts' claim reads only the submerchants with a schedule, by due time.
  index("submerchants_payout_due_idx").on(t.payoutDueAt).where(sql`${t.payoutDueAt} is not null`),
]);

// KYC files, sealed (AES-256-GCM, AAD naming the submerchant and the kind); the latest upload of
// each kind replaces the earlier one.
export const submerchantDocuments = pgTable("submerchant_documents", {
  id: text("id").primaryKey(),
  submerchantId: text("submerchant_id").notNull().references(() => submerchants.id),
  kind: text("kind").notNull(),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  sha256: text("sha256").notNull(),
  contentSealed: text("content_sealed").notNull(),
  uploadedAt: ts("uploaded_at").notNull().defaultNow(),
}, (t) => [uniqueIndex("submerchant_documents_kind_uq").on(t.submerchantId, t.kind)]);

// Per merchant and environment: the split applied to its charges that carry none.
export const connectSettings = pgTable("connect_settings", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  defaultSplit: jsonb("default_split").$type<StoredSplitRule[]>().notNull().default(sql`'[]'::jsonb`),
  /**
   * A master's: `platform`, every sale lands in the operator's processor account and reaches its
   * sellers by payout; `provider`, the processor pays each seller's share to the seller's own
   * account there (connect/settlement.ts). Read for charges created after a change.
   */
  settlement: text("settlement").$type<"platform" | "provider">().notNull().default("platform"),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);

// A submerchant's accounts at processors, one per processor (connect/provider-accounts.ts). The
// row is written before the processor is called (status pending, no external_id): a retry after
// a lost answer finds it and reads the processor back (Pagar.me: recipients by `code` = the
// submerchant id) instead of creating a second account. Nothing of the bank account is kept but
// its last four digits (details); a seller's OAuth tokens only sealed (AES-256-GCM, the AAD
// naming the submerchant, the processor and the purpose).
export const submerchantProviderAccounts = pgTable("submerchant_provider_accounts", {
  submerchantId: text("submerchant_id").notNull().references(() => submerchants.id),
  processor: text("processor").notNull(),
  /** The submerchant's master and environment (the scope that manages the account). */
  parentId: text("parent_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  status: text("status").$type<"pending" | "active" | "refused">().notNull(),
  /** The processor's reason for a refusal, as it gave it. */
  reason: text("reason"),
  /** The account's id at the processor: Pagar.me's recipient id, Efí's account number, Mercado Pago's user id. */
  externalId: text("external_id"),
  /** What may be shown: the bank account's last four digits, the recipient's status as the processor named it. */
  details: jsonb("details").$type<Record<string, string>>().notNull().default(sql`'{}'::jsonb`),
  /** Mercado Pago: the nonce of the OAuth state in flight, consumed once by the callback. */
  stateNonce: text("state_nonce"),
  accessTokenSealed: text("access_token_sealed"),
  refreshTokenSealed: text("refresh_token_sealed"),
  tokenExpiresAt: ts("token_expires_at"),
  /** When feira last read the account back from the processor. */
  checkedAt: ts("checked_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  primaryKey({ columns: [t.submerchantId, t.processor] }),
  index("submerchant_provider_accounts_parent_idx").on(t.parentId, t.environment),
  uniqueIndex("submerchant_provider_accounts_nonce_uq").on(t.stateNonce),
]);

// Payout requests: the amount is reserved on the ledger when the request is
// made, paid out (by Pix to the submerchant's CNPJ) on approval, released on rejection.
// end_to_end_id is the Pix end-to-end id of the transfer that paid it: the operator's (live
// payouts, approved with it) or the simulator's. One transfer pays one payout: unique per
// environment (NULLs, the undecided and rejected ones, do not collide).
// transfer_*: a transfer feira makes through a processor (the simulator, or PAYOUT_PROVIDER):
// "sending" and its id (Efí's idEnvio) are committed with the decision to send, before the call,
// so a retry, the worker or a restart after a crash reads the transfer back by that id instead of
// making a second one; "sent" or "failed" when the processor's answer decided the payout.
export const payoutRequests = pgTable("payout_requests", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  parentId: text("parent_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  payoutFee: money("payout_fee").notNull(),
  netAmount: money("net_amount").notNull(),
  status: text("status").$type<"pending" | "approved" | "rejected" | "returned">().notNull(),
  pixKey: text("pix_key").notNull(),
  reason: text("reason"),
  processorRef: text("processor_ref"),
  endToEndId: text("end_to_end_id"),
  transferStatus: text("transfer_status").$type<"sending" | "sent" | "failed">(),
  transferProcessor: text("transfer_processor"),
  transferId: text("transfer_id"),
  transferStartedAt: ts("transfer_started_at"),
  /** Sends made under transfer_id so far (each one claimed, with its lease, before its call). */
  transferAttempts: integer("transfer_attempts").notNull().default(0),
  /** Until when the last send's call may still be making the transfer: nothing judges the transfer before. */
  transferLeaseUntil: ts("transfer_lease_until"),
  /** The processor's refusal of the last send (a 4xx), judged only by a read-back after every call ended. */
  transferRefusal: text("transfer_refusal"),
  /** What the receiving bank sent back of an approved transfer (Pix devoluções on the send), in cents. */
  returnedAmount: money("returned_amount").notNull().default(0),
  /**
   * platform: a request feira pays (approved, rejected, sent through a processor); provider: a
   * read-only record of a transfer the processor made from the seller's own balance there
   * (provider settlement), recorded once under (transfer_processor, transfer_id).
   */
  source: text("source").$type<"platform" | "provider">().notNull().default("platform"),
  processedAt: ts("processed_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("payout_requests_merchant_idx").on(t.merchantId, t.environment, t.createdAt),
  index("payout_requests_parent_idx").on(t.parentId, t.environment, t.createdAt),
  uniqueIndex("payout_requests_end_to_end_uq").on(t.environment, t.endToEndId),
  // One transfer id per processor pays one payout (a notice finds the payout by it).
  uniqueIndex("payout_requests_transfer_uq").on(t.transferProcessor, t.transferId),
  // The worker's queue of transfers to read back: small, so a partial index.
  index("payout_requests_sending_idx").on(t.transferStartedAt).where(sql`${t.transferStatus} = 'sending'`),
]);

// A submerchant's totalSales (its paid and refunded charges in one environment) without counting
// its charges: triggers on charges (migration 0021) append +1/-1 to charge_sales_tail when a
// submerchant's charge becomes or stops being a sale, and the worker task connect.sales-rollup
// folds the tail into charge_sales_rollups. The count is the rollup row plus the tail's deltas,
// read in one statement (connect.repo.ts totalSales). No primary key on the tail: rows are only
// inserted, then claimed and deleted by their ctid.
export const chargeSalesRollups = pgTable("charge_sales_rollups", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  sales: bigint("sales", { mode: "number" }).notNull(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);

export const chargeSalesTail = pgTable("charge_sales_tail", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  delta: smallint("delta").notNull(),
}, (t) => [index("charge_sales_tail_scope_idx").on(t.merchantId, t.environment)]);
