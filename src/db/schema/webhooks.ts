import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, ts, updatedAt } from "./columns.js";

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
  // GET /v1/events?type=charge.refunded: newest first within a type, however rare the type.
  index("events_type_idx").on(t.merchantId, t.environment, t.type, t.id),
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

// Open GET /v1/events/stream connections, so that the limit per merchant and environment holds
// across every API process. A stream renews its row while open and deletes it when it ends; the
// row of a process that died expires on its own.
export const eventStreams = pgTable("event_streams", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  expiresAt: ts("expires_at").notNull(),
}, (t) => [index("event_streams_scope_idx").on(t.merchantId, t.environment)]);

// Subscribers' share of the outbox (docs/architecture.md, "Reacting to events"): one row per
// event and subscriber that the catalog says reacts to its type, written in the same statement
// as the event, claimed by the worker under a lease as deliveries are. A subscriber never runs
// inside the transaction of the change it reacts to.
export const eventReactions = pgTable("event_reactions", {
  id: text("id").primaryKey(),
  eventId: text("event_id").notNull(),
  subscriber: text("subscriber").notNull(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  /** "pending" (due at next_attempt_at, or claimed while lease_until is ahead), "done" or "failed". */
  status: text("status").notNull().default("pending"),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: ts("next_attempt_at").notNull().defaultNow(),
  leaseUntil: ts("lease_until"),
  lastError: text("last_error"),
  createdAt: createdAt(),
}, (t) => [
  index("event_reactions_due_idx").on(t.status, t.nextAttemptAt),
  uniqueIndex("event_reactions_event_subscriber_idx").on(t.eventId, t.subscriber),
]);
