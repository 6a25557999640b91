import { iso } from "./fake-pagarme-model.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// Refunds of the Pagar.me v5 fake: `DELETE /charges/{id}` on a paid charge, with an optional
// `amount` in cents. Pagar.me has no refund resource: the charge's `canceled_amount` grows and
// its last transaction says where the cancellation stands (`partial_refunded`, `refunded`, or,
// while the acquirer has not finished, `waiting_cancellation` for a card and `pending_refund`
// for Pix and boleto, then `error_on_voiding` / `error_on_refunding` when it fails).

type Obj = Record<string, unknown>;

/** "pending": a cancellation waits until finishRefund or failRefund (the acquirer's answer). */
export type RefundMode = "immediate" | "pending";

export interface RefundableCharge extends Obj { id: string; status: string; payment_method: string; paid_amount: number; canceled_amount: number }

export interface RefundDeps<C extends RefundableCharge> {
  mode?: RefundMode;
  charge(id: string): C | undefined;
  /** Moves the charge and its last transaction; true when the order's status changed. */
  touch(c: C, status: string, txStatus: string, extra?: Obj): boolean;
  announce(c: C, orderMoved: boolean, chargeEvent: string, orderEvent?: string): void;
  view(c: C): Obj;
  err(status: number, message: string): Reply;
}

export function createPagarmeRefunds<C extends RefundableCharge>(deps: RefundDeps<C>) {
  /** Cancellations of paid charges that did the work (replays not counted), by charge. */
  const made = new Map<string, number>();
  /** The amount of a cancellation accepted but not finished, by charge. */
  const waiting = new Map<string, number>();
  let mode: RefundMode = deps.mode ?? "immediate";

  function complete(c: C, amount: number): void {
    const total = c.canceled_amount + amount;
    if (total === c.paid_amount) {
      const moved = deps.touch(c, "canceled", "refunded", { canceled_amount: total, canceled_at: iso() });
      deps.announce(c, moved, "charge.refunded", "order.canceled");
    } else {
      const moved = deps.touch(c, c.status, "partial_refunded", { canceled_amount: total });
      deps.announce(c, moved, "charge.partial_canceled");
    }
  }

  /** Refunds all that is left of a paid charge, or `amount` cents. */
  function refund(c: C, amount: number | undefined): Reply {
    if (c.status !== "paid" && c.status !== "overpaid" && c.status !== "underpaid") return deps.err(412, `Charge can not be canceled: its status is ${c.status}.`);
    if (waiting.has(c.id)) return deps.err(412, "Charge can not be canceled: a cancellation is still being processed.");
    const remaining = c.paid_amount - c.canceled_amount;
    const cents = amount ?? remaining;
    if (cents > remaining) return deps.err(412, `The amount to cancel (${cents}) is greater than the refundable amount (${remaining}).`);
    made.set(c.id, (made.get(c.id) ?? 0) + 1);
    if (mode === "immediate") complete(c, cents);
    else {
      waiting.set(c.id, cents);
      deps.touch(c, c.status, c.payment_method === "credit_card" ? "waiting_cancellation" : "pending_refund");
      deps.announce(c, false, "charge.updated");
    }
    return { status: 200, body: deps.view(c) };
  }

  /** The acquirer's word on the cancellation waiting on a charge. */
  function finish(chargeId: string, ok: boolean): Obj | string {
    const c = deps.charge(chargeId);
    const cents = waiting.get(chargeId);
    if (!c || cents === undefined) return "no cancellation is waiting on this charge";
    waiting.delete(chargeId);
    if (ok) complete(c, cents);
    else {
      deps.touch(c, c.status, c.payment_method === "credit_card" ? "error_on_voiding" : "error_on_refunding");
      deps.announce(c, false, "charge.updated");
    }
    return deps.view(c);
  }

  /** Control routes: POST /__fake/refund-mode {mode}, POST /__fake/refunds/{charge id}/finish|fail. */
  function control(req: ApiRequest): Reply | undefined {
    if (req.method === "POST" && req.path === "/__fake/refund-mode") {
      const next = (req.json as { mode?: RefundMode } | undefined)?.mode;
      if (next !== "immediate" && next !== "pending") return { status: 400, body: { message: "mode must be immediate or pending" } };
      mode = next;
      return { status: 200, body: { refundMode: mode } };
    }
    const m = /^\/__fake\/refunds\/([\w-]+)\/(finish|fail)$/.exec(req.path);
    if (req.method !== "POST" || !m) return undefined;
    const out = finish(m[1]!, m[2] === "finish");
    return typeof out === "string" ? { status: 409, body: { message: out } } : { status: 200, body: out };
  }

  return {
    refund, control,
    /** What a test reads and drives. */
    api: {
      refundsMade: (chargeId: string) => made.get(chargeId) ?? 0,
      setRefundMode: (next: RefundMode) => { mode = next; },
      finishRefund: (chargeId: string) => finish(chargeId, true),
      failRefund: (chargeId: string) => finish(chargeId, false),
    },
  };
}
