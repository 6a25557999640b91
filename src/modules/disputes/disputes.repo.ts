import { and, asc, count, desc, eq, gt, inArray, isNull, sql } from "drizzle-orm";
import { queryRows, type Queryable } from "../../db/client.js";
import { inScope, inScopeSql, type Scope } from "../../db/scope.js";
import { disputeFiles, disputes } from "../../db/schema.js";
import { allOf } from "../../db/pagination.js";
import type { DisputeStatus } from "./dispute-status.js";
import type { DisputeRow } from "./disputes.mapper.js";

const scope = (s: Scope) => inScope(disputes, s);

/** Inserts a dispute; undefined when the provider's dispute (processor, ref) is already one. */
export async function insertDispute(tx: Queryable, row: typeof disputes.$inferInsert): Promise<DisputeRow | undefined> {
  const [inserted] = await tx.insert(disputes).values(row).onConflictDoNothing().returning();
  return inserted;
}

export async function findDispute(q: Queryable, s: Scope, id: string): Promise<DisputeRow | undefined> {
  const [row] = await q.select().from(disputes).where(and(scope(s), eq(disputes.id, id)));
  return row;
}

export async function findByRef(q: Queryable, processor: string, disputeRef: string): Promise<DisputeRow | undefined> {
  const [row] = await q.select().from(disputes).where(and(eq(disputes.processor, processor), eq(disputes.disputeRef, disputeRef)));
  return row;
}

/** Applies a move only if the dispute is still in `from`; undefined when another change won. */
export async function moveDispute(
  tx: Queryable, id: string, from: DisputeStatus, to: DisputeStatus, patch: Partial<typeof disputes.$inferInsert> = {},
): Promise<DisputeRow | undefined> {
  const [row] = await tx.update(disputes).set({ ...patch, status: to, updatedAt: new Date() })
    .where(and(eq(disputes.id, id), eq(disputes.status, from))).returning();
  return row;
}

/** Records evidence on a dispute that has none yet, whatever its status; undefined when it has. */
export async function recordEvidence(
  tx: Queryable, id: string, patch: Pick<typeof disputes.$inferInsert, "evidence" | "submittedAt">,
): Promise<DisputeRow | undefined> {
  const [row] = await tx.update(disputes).set({ ...patch, updatedAt: new Date() })
    .where(and(eq(disputes.id, id), isNull(disputes.submittedAt))).returning();
  return row;
}

export interface DisputeFilter {
  status?: DisputeStatus; chargeId?: string; kind?: string; page: number; limit: number;
  /** The panel's order: those needing a response first, nearest deadline first, then those under review, then the rest newest first. */
  openFirst?: boolean;
}

// Open first, in the order a merchant must act on them; the id breaks ties, so pages never overlap.
const OPEN_FIRST = [
  sql`case ${disputes.status} when 'needs_response' then 0 when 'under_review' then 1 else 2 end`,
  sql`case when ${disputes.status} = 'needs_response' then ${disputes.evidenceDueBy} end asc`,
];

/** One page of the scope's disputes, newest first (or open first), and how many match in all. */
export async function listDisputes(q: Queryable, s: Scope, f: DisputeFilter) {
  const where = allOf([
    scope(s),
    f.status ? eq(disputes.status, f.status) : undefined,
    f.chargeId ? eq(disputes.chargeId, f.chargeId) : undefined,
    f.kind ? eq(disputes.kind, f.kind as DisputeRow["kind"]) : undefined,
  ]);
  const [rows, [total]] = await Promise.all([
    q.select().from(disputes).where(where).orderBy(...(f.openFirst ? OPEN_FIRST : []), desc(disputes.id)).limit(f.limit).offset((f.page - 1) * f.limit),
    q.select({ n: count() }).from(disputes).where(where),
  ]);
  return { rows, total: Number(total?.n ?? 0) };
}

/** A charge's disputes, newest first (a charge has a handful at most). */
export async function disputesOfCharge(q: Queryable, s: Scope, chargeId: string): Promise<DisputeRow[]> {
  return q.select().from(disputes).where(and(scope(s), eq(disputes.chargeId, chargeId))).orderBy(desc(disputes.id)).limit(100);
}

/** Whether the charge has a dispute still open (needs_response or under_review). */
export async function hasOpenDispute(q: Queryable, chargeId: string): Promise<boolean> {
  const [row] = await q.select({ id: disputes.id }).from(disputes)
    .where(and(eq(disputes.chargeId, chargeId), sql`${disputes.status} in ('needs_response', 'under_review')`)).limit(1);
  return Boolean(row);
}

/**
 * Disputes still waiting for evidence past their deadline: by real time in production, by the
 * merchant's test clock in sandbox (sandbox_clocks, which only runs ahead). Read without locks:
 * the guarded move decides a race between workers, a notice and the merchant's request.
 */
export async function overdueDisputes(q: Queryable, now: Date, limit: number, only?: Scope): Promise<DisputeRow[]> {
  const ids = await queryRows<{ id: string }>(q, sql`
    select d.id from disputes d
    left join sandbox_clocks c on c.merchant_id = d.merchant_id and d.environment = 'sandbox'
    where d.status = 'needs_response' ${only ? sql`and ${inScopeSql(only, "merchant_id", "d")}` : sql``}
      and d.evidence_due_by <= ${now.toISOString()}::timestamptz + coalesce(c.offset_ms, 0) * interval '1 millisecond'
    order by d.evidence_due_by limit ${limit}`);
  if (ids.length === 0) return [];
  return q.select().from(disputes).where(sql`${disputes.id} in (${sql.join(ids.map((r) => sql`${r.id}`), sql`, `)})`);
}

export async function insertFiles(tx: Queryable, rows: (typeof disputeFiles.$inferInsert)[]): Promise<void> {
  if (rows.length > 0) await tx.insert(disputeFiles).values(rows);
}

/**
 * Open live disputes of these processors, by id after `after`: what the reconciliation reads
 * back at their provider (a decision whose notice was lost).
 */
export async function openProviderDisputes(q: Queryable, processors: readonly string[], limit: number, after?: string) {
  if (processors.length === 0) return [];
  return q.select({ id: disputes.id, merchantId: disputes.merchantId, chargeId: disputes.chargeId, processor: disputes.processor, disputeRef: disputes.disputeRef }).from(disputes).where(and(
    eq(disputes.environment, "production"), inArray(disputes.processor, [...processors]),
    sql`${disputes.status} in ('needs_response', 'under_review')`, after ? gt(disputes.id, after) : undefined,
  )).orderBy(asc(disputes.id)).limit(limit);
}
