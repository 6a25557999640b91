import { boolean, index, jsonb, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, money, ts, updatedAt } from "./columns.js";

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
