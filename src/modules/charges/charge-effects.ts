import type { Queryable } from "../../db/client.js";
import { AppError } from "../../http/errors.js";
import type { CustomerRow } from "../customers/customers.service.js";
import type { CustomerService } from "../customers/customers.service.js";
import type { LedgerService } from "../ledger/ledger.service.js";
import { recordEvent } from "../webhooks/outbox.js";
import type { EventType } from "../webhooks/catalog.js";
import { assertTransition, type ChargeStatus } from "./charge-status.js";
import { toEventData, toLegacyData, type ChargeRow } from "./charges.mapper.js";
import * as repo from "./charges.repo.js";

// What happens, in the caller's transaction, when a charge changes: the guarded status
// update, the ledger posting and the outbox event. Creation, the sandbox actions and refunds
// all go through here, so a paid charge is always in the ledger and always announced.
export interface EffectDeps {
  customers: Pick<CustomerService, "resolveForCharge">;
  ledger: Pick<LedgerService, "postChargePaid">;
}

/** Which event reports a charge in a status (resend-webhook uses the same map). */
export const EVENT_FOR_STATUS: Record<ChargeStatus, EventType> = {
  pending: "charge.pending",
  paid: "charge.paid",
  refunded: "charge.refunded",
  refused: "charge.updated",
  failed: "charge.updated",
  in_analysis: "charge.updated",
  authentication_required: "charge.updated",
};

/**
 * Called in the transaction of every status change of a charge, after its own effects: another
 * module that owns the charge's purpose (a subscription's invoice) reacts atomically with it.
 */
export type ChargeListener = (tx: Queryable, charge: ChargeRow, from: ChargeStatus) => Promise<void>;

export function createChargeEffects(deps: EffectDeps) {
  const listeners: ChargeListener[] = [];

  async function customerOf(tx: Queryable, c: ChargeRow) {
    if (!c.customerId) return null;
    const ctx = { merchantId: c.merchantId, environment: c.environment, actor: { type: "api_key" as const, id: "system" }, requestId: "" };
    return deps.customers.resolveForCharge(tx, ctx, { id: c.customerId });
  }

  /** Records `type` for the charge as it is now (`snapshot` overrides fields of the data). */
  async function announce(
    tx: Queryable, c: ChargeRow, type: EventType, snapshot: Partial<ChargeRow> = {}, known?: CustomerRow | null,
  ): Promise<string> {
    const view = { ...c, ...snapshot };
    const customer = known !== undefined ? known : await customerOf(tx, c);
    const data = type === "charge.updated" ? toLegacyData(view, customer) : toEventData(view, customer);
    return recordEvent(tx, {
      merchantId: c.merchantId, environment: c.environment, type, objectId: c.id, data, postbackUrl: c.postbackUrl,
    });
  }

  /**
   * Moves a charge to `to` if it is still in its current status. Paid charges post to the
   * ledger; refusals and failures go out on the legacy charge.updated channel.
   */
  async function moveTo(
    tx: Queryable, c: ChargeRow, to: ChargeStatus, patch: Partial<ChargeRow> = {}, customer?: CustomerRow | null,
  ): Promise<ChargeRow> {
    const from = c.status as ChargeStatus;
    assertTransition(c.id, from, to);
    const next = await repo.transition(tx, c.id, from, to, patch);
    if (!next) throw new AppError("conflict", `Charge ${c.id} was changed by another request; retry`);
    if (to === "paid") {
      await deps.ledger.postChargePaid(tx, {
        id: next.id, merchantId: next.merchantId, environment: next.environment, currency: next.currency,
        amount: next.amount, spread: next.spread, anticipationFee: next.anticipationFee, net: next.net,
        paymentMethodType: next.paymentMethodType, installments: next.installments, paidAt: next.paidAt ?? new Date(), split: next.split,
      });
      await announce(tx, next, "charge.paid", {}, customer);
    } else if (to === "refused" || to === "failed") {
      await announce(tx, next, "charge.updated", {}, customer);
      // Endpoints never get the legacy charge.updated; a failure is theirs to know too.
      if (to === "failed") await announce(tx, next, "charge.failed", {}, customer);
    } else if (to === "refunded") {
      await announce(tx, next, "charge.refunded", {}, customer);
    }
    for (const listener of listeners) await listener(tx, next, from);
    return next;
  }

  /** Registers a listener of status changes (wired once, when the app is built). */
  function onStatusChange(listener: ChargeListener): void {
    listeners.push(listener);
  }

  return { announce, moveTo, onStatusChange };
}

export type ChargeEffects = ReturnType<typeof createChargeEffects>;
