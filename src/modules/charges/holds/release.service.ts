import { withTx, type Db } from "../../../db/client.js";
import type { RequestCtx } from "../../../core/context.js";
import { invalid, notFound } from "../../../core/errors.js";
import type { LedgerService } from "../../ledger/index.js";
import * as repo from "../charges.repo.js";

// The end of the holds of a charge's split shares (hold: true), e.g. once the order is
// delivered: the held money moves to the recipients' pending balances and settles on the
// charge's dates. The ledger's guarded update makes a second release move nothing, whatever the
// Idempotency-Key; with the same key a retry answers the first answer (release.routes.ts).

export function createReleases(deps: { db: Db; ledger: Pick<LedgerService, "releaseHolds"> }) {
  async function release(ctx: RequestCtx, id: string, submerchantId: string | undefined) {
    const charge = await repo.findCharge(deps.db, ctx, id);
    if (!charge) throw notFound("Charge", id);
    if (submerchantId !== undefined && !charge.split?.some((r) => r.merchantId === submerchantId)) {
      throw invalid(`submerchantId ${submerchantId} has no share in charge ${id}`);
    }
    const released = await withTx(deps.db, (tx) => deps.ledger.releaseHolds(tx, charge, submerchantId));
    return { chargeId: id, released: released.map((r) => ({ merchantId: r.owner, currency: charge.currency, amount: r.amount })) };
  }
  return { release };
}

export type Releases = ReturnType<typeof createReleases>;
