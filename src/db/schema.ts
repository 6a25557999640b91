import {
  bigint, boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex,
} from "drizzle-orm/pg-core";

// One schema for PGlite and PostgreSQL. Money is integer minor units in bigint columns read
// as JS numbers (safe up to 2^53, far beyond any single amount). Every merchant-owned row
// carries merchant_id and environment, and every query filters by both.

const ts = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });
const money = (name: string) => bigint(name, { mode: "number" });
const createdAt = () => ts("created_at").notNull().defaultNow();
const updatedAt = () => ts("updated_at").notNull().defaultNow();

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
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex("merchants_email_uq").on(t.email)]);

export const apiKeys = pgTable("api_keys", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull().references(() => merchants.id),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  keyHash: text("key_hash").notNull(),
  /** The key sealed with ENCRYPTION_KEY: a master may read a submerchant's keys (spec 4.2). */
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
}, (t) => [
  index("customers_scope_idx").on(t.merchantId, t.environment, t.id),
  index("customers_email_idx").on(t.merchantId, t.environment, t.email),
  index("customers_document_idx").on(t.merchantId, t.environment, t.documentId),
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

export const charges = pgTable("charges", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  customerId: text("customer_id"),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  status: text("status").notNull(),
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
  items: jsonb("items").$type<Record<string, unknown>[]>(),
  shippingAddress: jsonb("shipping_address").$type<Record<string, unknown>>(),
  trackingInfo: jsonb("tracking_info").$type<Record<string, unknown>>(),
  metadata: jsonb("metadata").$type<Record<string, unknown>>(),
  postbackUrl: text("postback_url"),
  split: jsonb("split").$type<{ merchantId: string; percentage: number }[]>(),
  freightAmount: money("freight_amount"),
  freightDetails: jsonb("freight_details").$type<Record<string, unknown>>(),
  /** The payment link the buyer paid through, when there is one. */
  paymentLinkId: text("payment_link_id"),
  paidAt: ts("paid_at"),
  expiresAt: ts("expires_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deletedAt: ts("deleted_at"),
}, (t) => [
  index("charges_scope_idx").on(t.merchantId, t.environment, t.id),
  index("charges_customer_idx").on(t.merchantId, t.environment, t.customerId),
  index("charges_status_idx").on(t.merchantId, t.environment, t.status),
  // The expiry janitor's scan: unpaid charges whose payment instructions have run out.
  index("charges_expiry_idx").on(t.status, t.expiresAt),
  index("charges_payment_link_idx").on(t.merchantId, t.environment, t.paymentLinkId, t.id),
]);

export const refunds = pgTable("refunds", {
  id: text("id").primaryKey(),
  chargeId: text("charge_id").notNull().references(() => charges.id),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  amount: money("amount").notNull(),
  status: text("status").notNull(),
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
}, (t) => [index("ledger_tx_source_idx").on(t.sourceId)]);

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
  createdAt: createdAt(),
}, (t) => [
  index("ledger_entries_account_idx").on(t.owner, t.environment, t.currency, t.account),
  index("ledger_entries_tx_idx").on(t.transactionId),
]);

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
  createdAt: createdAt(),
}, (t) => [
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

// Transactional outbox: an event row is written in the same transaction as the change it
// reports, together with one delivery row per destination.
export const events = pgTable("events", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  type: text("type").notNull(),
  /** "standard" ({id, event, livemode, data}), "legacy" ({event, data}) or "notification". */
  envelope: text("envelope").notNull(),
  objectId: text("object_id"),
  data: jsonb("data").$type<Record<string, unknown>>().notNull(),
  createdAt: createdAt(),
}, (t) => [
  index("events_scope_idx").on(t.merchantId, t.environment, t.id),
  index("events_object_idx").on(t.objectId),
  index("events_created_idx").on(t.createdAt),
]);

export const webhookEndpoints = pgTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  url: text("url").notNull(),
  /** Event types this endpoint receives; ["*"] means all. */
  events: jsonb("events").$type<string[]>().notNull(),
  enabled: boolean("enabled").notNull().default(true),
  description: text("description"),
  secretSealed: text("secret_sealed").notNull(),
  /** The secret before the last rotation: deliveries are signed with both until it expires. */
  previousSecretSealed: text("previous_secret_sealed"),
  previousSecretExpiresAt: ts("previous_secret_expires_at"),
  disabledReason: text("disabled_reason"),
  failingSince: ts("failing_since"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
  deletedAt: ts("deleted_at"),
}, (t) => [index("webhook_endpoints_scope_idx").on(t.merchantId, t.environment)]);

// Postbacks (a charge's postbackUrl) are signed like endpoint deliveries, with one secret per
// merchant and environment, created on first use.
export const postbackSecrets = pgTable("postback_secrets", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  secretSealed: text("secret_sealed").notNull(),
  previousSecretSealed: text("previous_secret_sealed"),
  previousSecretExpiresAt: ts("previous_secret_expires_at"),
  createdAt: createdAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);

export const webhookDeliveries = pgTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  eventId: text("event_id").notNull().references(() => events.id),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  /** Null for postbacks, which go to `url` of the charge (or submerchant). */
  endpointId: text("endpoint_id"),
  url: text("url").notNull(),
  /** "endpoint", "postback" or "legacy": decides envelope, signing and retry schedule. */
  kind: text("kind").notNull(),
  status: text("status").notNull().default("pending"),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
  leaseUntil: ts("lease_until"),
  lastStatus: integer("last_status"),
  lastError: text("last_error"),
  deliveredAt: ts("delivered_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("webhook_deliveries_due_idx").on(t.status, t.nextAttemptAt),
  index("webhook_deliveries_event_idx").on(t.eventId),
  index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.id),
]);

export const webhookAttempts = pgTable("webhook_attempts", {
  id: text("id").primaryKey(),
  deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id),
  attempt: integer("attempt").notNull(),
  startedAt: ts("started_at").notNull(),
  durationMs: integer("duration_ms").notNull(),
  responseStatus: integer("response_status"),
  error: text("error"),
  responseExcerpt: text("response_excerpt"),
}, (t) => [index("webhook_attempts_delivery_idx").on(t.deliveryId)]);


// Connect (spec 2.5, 3.2). A submerchant is a merchant (merchants row with parent_id, its own
// keys, no login); this row holds its registration and accreditation. It is an account, like its
// master: the same in sandbox and production (its sandbox key tests while it is pending, its
// production key charges once it is active). `environment` is where it was created: its status
// notifications are events of that environment.
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
  status: text("status").notNull().default("pending"),
  statusReason: text("status_reason"),
  preApprovedAt: ts("pre_approved_at"),
  approvedAt: ts("approved_at"),
  rejectedAt: ts("rejected_at"),
  blockedAt: ts("blocked_at"),
  inactivatedAt: ts("inactivated_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("submerchants_parent_idx").on(t.parentId, t.createdAt),
  uniqueIndex("submerchants_tax_id_uq").on(t.parentId, t.companyTaxId),
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
  defaultSplit: jsonb("default_split").$type<{ merchantId: string; percentage: number }[]>().notNull(),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);

// Payout requests (spec 2.7, 3.3): the amount is reserved on the ledger when the request is
// made, paid out (by Pix to the submerchant's CNPJ) on approval, released on rejection.
export const payoutRequests = pgTable("payout_requests", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  parentId: text("parent_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  payoutFee: money("payout_fee").notNull(),
  netAmount: money("net_amount").notNull(),
  status: text("status").$type<"pending" | "approved" | "rejected">().notNull(),
  pixKey: text("pix_key").notNull(),
  reason: text("reason"),
  processorRef: text("processor_ref"),
  processedAt: ts("processed_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("payout_requests_merchant_idx").on(t.merchantId, t.environment, t.createdAt),
  index("payout_requests_parent_idx").on(t.parentId, t.environment, t.createdAt),
]);

// Payment links (src/modules/payment-links): one link takes many payments, each a charge with
// payment_link_id. Products are kept as given (unit prices in minor units, cm and kg).
export interface PaymentLinkProduct {
  id: string;
  title: string;
  unitPrice: number;
  quantity: number;
  physical: boolean;
  width: number | null;
  height: number | null;
  length: number | null;
  weight: number | null;
}

export const paymentLinks = pgTable("payment_links", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  title: text("title").notNull(),
  description: text("description"),
  currency: text("currency").notNull(),
  freightMode: text("freight_mode").$type<"checkout" | "fixed" | "pickup" | "free">().notNull(),
  fixedFreightAmount: money("fixed_freight_amount"),
  products: jsonb("products").$type<PaymentLinkProduct[]>().notNull(),
  successUrl: text("success_url"),
  active: boolean("active").notNull().default(true),
  expiresAt: ts("expires_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index("payment_links_scope_idx").on(t.merchantId, t.environment, t.id)]);

// The merchant's connection to Melhor Envio (src/modules/shipping), per environment. The client
// secret and both tokens are sealed with ENCRYPTION_KEY and never leave the server.
export const shippingIntegrations = pgTable("shipping_integrations", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  provider: text("provider").notNull().default("melhor_envio"),
  status: text("status").$type<"active" | "inactive">().notNull().default("inactive"),
  clientId: text("client_id"),
  clientSecretSealed: text("client_secret_sealed"),
  accessTokenSealed: text("access_token_sealed"),
  refreshTokenSealed: text("refresh_token_sealed"),
  tokenExpiresAt: ts("token_expires_at"),
  originPostalCode: text("origin_postal_code"),
  enabledServices: jsonb("enabled_services").$type<number[]>().notNull().default([]),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);

// One row per OAuth authorize URL handed out: the callback consumes it, so a state works once.
export const shippingOauthStates = pgTable("shipping_oauth_states", {
  nonce: text("nonce").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: createdAt(),
});

// Freight quotes cached 15 minutes per (link, postal code, items), shared by every API process.
export const freightQuotes = pgTable("freight_quotes", {
  key: text("key").primaryKey(),
  paymentLinkId: text("payment_link_id").notNull(),
  options: jsonb("options").$type<Record<string, unknown>[]>().notNull(),
  expiresAt: ts("expires_at").notNull(),
  createdAt: createdAt(),
}, (t) => [index("freight_quotes_expiry_idx").on(t.expiresAt)]);

// Subscriptions (src/modules/subscriptions). A plan's price is in minor units like a charge.
export const plans = pgTable("plans", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  name: text("name").notNull(),
  description: text("description"),
  price: money("price").notNull(),
  currency: text("currency").notNull(),
  interval: text("interval").$type<"day" | "week" | "month" | "year">().notNull(),
  intervalCount: integer("interval_count").notNull().default(1),
  trialDays: integer("trial_days").notNull().default(0),
  archivedAt: ts("archived_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [index("plans_scope_idx").on(t.merchantId, t.environment, t.id)]);

export const subscriptions = pgTable("subscriptions", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  planId: text("plan_id").notNull(),
  /** A plan change applies from the next period: the renewal swaps it in. */
  nextPlanId: text("next_plan_id"),
  customerId: text("customer_id").notNull(),
  /** {type: "credit_card", cardId} (a vault card) or {type: "pix" | "boleto"}. */
  paymentMethod: jsonb("payment_method").$type<{ type: string; cardId?: string }>().notNull(),
  status: text("status").notNull(),
  billingDay: integer("billing_day").notNull(),
  /** Periods are counted from here (start, trial end or resume date); `cycle` is the current one (-1: trial). */
  anchorAt: ts("anchor_at").notNull(),
  cycle: integer("cycle").notNull().default(0),
  currentPeriodStart: ts("current_period_start").notNull(),
  currentPeriodEnd: ts("current_period_end").notNull(),
  trialEnd: ts("trial_end"),
  cancelAtPeriodEnd: boolean("cancel_at_period_end").notNull().default(false),
  cancelledAt: ts("cancelled_at"),
  cancellationType: text("cancellation_type"),
  refunded: boolean("refunded").notNull().default(false),
  pausedAt: ts("paused_at"),
  openInvoiceId: text("open_invoice_id"),
  /** When the billing engine must look at it next (simulated time for sandbox clocks). */
  nextRunAt: ts("next_run_at"),
  /** A worker's claim: until then no other worker bills it. */
  claimedUntil: ts("claimed_until"),
  split: jsonb("split").$type<{ merchantId: string; percentage: number }[]>(),
  metadata: jsonb("metadata").$type<Record<string, unknown>>(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("subscriptions_scope_idx").on(t.merchantId, t.environment, t.id),
  index("subscriptions_customer_idx").on(t.merchantId, t.environment, t.customerId),
  index("subscriptions_due_idx").on(t.nextRunAt),
]);

// One invoice per billed period; its attempts are charges (subscription_charges).
export const subscriptionInvoices = pgTable("subscription_invoices", {
  id: text("id").primaryKey(),
  subscriptionId: text("subscription_id").notNull(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  cycle: integer("cycle").notNull(),
  periodStart: ts("period_start").notNull(),
  periodEnd: ts("period_end").notNull(),
  planId: text("plan_id").notNull(),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  /** open (being collected), paid, uncollectible (dunning exhausted) or void. */
  status: text("status").notNull(),
  attempts: integer("attempts").notNull().default(0),
  currentChargeId: text("current_charge_id"),
  /** A charge attempt is being made: its outcome is handled by the attempt itself (or its rerun). */
  inFlight: boolean("in_flight").notNull().default(false),
  /** Next retry, or the deadline of a Pix or boleto attempt. */
  nextAttemptAt: ts("next_attempt_at"),
  paidAt: ts("paid_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex("subscription_invoices_period_uq").on(t.subscriptionId, t.periodStart)]);

/** Every charge made for a subscription: the attempts of its invoices, with their last status. */
export const subscriptionCharges = pgTable("subscription_charges", {
  chargeId: text("charge_id").primaryKey(),
  invoiceId: text("invoice_id").notNull(),
  subscriptionId: text("subscription_id").notNull(),
  attempt: integer("attempt").notNull(),
  status: text("status").notNull(),
  reason: text("reason"),
  createdAt: createdAt(),
}, (t) => [index("subscription_charges_sub_idx").on(t.subscriptionId, t.createdAt)]);

/** A merchant's dunning rules per environment; defaults (1, 3, 5 days, then expire) when absent. */
export const subscriptionSettings = pgTable("subscription_settings", {
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  retryDays: jsonb("retry_days").$type<number[]>().notNull(),
  onExhausted: text("on_exhausted").$type<"expire" | "cancel">().notNull(),
  updatedAt: updatedAt(),
}, (t) => [uniqueIndex("subscription_settings_uq").on(t.merchantId, t.environment)]);

/** The sandbox test clock: how far a merchant's sandbox time runs ahead of real time. */
export const sandboxClocks = pgTable("sandbox_clocks", {
  merchantId: text("merchant_id").primaryKey(),
  offsetMs: money("offset_ms").notNull().default(0),
  updatedAt: updatedAt(),
});
