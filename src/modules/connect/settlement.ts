import type { Queryable } from "../../db/client.js";
import { connectSettings } from "../../db/schema.js";
import { inScope, type Environment, type Scope } from "../../db/scope.js";

// Settlement, a master's setting per environment (docs/guarantees.md, "Money in provider settlement"): `platform` (the default, how
// feira always worked) lands every sale in the operator's processor account and pays sellers by
// payout; `provider` has the processor pay each seller's share into the seller's own account
// there. A charge records the settlement it was created under (charges.settlement), so a change
// never moves money already booked: it applies to charges created after it.

export const SETTLEMENTS = ["platform", "provider"] as const;
export type Settlement = (typeof SETTLEMENTS)[number];

/** The settlement of a root merchant (a master, or a merchant without Connect) in an environment. */
export async function connectSettlement(q: Queryable, rootMerchantId: string, environment: Environment): Promise<Settlement> {
  const [row] = await q.select({ settlement: connectSettings.settlement }).from(connectSettings)
    .where(inScope(connectSettings, { merchantId: rootMerchantId, environment }));
  return row?.settlement ?? "platform";
}

/** Sets the settlement of a root merchant's scope, keeping its default split (none when it had no row). */
export async function saveSettlement(q: Queryable, scope: Scope, settlement: Settlement): Promise<void> {
  await q.insert(connectSettings).values({ merchantId: scope.merchantId, environment: scope.environment, settlement })
    .onConflictDoUpdate({ target: [connectSettings.merchantId, connectSettings.environment], set: { settlement, updatedAt: new Date() } });
}

