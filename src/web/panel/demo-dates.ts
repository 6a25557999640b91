import { sql } from "drizzle-orm";
import { withTx, type Db } from "../../db/client.js";
import { inScopeSql, type Scope } from "../../db/scope.js";

// The demo history's dates. The services make every charge now; a month of history is made by
// moving each demo charge, with its events and refunds, whole days back: the time of day stays
// the one it was made at, so every date is in the past, and the same seed gives the same days.

/**
 * Moves a charge of the scope (the demo merchant's sandbox) `daysAgo` whole days into the past, with its events and refunds. Its id
 * keeps the time it was made at, so the charge is marked created_apart; lists order and filter
 * by created_at (charges.repo.ts), so it shows on its day.
 */
export async function backdateCharge(db: Db, scope: Scope, chargeId: string, daysAgo: number): Promise<void> {
  if (!Number.isInteger(daysAgo) || daysAgo <= 0) return;
  const back = sql`make_interval(days => ${daysAgo})`;
  await withTx(db, async (tx) => {
    await tx.execute(sql`update charges set created_at = created_at - ${back}, updated_at = updated_at - ${back},
      paid_at = paid_at - ${back}, created_apart = true where id = ${chargeId} and ${inScopeSql(scope)}`);
    await tx.execute(sql`update events set created_at = created_at - ${back} where object_id = ${chargeId} and ${inScopeSql(scope)}`);
    await tx.execute(sql`update refunds set created_at = created_at - ${back} where charge_id = ${chargeId} and ${inScopeSql(scope)}`);
  });
}
