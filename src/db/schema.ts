// One schema for PGlite and PostgreSQL, one file per part of the service (src/db/schema/);
// this file is what drizzle-kit and the database client read. Money is integer minor units in
// bigint columns read as JS numbers (safe up to 2^53, far beyond any single amount). Every
// merchant-owned row carries merchant_id and environment, and every query filters by both.
export * from "./schema/core.js";
export * from "./schema/webhooks.js";
export * from "./schema/connect.js";
export * from "./schema/payment-links.js";
export * from "./schema/subscriptions.js";
export * from "./schema/disputes.js";
export * from "./schema/mail.js";
export * from "./schema/installments.js";
export * from "./schema/reconciliations.js";
