import { date, index, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { createdAt, money, ts } from "./columns.js";

// Provider settlement's daily reconciliation (connect/reconciliations.ts): one row per seller's
// account at a processor, currency and day (Brasília's calendar, by the master's test clock in
// the sandbox). The key is the run's derived id: several workers, restarts and a crash mid-run
// make one row, and the row and its connect.balance_mismatch event commit together.
export const providerReconciliations = pgTable("provider_reconciliations", {
  submerchantId: text("submerchant_id").notNull(),
  processor: text("processor").notNull(),
  currency: text("currency").notNull(),
  day: date("day", { mode: "string" }).notNull(),
  /** The submerchant's master and environment (the scope that reads it). */
  parentId: text("parent_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  /** feira's atProvider figure and the processor's, in cents, when the balance was read. */
  feiraAmount: money("feira_amount").notNull(),
  processorAmount: money("processor_amount").notNull(),
  status: text("status").$type<"matched" | "mismatch">().notNull(),
  checkedAt: ts("checked_at").notNull(),
  createdAt: createdAt(),
}, (t) => [
  primaryKey({ columns: [t.submerchantId, t.processor, t.currency, t.day] }),
  index("provider_reconciliations_parent_idx").on(t.parentId, t.environment),
]);
