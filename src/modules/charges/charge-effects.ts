import { charges } from "../../db/schema.js";
import { WriteBatch, insertInto, isUniqueViolation, type Sink, type Statement } from "../../db/batch.js";
import { withTx, type Db, type Queryable, type Tx } from "../../db/client.js";
import { AppError } from "../../core/errors.js";
import type { CustomerRow, CustomerService } from "../customers/index.js";
import { sharesHeldAt, type LedgerService } from "../ledger/index.js";
import { type EventType, recordEvents } from "../webhooks/index.js";
import { assertTransition, type ChargeStatus } from "./charge-status.js";
import { toEventData, toLegacyData, type ChargeRow } from "./charges.mapper.js";
import * as repo from "./charges.repo.js";

// What happens, in the caller's transaction, when a charge changes: the guarded status
// update, the ledger posting and the outbox events. Creation, the sandbox actions and refunds
// all go through `effectsOf`, so a paid charge is always in the ledger and always announced.
export interface EffectDeps {
  customers: Pick<CustomerService, "named">;
  ledger: Pick<LedgerService, "postChargePaid" | "postChargeback">;
}

/** What creating a charge answers: the fields of its first answer (POST /v1/charges' 201). */
export type CreatedCharge = Pick<ChargeRow, "id" | "status" | "paymentDetails" | "reason" | "pageToken">;
// The page token is the column's default, made by this insert: returned, it costs no statement.
const CREATED_COLUMNS = `"id", "status", "payment_details", "reason", "page_token"`;
export const createdOf = (c: CreatedCharge): CreatedCharge =>
  ({ id: c.id, status: c.status, paymentDetails: c.paymentDetails, reason: c.reason, pageToken: c.pageToken });

/** Which event reports a charge in a status (resend-webhook uses the same map). */
export const EVENT_FOR_STATUS: Record<ChargeStatus, EventType> = {
  pending: "charge.pending",
  paid: "charge.paid",
  refunded: "charge.refunded",
  refused: "charge.updated",
  failed: "charge.updated",
  in_analysis: "charge.updated",
  authentication_required: "charge.updated",
  charged_back: "charge.disputed",
};

/** The events a charge's move into `to` sends (refusals and failures: the legacy channel). */
const EVENTS_ON_ENTRY: Partial<Record<ChargeStatus, EventType[]>> = {
  paid: ["charge.paid"],
  refused: ["charge.updated"],
  // Endpoints never get the legacy charge.updated; a failure is theirs to know too.
  failed: ["charge.updated", "charge.failed"],
  refunded: ["charge.refunded"],
  charged_back: ["charge.disputed"],
};

/**
 * Called in the transaction of every status change of a charge, after its own effects: another
 * module that owns the charge's purpose (a subscription's invoice) reacts atomically with it.
 * `concerns` says, from the row alone, whether the listener may have anything to do with a
 * charge: a charge no listener is concerned with is created in one statement, without a
 * transaction around it.
 */
export interface ChargeListener {
  concerns(charge: ChargeRow): boolean;
  onChange(tx: Tx, charge: ChargeRow, from: ChargeStatus): Promise<void>;
}

/** The charge as it was when created: pending, before the processor's answer. */
const AS_CREATED: Partial<ChargeRow> = {
  status: "pending", pspRefId: null, paymentDetails: null, paidAt: null, expiresAt: null, reason: null, isBlocked: false,
};

export function createChargeEffects(deps: EffectDeps) {
  const listeners: ChargeListener[] = [];

  async function customerOf(tx: Queryable, c: ChargeRow) {
    if (!c.customerId) return null;
    return deps.customers.named(tx, c, c.customerId);
  }

  /** Records events of types `types` for the charge as it is now (`snapshot` overrides fields). */
  async function announceAll(
    sink: Sink, c: ChargeRow, types: readonly { type: EventType; snapshot?: Partial<ChargeRow> }[], customer: CustomerRow | null,
  ): Promise<string[]> {
    return recordEvents(sink, types.map(({ type, snapshot }) => {
      const view = { ...c, ...snapshot };
      const data = type === "charge.updated" ? toLegacyData(view, customer) : toEventData(view, customer);
      return { merchantId: c.merchantId, environment: c.environment, type, objectId: c.id, data, postbackUrl: c.postbackUrl };
    }));
  }

  /** Records `type` for the charge as it is now (`snapshot` overrides fields of the data). */
  async function announce(
    sink: Sink, c: ChargeRow, type: EventType, snapshot: Partial<ChargeRow> = {}, known?: CustomerRow | null,
  ): Promise<string> {
    const customer = known !== undefined ? known : await customerOf(sink instanceof WriteBatch ? sink.q : sink, c);
    const [id] = await announceAll(sink, c, [{ type, snapshot }], customer);
    return id!;
  }

  /** The ledger posting and events of a charge that has just entered its status. */
  async function effectsOf(sink: Sink, next: ChargeRow, customer: CustomerRow | null, created: boolean): Promise<void> {
    const to = next.status;
    if (to === "paid") {
      await deps.ledger.postChargePaid(sink, {
        id: next.id, merchantId: next.merchantId, environment: next.environment, currency: next.currency,
        amount: next.amount, totalAmount: next.totalAmount, spread: next.spread, anticipationFee: next.anticipationFee, net: next.net,
        paymentMethodType: next.paymentMethodType, installments: next.installments, paidAt: next.paidAt ?? new Date(), split: next.split,
        atProvider: sharesHeldAt(next),
        paidBreakdown: next.paidBreakdown,
      });
    }
    const types = [
      ...(created ? [{ type: "charge.created" as const, snapshot: { ...AS_CREATED, updatedAt: next.createdAt } }] : []),
      // A new charge still pending announces its payment instructions (Pix code, boleto).
      ...(created && to === "pending" ? ["charge.pending" as const] : EVENTS_ON_ENTRY[to] ?? []).map((type) => ({ type })),
    ];
    if (types.length > 0) await announceAll(sink, next, types, customer);
  }

  async function notify(tx: Tx, next: ChargeRow, from: ChargeStatus): Promise<void> {
    for (const l of listeners) if (l.concerns(next)) await l.onChange(tx, next, from);
  }

  /**
   * Inserts a new charge already in its first status (pending, or the processor's answer), with
   * its charge.created and status events and, when paid, its ledger posting: one statement.
   * Undefined when a charge with this id exists (a concurrent retry of the same Idempotency-Key
   * committed it first): then nothing of this one was written. `alongside` are further inserts
   * that commit in the same statement (the simulator's record of the authorization).
   */
  async function create(
    db: Db, row: typeof charges.$inferInsert & { status: ChargeStatus }, customer: CustomerRow | null, alongside: Statement[] = [],
  ): Promise<CreatedCharge | undefined> {
    if (row.status !== "pending") assertTransition(row.id, "pending", row.status);
    const concerned = listeners.some((l) => l.concerns(row as ChargeRow));
    // One statement: the charge, its events and its ledger posting commit together without a
    // transaction around them; a listener's own writes need one.
    // A listener gets the whole row; the caller only what its answer shows (each column returned
    // is parsed, mapped and collected again on every charge).
    const write = async (q: Queryable, returning: string) => {
      const batch = new WriteBatch(q);
      // The row as inserted: the events and the ledger are made from the same values.
      const planned = { ...rowDefaults, ...row } as ChargeRow;
      await effectsOf(batch, planned, customer, true);
      batch.add(...alongside);
      const [created] = await batch.runReturning(q, charges, insertInto(charges, [row], `returning ${returning}`));
      return created;
    };
    try {
      const created = concerned
        ? await withTx(db, async (tx) => {
          const whole = await write(tx, "*");
          await notify(tx, whole!, "pending");
          return whole;
        })
        : await write(db, CREATED_COLUMNS);
      return created && createdOf(created);
    } catch (err) {
      if (isUniqueViolation(err) && (await repo.chargeExists(db, row.id))) return undefined;
      throw err;
    }
  }

  /**
   * Moves a charge to `to` if it is still in its current status. Paid charges post to the
   * ledger, charged back ones take it back; refusals and failures go out on the legacy charge.updated channel.
   */
  async function moveTo(
    tx: Tx, c: ChargeRow, to: ChargeStatus, patch: Partial<ChargeRow> = {}, customer?: CustomerRow | null,
  ): Promise<ChargeRow> {
    const from = c.status;
    assertTransition(c.id, from, to);
    const next = await repo.transition(tx, c.id, from, to, patch);
    if (!next) throw new AppError("conflict", `Charge ${c.id} was changed by another request; retry`);
    // A chargeback takes back what is still paid, in the transaction of the guarded move.
    if (to === "charged_back") await deps.ledger.postChargeback(tx, next);
    if (EVENTS_ON_ENTRY[to]) await effectsOf(tx, next, customer !== undefined ? customer : await customerOf(tx, next), false);
    await notify(tx, next, from);
    return next;
  }

  /** Registers a listener of status changes (wired once, when the app is built). */
  function onStatusChange(listener: ChargeListener): void {
    listeners.push(listener);
  }

  return { announce, create, moveTo, onStatusChange };
}

/** What the database fills in on a new charge, for the events made before it answers. */
const rowDefaults: Partial<ChargeRow> = {
  reason: null, isBlocked: false, amountRefunded: 0, paymentDetails: null, pspRefId: null, items: null, shippingAddress: null,
  trackingInfo: null, metadata: null, postbackUrl: null, split: null, paidAt: null, expiresAt: null, freightAmount: null,
  freightDetails: null, paymentLinkId: null, subscriptionId: null,
};

export type ChargeEffects = ReturnType<typeof createChargeEffects>;
