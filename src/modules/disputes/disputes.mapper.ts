import type { disputes } from "../../db/schema.js";
import { toMajor } from "../../lib/money.js";

// Pure shapes of a dispute: the API's (camelCase, currency units) and the events' data
// (snake_case, cents, like every standard event's object).
export type DisputeRow = typeof disputes.$inferSelect;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toDisputeResponse(d: DisputeRow) {
  return {
    id: d.id, chargeId: d.chargeId, kind: d.kind, status: d.status, reason: d.reason,
    amount: toMajor(d.amount, d.currency), currency: d.currency,
    evidenceDueBy: d.evidenceDueBy.toISOString(), evidence: d.evidence,
    submittedAt: iso(d.submittedAt), closedAt: iso(d.closedAt), createdAt: d.createdAt.toISOString(),
  };
}

export function toDisputeEventData(d: DisputeRow): Record<string, unknown> {
  return {
    id: d.id, charge_id: d.chargeId, kind: d.kind, status: d.status, reason: d.reason, amount: d.amount, currency: d.currency,
    evidence_due_by: d.evidenceDueBy.toISOString(),
    evidence: d.evidence ? { text: d.evidence.text, files: d.evidence.files.map((f) => ({ id: f.id, name: f.name, content_type: f.contentType, size: f.size })) } : null,
    submitted_at: iso(d.submittedAt), closed_at: iso(d.closedAt), is_test: d.environment === "sandbox", created_at: d.createdAt.toISOString(),
  };
}
