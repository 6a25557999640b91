import { sql } from "drizzle-orm";
import type { ChargeStatus, LatePaymentStatus, StoredSplitRule } from "./statuses.js";
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, money, ts, updatedAt } from "./columns.js";

export const merchants = pgTable("merchants", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  email: text("email").notNull(),
  passwordHash: text("password_hash").notNull(),
  status: text("status").$type<"active" | "inactive" | "blocked">().notNull().default("active"),
  connectEnabled: boolean("connect_enabled").notNull().default(false),
  /** Set for submerchants (Connect): the master merchant that created them. */
  parentId: text("parent_id"),
  /** Receiver data written into Pix BR Codes. */
  pixKey: text("pix_key").notNull(),
  city: text("city").notNull().default("SAO PAULO"),
  /** The merchant's default text on buyers' card statements (PATCH /v1/merchant); null for none. */
  softDescriptor: text("soft_descriptor"),
  /** The IANA time zone the panel shows dates and days in (PATCH /v1/merchant); Brasília by default. */
  timezone: text("timezone").notNull().default("America/Sao_Paulo"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex("merchants_email_uq").on(t.email)]);

export const apiKeys = pgTable("api_keys", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull().references(() => merchants.id),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  keyHash: text("key_hash").notNull(),
  /** The key sealed with ENCRYPTION_KEY: a master reads a submerchant's keys through api-keys. */
  keySealed: text("key_sealed").notNull(),
  last4: text("last4").notNull(),
  createdAt: createdAt(),
  revokedAt: ts("revoked_at"),
}, (t) => [
  uniqueIndex("api_keys_hash_uq").on(t.keyHash),
  index("api_keys_merchant_idx").on(t.merchantId, t.environment),
]);

export const adminKeys = pgTable("admin_keys", {
  id: text("id").primaryKey(),
  keyHash: text("key_hash").notNull(),
  createdAt: createdAt(),
});

export const fees = pgTable("fees", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull().references(() => merchants.id),
  feeType: text("fee_type").notNull(),
  paymentMethod: text("payment_method").notNull(),
  currencyCode: text("currency_code").notNull(),
  brand: text("brand"),
  definition: jsonb("definition").$type<{ fixed: number; percentages: number[] }>().notNull(),
  createdAt: createdAt(),
}, (t) => [index("fees_merchant_idx").on(t.merchantId)]);

export const customers = pgTable("customers", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  name: text("name").notNull(),
  email: text("email"),
  phone: text("phone"),
  documentType: text("document_type"),
  documentId: text("document_id"),
  address: jsonb("address").$type<Record<string, unknown>>(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  // DELETE /v1/customers/{id}: the row stays for the charges, disputes and ledger that name it,
  // and is gone from every lookup, list and match (docs/decisions.md, "Deleting a customer").
  deletedAt: ts("deleted_at"),
}, (t) => [
  index("customers_scope_idx").on(t.merchantId, t.environment, t.id),
  // With the id last, a charge's inline customer (the oldest with that e-mail, else that phone)
  // is the first entry of one range, whatever the statistics say (migrations 0024, 0025). Partial,
  // like charges_link_created_idx: the whole-scope list never takes them for its order. The document
  // one serves the list's documentId filter: a document alone never finds a charge's customer.
  index("customers_email_id_idx").on(t.merchantId, t.environment, t.email, t.id).where(sql`${t.email} is not null`),
  index("customers_phone_id_idx").on(t.merchantId, t.environment, t.phone, t.id).where(sql`${t.phone} is not null`),
  index("customers_document_id_idx").on(t.merchantId, t.environment, t.documentId, t.id).where(sql`${t.documentId} is not null`),
  // The subscription list's free-text search finds the customers whose name or e-mail holds the
  // text anywhere by trigrams (pg_trgm, migration 0023) instead of reading every subscription.
  index("customers_name_trgm_idx").using("gin", t.name.op("gin_trgm_ops")),
  index("customers_email_trgm_idx").using("gin", t.email.op("gin_trgm_ops")),
]);

export const cards = pgTable("cards", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  customerId: text("customer_id").notNull(),
  brand: text("brand").notNull(),
  firstSix: text("first_six").notNull(),
  lastFour: text("last_four").notNull(),
  expirationMonth: text("expiration_month").notNull(),
  expirationYear: text("expiration_year").notNull(),
  holderName: text("holder_name").notNull(),
  /** The PAN sealed with AES-256-GCM; never returned, never logged. CVV is never stored. */
  numberSealed: text("number_sealed").notNull(),
  createdAt: createdAt(),
}, (t) => [index("cards_customer_idx").on(t.merchantId, t.environment, t.customerId)]);

/**
 * The buyer a charge was made for, as typed: a customer found again by its e-mail or phone keeps
 * the name it was first saved with, while each of its charges shows the name typed for it.
 */
export interface ChargeBuyer {
  name: string;
  email: string | null;
  phone: string | null;
  documentType: string | null;
  documentId: string | null;
}

export const charges = pgTable("charges", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  customerId: text("customer_id"),
  /** The inline customer as typed on this charge (null when the charge named a customer id). */
  buyer: jsonb("buyer").$type<ChargeBuyer>(),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  status: text("status").$type<ChargeStatus>().notNull(),
  reason: text("reason"),
  isBlocked: boolean("is_blocked").notNull().default(false),
  paymentMethodType: text("payment_method_type").notNull(),
  /** Safe view of the payment method: type, brand, first six, last four, holder, installments. */
  paymentMethod: jsonb("payment_method").$type<Record<string, unknown>>().notNull(),
  paymentDetails: jsonb("payment_details").$type<Record<string, unknown>>(),
  installments: integer("installments").notNull().default(1),
  processor: text("processor").notNull(),
  pspRefId: text("psp_ref_id"),
  spread: money("spread").notNull().default(0),
  anticipationFee: money("anticipation_fee").notNull().default(0),
  net: money("net").notNull().default(0),
  amountRefunded: money("amount_refunded").notNull().default(0),
  /** Taken from the balance by the charge's open and lost disputes (a won one gives its part back). */
  amountDisputed: money("amount_disputed").notNull().default(0),
  items: jsonb("items").$type<Record<string, unknown>[]>(),
  shippingAddress: jsonb("shipping_address").$type<Record<string, unknown>>(),
  trackingInfo: jsonb("tracking_info").$type<Record<string, unknown>>(),
  metadata: jsonb("metadata").$type<Record<string, unknown>>(),
  postbackUrl: text("postback_url"),
  split: jsonb("split").$type<StoredSplitRule[]>(),
  /**
   * A card charge in more installments than the merchant's interest-free ones: what the buyer
   * pays with the interest (asked of the processor) and each installment; null otherwise, when
   * the buyer pays `amount` (src/lib/price-table.ts).
   */
  totalAmount: money("total_amount"),
  installmentAmount: money("installment_amount"),
  freightAmount: money("freight_amount"),
  freightDetails: jsonb("freight_details").$type<Record<string, unknown>>(),
  /** The payment link the buyer paid through, when there is one. */
  paymentLinkId: text("payment_link_id"),
  /** Set by the billing engine only, for a subscription's charge; never from a client's body. */
  subscriptionId: text("subscription_id"),
  paidAt: ts("paid_at"),
  /** What a charge with collection terms was paid with, in minor units (amount-due.ts); null for any other. */
  paidBreakdown: jsonb("paid_breakdown").$type<{ principal: number; discount: number; fine: number; interest: number }>(),
  expiresAt: ts("expires_at"),
  /** A live charge's payment that arrived after feira failed it, and its automatic refund. */
  latePayment: text("late_payment").$type<LatePaymentStatus>(),
  /**
   * The root merchant's settlement when the charge was created (connect/settlement.ts): a change
   * of the setting applies to later charges only, so what a charge's money does is read here.
   */
  settlement: text("settlement").$type<"platform" | "provider">().notNull().default("platform"),
  /** When reconciliation last read this paid live charge at its provider (chargebacks). */
  providerCheckedAt: ts("provider_checked_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deletedAt: ts("deleted_at"),
  // True when created_at is more than a minute from the time in the id (a retry that took over
  // an idempotency claim long after the first attempt made the id, a sandbox renewal on the test
  // clock, a demo charge moved back): a marker only, since lists order by created_at.
  createdApart: boolean("created_apart").notNull().default(false),
  // The buyer's page (GET /r/{token}): 256 bits hashed from two version-4 UUIDs (244 random bits,
  // PostgreSQL's pg_strong_random), made by the charge's own insert, so the charge path writes it
  // without a statement of its own, and every charge made before it got one too.
  pageToken: text("page_token").notNull()
    .default(sql`rtrim(translate(encode(sha256(uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())), 'base64'), '+/', '-_'), '=')`),
}, (t) => [
  uniqueIndex("charges_page_token_uq").on(t.pageToken),
  // GET /v1/charges is newest first by creation, (created_at, id), and its filters are each
  // followed by both: a filtered page reads its 11 rows in index order however rare the value
  // (without them, a status no charge has made the planner walk the merchant's whole history).
  // Not by id alone: a charge's id need not tell when it was made (issue 46: a renewal's id kept
  // its subscription's time). The cursor is still an id (db/pagination.ts, creationPageFilters).
  index("charges_scope_created_idx").on(t.merchantId, t.environment, t.createdAt, t.id),
  index("charges_customer_created_idx").on(t.merchantId, t.environment, t.customerId, t.createdAt, t.id),
  index("charges_status_created_idx").on(t.merchantId, t.environment, t.status, t.createdAt, t.id),
  index("charges_method_created_idx").on(t.merchantId, t.environment, t.paymentMethodType, t.createdAt, t.id),
  // The expiry janitor's scan: unpaid charges whose payment instructions have run out. Partial,
  // like the next one: a charge that is never pending (a card paid at once) or was not sold
  // through a payment link writes no entry (0011).
  index("charges_pending_expiry_idx").on(t.expiresAt).where(sql`${t.status} = 'pending'`),
  index("charges_link_created_idx").on(t.merchantId, t.environment, t.paymentLinkId, t.createdAt, t.id).where(sql`${t.paymentLinkId} is not null`),
  // A provider webhook names a live charge by feira's id (the primary key) or by the provider's
  // own id: this one. Partial: sandbox charges never reach a provider (charges/provider-state/provider-sync.repo.ts).
  index("charges_live_psp_ref_idx").on(t.pspRefId).where(sql`${t.environment} = 'production' and ${t.pspRefId} is not null`),
  // Reconciliation's sweep of settled live charges, least recently read first: paid ones
  // (chargebacks), expired ones and those a cancel ended (payments that land late: a Pix
  // Automático debit the payer's bank made after the merchant's cancel).
  index("charges_live_sweep_idx").on(sql`coalesce(${t.providerCheckedAt}, ${t.updatedAt})`)
    .where(sql`${t.environment} = 'production' and (${t.status} = 'paid' or (${t.status} = 'failed' and ${t.reason} in ('expired', 'canceled')))`),
  // Reconciliation's round over live charges still waiting for the provider's word, in id order
  // from where the last round stopped. Partial: a charge leaves it when it settles, so it holds
  // only the open live charges however many were ever made (without it, a Seq Scan of charges).
  index("charges_live_open_idx").on(t.id)
    .where(sql`${t.environment} = 'production' and ${t.status} in ('pending', 'in_analysis', 'authentication_required') and ${t.processor} <> 'sandbox'`),
  // Late payments whose refund the provider has not confirmed yet: read again every round.
  index("charges_late_refund_idx").on(t.id).where(sql`${t.latePayment} = 'refund_pending'`),
]);

export const refunds = pgTable("refunds", {
  id: text("id").primaryKey(),
  chargeId: text("charge_id").notNull().references(() => charges.id),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  amount: money("amount").notNull(),
  status: text("status").notNull(),
  /** The provider's id of the refund, once it gave one (read back with refundStatus). */
  refundRef: text("refund_ref"),
  /** The provider's own status or error code of its last answer, for support. */
  providerCode: text("provider_code"),
  /**
   * When feira last called the processor about this refund (refund or refundStatus); null while
   * it never did, so sending it is safe. Set before each call, so an answer lost to a crash or
   * a timeout still shows that the provider may have the refund.
   */
  sentAt: ts("sent_at"),
  createdAt: createdAt(),
}, (t) => [
  index("refunds_charge_idx").on(t.chargeId),
  // The refund janitor's scan: reservations still pending (a crash between the reservation and
  // the processor's answer leaves one behind).
  index("refunds_pending_idx").on(t.status, t.createdAt),
]);

// Double-entry ledger. An account is (owner, environment, currency, name); owner is a merchant
// id or "platform". Amounts are signed minor units, positive = credit, and the entries of one
// transaction always sum to zero.
export const ledgerTransactions = pgTable("ledger_transactions", {
  id: text("id").primaryKey(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  type: text("type").notNull(),
  sourceId: text("source_id"),
  description: text("description"),
  createdAt: createdAt(),
}, (t) => [
  index("ledger_tx_source_idx").on(t.sourceId),
  // A charge's chargeback and its late payment (in, then out), and a dispute's hold and its
  // return, are each posted once, whoever reads the provider's answer first (a notice,
  // reconciliation, the expiry, the deadline task).
  uniqueIndex("ledger_tx_once_idx").on(t.type, t.sourceId)
    .where(sql`${t.type} in ('chargeback', 'late_payment', 'late_payment_refund', 'dispute', 'dispute_won')`),
]);

export const ledgerEntries = pgTable("ledger_entries", {
  id: text("id").primaryKey(),
  transactionId: text("transaction_id").notNull().references(() => ledgerTransactions.id),
  owner: text("owner").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  currency: text("currency").notNull(),
  account: text("account").notNull(),
  amount: money("amount").notNull(),
  type: text("type").notNull(),
  sourceId: text("source_id"),
  /** Counted in ledger_rollups (set by the rollup job only, in the statement that adds it there). */
  rolledUp: boolean("rolled_up").notNull().default(false),
  createdAt: createdAt(),
}, (t) => [
  // GET /v1/balance-transactions: an owner's entries newest first.
  index("ledger_entries_owner_idx").on(t.owner, t.environment, t.id),
  index("ledger_entries_tx_idx").on(t.transactionId),
  // The entries not rolled up yet: an owner's tail for its balances, and the rollup job's queue.
  index("ledger_entries_unrolled_idx").on(t.owner, t.environment).where(sql`not ${t.rolledUp}`),
]);

// Running balances: per account, the sum of its entries marked rolled_up. A balance is its
// rollup row plus its entries not rolled up yet (ledger.repo.ts). Only the rollup job writes
// here, never the charge path: a row per platform account updated by every charge would
// serialize all charges on it.
export const ledgerRollups = pgTable("ledger_rollups", {
  owner: text("owner").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  currency: text("currency").notNull(),
  account: text("account").notNull(),
  amount: money("amount").notNull(),
}, (t) => [primaryKey({ columns: [t.owner, t.environment, t.currency, t.account] })]);

// Money owed to an account holder that becomes available on a date (card: per installment,
// Pix: next day). The unsettled rows of a merchant sum to its pending balance.
export const settlements = pgTable("settlements", {
  id: text("id").primaryKey(),
  owner: text("owner").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  currency: text("currency").notNull(),
  chargeId: text("charge_id").notNull(),
  installment: integer("installment").notNull(),
  amount: money("amount").notNull(),
  dueAt: ts("due_at").notNull(),
  settledAt: ts("settled_at"),
  // "release": a share of a split rule with hold: true, on the owner's held balance and never
  // settled until POST /v1/charges/{id}/release (or a refund) makes it an ordinary row (null).
  // "days": a share of a recipient with holdDays, held until held_until (the ledger's
  // holds task, or the sandbox clock's advance, makes it an ordinary row then).
  hold: text("hold").$type<"release" | "days">(),
  heldUntil: ts("held_until"),
  createdAt: createdAt(),
}, (t) => [
  index("settlements_held_until_idx").on(t.heldUntil).where(sql`${t.hold} = 'days'`),
  index("settlements_due_idx").on(t.settledAt, t.dueAt),
  index("settlements_charge_idx").on(t.chargeId),
]);

export const idempotencyKeys = pgTable("idempotency_keys", {
  scope: text("scope").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  route: text("route").notNull(),
  key: text("key").notNull(),
  requestHash: text("request_hash").notNull(),
  state: text("state").notNull(),
  responseStatus: integer("response_status"),
  responseBody: text("response_body"),
  responseType: text("response_type"),
  /**
   * Random seed from which the request derives the ids of what it creates (http/idempotency.ts):
   * a retry that takes over an abandoned claim derives the same ids, so it finds the charge or
   * refund the dead process may have created, and the processor sees the same idempotency key.
   */
  seed: text("seed").notNull().default(""),
  /** A "processing" claim belongs to its process until then; afterwards a retry may take it over. */
  lockedUntil: ts("locked_until"),
  createdAt: createdAt(),
}, (t) => [
  primaryKey({ columns: [t.scope, t.environment, t.route, t.key] }),
  index("idempotency_keys_created_idx").on(t.createdAt),
]);

// What the sandbox processor has answered, by the idempotency key of the call (the charge id
// for an authorization, the refund id for a refund). It stands in for the processor's own
// records: a repeated call gets the first answer back instead of a second authorization.
export const sandboxProcessorRecords = pgTable("sandbox_processor_records", {
  key: text("key").primaryKey(),
  operation: text("operation").notNull(),
  result: jsonb("result").$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
});

// Rate-limit counters shared by every API process on PostgreSQL (rate-limiter-flexible's
// Drizzle store); the embedded database keeps them in memory.
export const rateLimits = pgTable("rate_limits", {
  key: text("key").primaryKey(),
  points: integer("points").notNull().default(0),
  expire: ts("expire"),
});

// The panel's signed-in sessions. The cookie is signed and carries the session's nonce; this row,
// keyed by the nonce's SHA-256 (a copy of the table opens nothing), is what makes it a session:
// signing out deletes it, and every panel request looks it up, so a copied cookie dies with it on
// every process at once.
export const panelSessions = pgTable("panel_sessions", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull().references(() => merchants.id),
  expiresAt: ts("expires_at").notNull(),
  createdAt: createdAt(),
}, (t) => [index("panel_sessions_expires_idx").on(t.expiresAt)]);
