import type { Tx } from "../../db/client.js";
import { grossOf, type LedgerService } from "../ledger/index.js";
import type { ChargeEffects } from "./charge-effects.js";
import type { ChargeRow } from "./charges.mapper.js";
import * as repo from "./charges.repo.js";

// What a dispute does to its charge, in the dispute's transaction, under the charge's row lock:
// opening takes its amount from the balance (at most what the charge still has paid), a won one
// gives exactly that back, a lost one ends the charge through the guarded status move
// (charged_back; a lost Pix MED is a refund to the payer: refunded). The ledger postings are
// reversals.ts's, each once per dispute; charges.amount_disputed keeps refunds off held money.

export interface DisputeMoneyDeps {
  effects: Pick<ChargeEffects, "moveTo" | "announce">;
  ledger: Pick<LedgerService, "postDisputeHold" | "postDisputeReturn">;
}

export function createChargeDisputes(deps: DisputeMoneyDeps) {
  const { effects, ledger } = deps;

  const locked = async (tx: Tx, chargeId: string): Promise<ChargeRow> => (await repo.lockedCharge(tx, chargeId))!;

  /** Takes up to `amount` for dispute `disputeId`; answers what it took (0 on a charge no longer paid). */
  async function hold(tx: Tx, chargeId: string, amount: number, disputeId: string): Promise<number> {
    const c = await locked(tx, chargeId);
    if (c.status !== "paid") return 0;
    const held = Math.max(0, Math.min(amount, grossOf(c) - c.amountRefunded - c.amountDisputed));
    if (held === 0) return 0;
    await ledger.postDisputeHold(tx, c, held, disputeId);
    await repo.addDisputed(tx, chargeId, held);
    return held;
  }

  /** A won dispute: what it held goes back to its owners. */
  async function release(tx: Tx, chargeId: string, held: number, disputeId: string): Promise<void> {
    if (held === 0) return;
    const c = await locked(tx, chargeId);
    await ledger.postDisputeReturn(tx, c, disputeId);
    await repo.addDisputed(tx, chargeId, -held);
  }

  /**
   * A lost dispute keeps what it held. A chargeback makes the charge charged_back (the
   * chargeback posting takes only what no dispute holds); a Pix MED returned the money to the
   * payer: what it held counts as refunded, and the charge is refunded once nothing is left.
   */
  async function lose(tx: Tx, chargeId: string, kind: "chargeback" | "pix_med", held: number): Promise<void> {
    const c = await locked(tx, chargeId);
    if (c.status !== "paid") return;
    if (kind === "chargeback") {
      await effects.moveTo(tx, c, "charged_back");
      return;
    }
    const next = await repo.addDisputed(tx, chargeId, -held, held);
    if (next.amountRefunded >= next.amount) await effects.moveTo(tx, next, "refunded");
    else await effects.announce(tx, next, "charge.refunded");
  }

  return { hold, release, lose };
}

export type ChargeDisputes = ReturnType<typeof createChargeDisputes>;
