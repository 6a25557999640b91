import { AppError } from "../../../core/errors.js";
import type { ChargeRow } from "../charges.mapper.js";
import type { ProviderSync } from "./provider-sync.js";

// The merchant's end of a payer-paid charge still open (a subscription cancelled while its first
// Pix QR or a period's Pix Automático debit is waiting): the payment is cancelled at its provider
// first, so that it can no longer be paid, then the charge fails with reason "canceled" through
// the guarded transition. When the provider refuses (it was paid a moment before, or a debit is
// too close to its date: the Central Bank cancels a cobr only until the day before its attempt),
// the payment is read back and applied, and the caller sees what it is. A payment that lands on a
// charge feira failed is refunded in full by late-payments.ts.

export const CANCELED = { to: "failed", patch: { reason: "canceled" } } as const;

export function createChargeCancel(deps: { sync: ProviderSync }) {
  const { sync } = deps;
  const unanswered = () => new AppError("unavailable", "The payment processor gave no answer to rely on while cancelling the open payment; retry");

  /**
   * Cancels an open charge: the charge as it is after, and whether the provider may still take
   * the payment (a scheduled debit it no longer cancels). `evenIfScheduled`: such a charge is
   * failed in feira all the same, so that its money is refunded when it lands.
   */
  async function cancelOpen(charge: ChargeRow, opts: { evenIfScheduled?: boolean } = {}): Promise<{ charge: ChargeRow; scheduled: boolean }> {
    const done = async (c: Promise<ChargeRow>, scheduled = false) => ({ charge: await c, scheduled });
    if (charge.status !== "pending") return done(Promise.resolve(charge));
    const processor = sync.processorOf(charge);
    // The sandbox stands in for the payer: nothing is payable once the charge failed.
    if (!processor) return done(sync.apply(charge, CANCELED));
    if (!processor.cancel) throw new AppError("invalid_state", `The processor of ${charge.id} cannot cancel a payment; it stays payable until it expires`);
    // A payment on a seller's account is cancelled there, with the seller's token.
    const on = await sync.sellersFor(charge, processor);
    if (!on) throw unanswered();
    const cancel = await processor.cancel({ chargeId: charge.id, pspRefId: charge.pspRefId ?? "", ...on });
    if (cancel.outcome === "unknown") throw unanswered();
    const code = cancel.providerCode ? { providerCode: cancel.providerCode } : {};
    const canceled = { to: CANCELED.to, patch: { ...CANCELED.patch, ...code } };
    if (cancel.outcome === "canceled") return done(sync.apply(charge, canceled));
    const state = await sync.read(charge, processor);
    if (state.outcome === "unknown") throw unanswered();
    if (state.outcome === "pending") return done(opts.evenIfScheduled ? sync.apply(charge, canceled) : Promise.resolve(charge), true);
    return done(sync.applyState(charge, state, processor));
  }

  return { cancelOpen };
}

export type ChargeCancel = ReturnType<typeof createChargeCancel>;
