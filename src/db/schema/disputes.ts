import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, text, uniqueIndex } from "drizzle-orm/pg-core";
import { createdAt, money, ts, updatedAt } from "./columns.js";
import type { DisputeKind, DisputeStatus } from "./statuses.js";

/** The evidence a merchant submitted: its text and the files' metadata (the content is in dispute_files). */
export interface DisputeEvidence {
  text: string;
  files: { id: string; name: string; contentType: string; size: number }[];
}

// Disputes of a charge: a chargeback or a Pix MED, opened by a provider's
// notice or the sandbox. `held` is what opening it took from the balance (at most what the
// charge still had paid); a won dispute gives exactly that back.
export const disputes = pgTable("disputes", {
  id: text("id").primaryKey(),
  merchantId: text("merchant_id").notNull(),
  environment: text("environment").$type<"sandbox" | "production">().notNull(),
  chargeId: text("charge_id").notNull(),
  kind: text("kind").$type<DisputeKind>().notNull(),
  status: text("status").$type<DisputeStatus>().notNull(),
  reason: text("reason").notNull(),
  amount: money("amount").notNull(),
  currency: text("currency").notNull(),
  held: money("held").notNull().default(0),
  evidenceDueBy: ts("evidence_due_by").notNull(),
  evidence: jsonb("evidence").$type<DisputeEvidence>(),
  /** `sandbox`, or the live processor that reported it; disputeRef is its id there. */
  processor: text("processor").notNull(),
  disputeRef: text("dispute_ref"),
  submittedAt: ts("submitted_at"),
  closedAt: ts("closed_at"),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
}, (t) => [
  index("disputes_scope_idx").on(t.merchantId, t.environment, t.id),
  index("disputes_charge_idx").on(t.chargeId),
  // The deadline task's scan: disputes still waiting for evidence, by due date.
  index("disputes_due_idx").on(t.evidenceDueBy).where(sql`${t.status} = 'needs_response'`),
  // A provider's dispute is one row, however many notices report it.
  uniqueIndex("disputes_ref_uq").on(t.processor, t.disputeRef),
]);

/** Evidence files, sealed like KYC documents (the AAD names the dispute and the file). */
export const disputeFiles = pgTable("dispute_files", {
  id: text("id").primaryKey(),
  disputeId: text("dispute_id").notNull().references(() => disputes.id),
  name: text("name").notNull(),
  contentType: text("content_type").notNull(),
  size: integer("size").notNull(),
  sha256: text("sha256").notNull(),
  contentSealed: text("content_sealed").notNull(),
  createdAt: createdAt(),
}, (t) => [index("dispute_files_dispute_idx").on(t.disputeId)]);
