import { integer, pgTable, text, primaryKey } from "drizzle-orm/pg-core";
import { updatedAt } from "./columns.js";
import { merchants } from "./core.js";

// The installments a merchant's card buyers may choose, per environment (PUT
// /v1/settings/installments). No row: 12 installments, all interest-free (today's behaviour).
export const installmentSettings = pgTable("installment_settings", {
  merchantId: text("merchant_id").notNull().references(() => merchants.id),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  maxInstallments: integer("max_installments").notNull(),
  interestFreeInstallments: integer("interest_free_installments").notNull(),
  /** The monthly rate in hundredths of a percent (299 = 2.99 %), so no float is stored. */
  monthlyInterestBasisPoints: integer("monthly_interest_basis_points").notNull(),
  updatedAt: updatedAt(),
}, (t) => [primaryKey({ columns: [t.merchantId, t.environment] })]);
