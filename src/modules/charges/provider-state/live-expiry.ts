import type { Db } from "../../../db/client.js";
import type { LookupResult } from "../../../processors/processor.js";
import { EXPIRY } from "../charge-status.js";
import type { ChargeRow } from "../charges.mapper.js";
import type { ProviderSync } from "./provider-sync.js";
import { expiredLiveCharges, markProviderChecked } from "./provider-sync.repo.js";

// The expiry of a live Pix or boleto past its expiresAt. feira never fails one on its own
// clock alone: the provider is asked first, and the payment is cancelled there so that it can no
// longer be paid.
// - paid (or any other decision) at the provider: that is applied instead (a payment that landed
//   before the expiry is a payment);
// - still pending: cancelled at the provider (idempotency key from the charge id), then the
//   charge fails with reason "expired" as in the sandbox;
// - the cancel is refused (not_cancelable: the payer paid just before it arrived, or the
//   provider expired it itself): read again and applied. With Pagar.me the cancel of a charge
//   paid a moment before is a full refund: the provider says refunded, the charge expires and the
//   payment is reported as a late payment refunded (late-payments.ts);
// - no answer (lookup or cancel unknown): nothing changes; the next round asks again.
// A payment that arrives after all this is refunded automatically (late-payments.ts).
// A charge a round could not decide (no answer it could read, a processor no longer configured,
// a payment the provider still holds open) is stamped and read again only after EXPIRY_RETRY_MS,
// least recently tried first: such charges, however many, never keep the others from expiring.

/** How many expired live charges one round reads (each is one to three provider calls). */
const EXPIRY_BATCH = 50;
/** How long a charge a round could not decide waits before it is read again. */
const EXPIRY_RETRY_MS = 5 * 60_000;

export function createLiveExpiry(deps: { db: Db; sync: ProviderSync }) {
  const { sync } = deps;

  /** Fails the charge as expired (the provider's code kept), then settles money it says it took. */
  async function expire(c: ChargeRow, state: LookupResult): Promise<boolean> {
    const code = "providerCode" in state && state.providerCode ? { providerCode: state.providerCode } : {};
    const pspRefId = "pspRefId" in state && state.pspRefId && !c.pspRefId ? { pspRefId: state.pspRefId } : {};
    const after = await sync.apply(c, { to: EXPIRY.to, patch: { ...EXPIRY.patch, ...pspRefId, ...code } });
    // Another reader moved it first, to something else (paid after all): moved, not expired.
    if (after.status !== EXPIRY.to) return after.status !== c.status;
    const processor = sync.processorOf(after);
    if (processor) await sync.late.settle(after, state, processor);
    return true;
  }

  /** One expired live charge: true when it moved (expired, or paid after all). */
  async function expireOne(c: ChargeRow): Promise<boolean> {
    const processor = sync.processorOf(c);
    if (!processor) return false;
    // On the seller's account when the payment is the seller's (provider-sync's read).
    const read = () => sync.read(c, processor);
    let state = await read();
    // A processor without cancel leaves the payment to expire at the provider; it is read again.
    // So does a Pix Automático debit: the Central Bank refuses to cancel a recurring charge on or
    // after its first attempt's date, which its expiry follows; it ends by itself when its retries
    // are spent (docs/processors.md, "Efí: Pix Automático").
    if (state.outcome === "pending" && processor.cancel && c.paymentMethodType !== "pix_automatico") {
      const on = await sync.sellersFor(c, processor);
      if (!on) return false;
      const cancel = await processor.cancel({ chargeId: c.id, pspRefId: c.pspRefId ?? state.pspRefId, ...on });
      if (cancel.outcome === "unknown") return false;
      if (cancel.outcome === "canceled") return expire(c, { outcome: "failed", reason: "expired", pspRefId: state.pspRefId, ...(cancel.providerCode ? { providerCode: cancel.providerCode } : {}) });
      state = await read();
    }
    switch (state.outcome) {
      case "unknown":
      case "pending":
        return false;
      // Nothing was ever made under this charge, or the provider expired or cancelled it itself.
      case "not_found":
        return expire(c, state);
      case "failed":
        if (state.reason === "expired" || state.reason === "canceled") return expire(c, state);
        break;
      // The payment came and went back at the provider (Pagar.me's cancel of a charge paid a
      // moment before refunds it): expired, and reported as a late payment refunded. A
      // chargeback is the merchant's: paid, then charged back (provider-sync.ts).
      case "refunded":
        return expire(c, state);
      default:
        break;
    }
    const after = await sync.applyState(c, state, processor);
    return after.status !== c.status;
  }

  /** One round of the live expiry janitor; returns how many charges moved. */
  async function expireLive(): Promise<number> {
    let n = 0;
    for (const c of await expiredLiveCharges(deps.db, EXPIRY_BATCH, EXPIRY_RETRY_MS)) {
      if (await expireOne(c)) n++;
      else await markProviderChecked(deps.db, c.id, new Date());
    }
    return n;
  }

  return { expireLive, expireOne };
}
