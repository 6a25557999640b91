import { and, eq, inArray, isNull, lte, sql } from "drizzle-orm";
import { withTx, type Db, type Queryable } from "../../db/client.js";
import { settlements, submerchants } from "../../db/schema.js";
import type { Environment } from "../../core/context.js";
import { allOf } from "../../db/pagination.js";
import * as repo from "./ledger.repo.js";
import type { SplitRule } from "./split.js";

// Holds of split shares in platform settlement (docs/guarantees.md, "Connect: splits and
// payouts"): a rule with hold: true keeps its share held until POST /v1/charges/{id}/release
// or a refund ("release" rows); a recipient's holdDays keeps it held until paidAt + days
// ("days" rows, held_until), after which the holds task, or the sandbox clock's advance past it,
// makes the rows ordinary: the money moves from held to pending and settles on its dates, never
// earlier than the hold's end. A refund or dispute takes held rows first (reversals.ts takeBack).

const DAY_MS = 24 * 60 * 60 * 1000;
const BATCH = 500;

export type ShareHold = { kind: "release" } | { kind: "days"; until: Date } | null;

/** How a share of a rule is held: until released, until a day, or not at all (hold: true wins). */
export function holdOf(rule: SplitRule | undefined, paidAt: Date): ShareHold {
  if (rule?.hold === true) return { kind: "release" };
  if (rule?.holdDays && rule.holdDays > 0) return { kind: "days", until: new Date(paidAt.getTime() + rule.holdDays * DAY_MS) };
  return null;
}

/** A settlement row's hold columns and due time for a share held as `hold`. */
export function settlementHold(hold: ShareHold, dueAt: Date): { dueAt: Date; hold?: "release" | "days"; heldUntil?: Date } {
  if (!hold) return { dueAt };
  if (hold.kind === "release") return { dueAt, hold: "release" };
  return { dueAt: dueAt < hold.until ? hold.until : dueAt, hold: "days", heldUntil: hold.until };
}

/**
 * Ends the "days" holds that are over at `now`: all (the worker, on real time), or one master's
 * submerchants' in the sandbox (its test clock's advance). Each batch is one guarded UPDATE of
 * rows claimed with SKIP LOCKED, so two workers, or a worker and an advance, move a row once.
 * Answers how many rows it released.
 */
export async function releaseDueHolds(db: Db, f: { now: Date; environment?: Environment; master?: string }): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await withTx(db, async (tx) => {
      const rows = await releaseDays(tx, f);
      const moved = new Map<string, { chargeId: string; owner: string; environment: Environment; currency: string; amount: number }>();
      for (const r of rows) {
        const key = `${r.chargeId}\u0000${r.owner}\u0000${r.currency}`;
        const m = moved.get(key) ?? { chargeId: r.chargeId, owner: r.owner, environment: r.environment, currency: r.currency, amount: 0 };
        m.amount += r.amount;
        moved.set(key, m);
      }
      for (const m of moved.values()) {
        if (m.amount <= 0) continue;
        await repo.postTransaction(tx, {
          environment: m.environment, currency: m.currency, type: "release", sourceId: m.chargeId, description: `hold days of ${m.chargeId} over`,
          entries: [
            { owner: m.owner, account: "held", amount: -m.amount },
            { owner: m.owner, account: "pending", amount: m.amount },
          ],
        });
      }
      return rows.length;
    });
    total += n;
    if (n < BATCH) return total;
  }
}

/** The guarded UPDATE: "days" rows over at `now`, unsettled, made ordinary; answers them. */
async function releaseDays(tx: Queryable, f: { now: Date; environment?: Environment; master?: string }) {
  // Reviewed (scope-rule): the worker's pass is for every merchant by design; the sandbox
  // clock's pass is bounded to one master's submerchants.
  const due = tx.select({ id: settlements.id }).from(settlements).where(allOf([
    eq(settlements.hold, "days"), lte(settlements.heldUntil, f.now), isNull(settlements.settledAt),
    f.environment ? eq(settlements.environment, f.environment) : undefined,
    f.master ? inArray(settlements.owner, tx.select({ id: submerchants.id }).from(submerchants).where(eq(submerchants.parentId, f.master))) : undefined,
  ])).limit(BATCH).for("update", { skipLocked: true });
  return tx.update(settlements).set({ hold: null })
    .where(and(inArray(settlements.id, due), eq(settlements.hold, "days"), sql`${settlements.settledAt} is null`))
    .returning();
}
