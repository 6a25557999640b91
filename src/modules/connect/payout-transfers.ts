import { withTx, type Db, type Tx } from "../../db/client.js";
import { AppError, invalid } from "../../core/errors.js";
import { normalizeDocument, formatDocument } from "../../lib/documents.js";
import { faultPoint } from "../../lib/faults.js";
import type { TransferState } from "../../processors/processor.js";
import type { PayoutSender, ProcessorRegistry } from "../../processors/registry.js";
import type { Task } from "../../jobs/runner.js";
import * as connectRepo from "./connect.repo.js";
import * as repo from "./payouts.repo.js";

// Payouts paid through a processor's Pix-out (the simulator in the sandbox, PAYOUT_PROVIDER in
// production), exactly once. The decision to send is committed first, with the transfer's id
// derived from the payout (Efí's idEnvio): `transfer_status = 'sending'`. Each send is then an
// attempt claimed in its own committed step, with a lease at least as long as the call's timeout:
// while a lease runs, the call may still be making the transfer (a request that lands late), so
// nothing sends again and nothing judges a transfer by its absence. A transfer's state read back
// by its id (Efí's REALIZADO, NAO_REALIZADO) is the provider's own record and decides the payout
// at any time; "not found" decides only once every call that could have made it has ended: then
// the send is made again under the same id (which the provider never makes twice), or, when the
// last call was refused (a 4xx), the payout is rejected. A refusal of a re-send waits one more
// lease first: the earlier call may still land. Answers that prove nothing (timeouts, 5xx, a lost
// answer, credentials refused) leave the lease to run out. A provider that asks for one send at a
// time (oneAtATime) gets the next transfer only once the one on its way has ended; approvals
// meanwhile wait, `sending`, in the worker's queue. A second approval answers the payout's state.

export interface TransferDeps {
  db: Db;
  processors: Pick<ProcessorRegistry, "payouts">;
  /** The guarded decision (payouts.service.ts decideIn): the status change, its ledger move and event. */
  decideIn(tx: Tx, id: string, to: "approved" | "rejected", patch: repo.DecisionPatch): Promise<repo.PayoutRow | undefined>;
  /** Money the receiving bank sent back of an approved transfer (payouts.service.ts returnIn), guarded. */
  returnIn(tx: Tx, p: repo.PayoutRow, returnedMinor: number): Promise<repo.PayoutRow | undefined>;
  /** How long a send's call may still make the transfer: at least the processor's call timeout. */
  sendLeaseMs: number;
  now: () => Date;
}

const READ_BACK_BATCH = 20;

/** The transfer's id at the provider: the payout id's letters and digits (Efí's idEnvio takes 1 to 35 of them). */
export const transferIdOf = (payoutId: string) => payoutId.replace(/[^A-Za-z0-9]/g, "");

export function createPayoutTransfers(deps: TransferDeps) {
  const { db, now } = deps;
  const later = (ms: number) => new Date(now().getTime() + ms);

  const notPending = (p: repo.PayoutRow) =>
    new AppError("invalid_state", `Payout request ${p.id} is ${p.status}; only pending requests can be decided`);

  /** The processor that sends this environment's payouts, or the 422 telling the operator to transfer itself. */
  function senderFor(p: repo.PayoutRow): PayoutSender {
    const sender = deps.processors.payouts(p.environment);
    if (sender) return sender;
    throw invalid(
      `endToEndId is required: no ${p.environment} processor sends Pix payouts (PAYOUT_PROVIDER is unset). Transfer ${p.netAmount} cents by Pix to CNPJ ` +
      `${formatDocument("cnpj", p.pixKey)} at the operator's bank, then approve with the transfer's end-to-end id`,
    );
  }

  /** Refused before any call: money goes only to an active submerchant's valid CNPJ. */
  async function checkPayee(p: repo.PayoutRow): Promise<void> {
    const sm = await connectRepo.findSubmerchantForAdmin(db, p.merchantId);
    if (!sm || sm.status !== "active") {
      throw new AppError("submerchant_not_active", `Submerchant ${p.merchantId} is not active: its payout cannot be sent (reject it, or approve with your own transfer's endToEndId)`);
    }
    if (!normalizeDocument("cnpj", p.pixKey).ok) throw invalid(`Submerchant ${p.merchantId}'s CNPJ ${p.pixKey} is not valid: its payout cannot be sent by Pix`);
  }

  /** The columns that record the decision to send, in the transaction that makes it. */
  const sendingFields = (payoutId: string, processor: string): repo.TransferFields => ({
    transferStatus: "sending", transferProcessor: processor, transferId: transferIdOf(payoutId), transferStartedAt: now(),
  });

  /**
   * Approval without an end-to-end id: records `sending`, then sends (or queues it behind the
   * transfer on its way). A payout already being sent answers its state and sends nothing.
   */
  async function approve(p: repo.PayoutRow): Promise<repo.PayoutRow> {
    if (p.transferStatus === "sending") return p;
    if (p.status !== "pending") throw notPending(p);
    const sender = senderFor(p);
    await checkPayee(p);
    const marked = await withTx(db, (tx) => repo.markSending(tx, p.id, sendingFields(p.id, sender.processor)));
    if (!marked) {
      const current = (await repo.findPayoutById(db, p.id))!;
      if (current.transferStatus === "sending") return current;
      throw current.status === "pending" ? new AppError("conflict", `Payout request ${p.id} was decided by another request`) : notPending(current);
    }
    return send(marked, sender);
  }

  /**
   * One send of a payout recorded as `sending`: claimed first (one at a time per account when the
   * processor asks for it, and never while an earlier call's lease runs), then made, then applied.
   */
  async function send(p: repo.PayoutRow, sender: PayoutSender): Promise<repo.PayoutRow> {
    const claimed = await withTx(db, async (tx) => {
      if (sender.oneAtATime) {
        // Serializes the claims of this processor's sends across processes: one on its way at a time.
        await repo.lockSends(tx, sender.processor);
        if (await repo.otherOnItsWay(tx, sender.processor, p.id)) return undefined;
      }
      return repo.claimAttempt(tx, p.id, now(), later(deps.sendLeaseMs));
    });
    if (!claimed) return (await repo.findPayoutById(db, p.id))!;
    faultPoint("payout.after-sending");
    const state = await sender.send({
      payoutId: p.id, transferId: p.transferId!, amountMinor: p.netAmount, currency: p.currency, pixKey: p.pixKey, pixKeyType: "cnpj", now: now(),
    });
    faultPoint("payout.after-send");
    return afterSend(claimed, sender, state);
  }

  /** What a send's answer settles: the transfer's state decides; a refusal is judged by a read-back; silence waits for the lease. */
  async function afterSend(p: repo.PayoutRow, sender: PayoutSender, state: TransferState): Promise<repo.PayoutRow> {
    const attempt = p.transferAttempts;
    if (state.outcome === "refused") {
      // The first send's refusal ended the only call: judged now. A re-send's waits one more lease.
      const judgeNow = attempt <= 1;
      await withTx(db, (tx) => repo.endAttempt(tx, p.id, attempt, { leaseUntil: judgeNow ? now() : later(deps.sendLeaseMs), refusal: state.reason }));
      const current = (await repo.findPayoutById(db, p.id))!;
      return judgeNow ? readBack(current, sender) : current;
    }
    if (state.outcome === "not_found" || state.outcome === "unknown") return p;
    // The provider has the transfer: no further call can make another, so its lease ends here.
    await withTx(db, (tx) => repo.endAttempt(tx, p.id, attempt, { leaseUntil: now() }));
    return apply(p, state);
  }

  /** The transfer's end decides the payout (guarded: once); money sent back of it is returned once; anything else leaves it. */
  async function apply(p: repo.PayoutRow, state: TransferState): Promise<repo.PayoutRow> {
    if (state.outcome !== "sent" && state.outcome !== "failed") return p;
    const decided = await withTx(db, async (tx) => {
      if (state.outcome === "failed") {
        return deps.decideIn(tx, p.id, "rejected", { reason: `Pix transfer failed: ${state.reason}`.slice(0, 500), transferStatus: "failed" });
      }
      const approved = p.status === "pending" ? await deps.decideIn(tx, p.id, "approved", { endToEndId: state.endToEndId, transferStatus: "sent" }) : p;
      const returned = Math.min(state.returnedMinor ?? 0, p.netAmount);
      return approved && returned > approved.returnedAmount ? ((await deps.returnIn(tx, approved, returned)) ?? approved) : approved;
    });
    return decided ?? (await repo.findPayoutById(db, p.id))!;
  }

  /**
   * Reads a transfer back where it was sent. Its state decides; "not found" once no lease runs
   * sends it (again) under the same id, or rejects it when the last send was refused.
   */
  async function readBack(p: repo.PayoutRow, sender: PayoutSender): Promise<repo.PayoutRow> {
    const state = await sender.read({ transferId: p.transferId!, now: now() });
    if (state.outcome !== "not_found") return apply(p, state);
    const current = (await repo.findPayoutById(db, p.id))!;
    if (current.transferStatus !== "sending" || (current.transferLeaseUntil && current.transferLeaseUntil > now())) return current;
    if (!current.transferRefusal) return send(current, sender);
    return (await withTx(db, (tx) => deps.decideIn(tx, p.id, "rejected", { reason: `Pix transfer failed: ${current.transferRefusal}`.slice(0, 500), transferStatus: "failed" })))
      ?? (await repo.findPayoutById(db, p.id))!;
  }

  /** The processor this payout's transfer went through, when this process sends with it (PAYOUT_PROVIDER may have changed). */
  function senderOf(p: repo.PayoutRow): PayoutSender | undefined {
    const sender = deps.processors.payouts(p.environment);
    return sender && sender.processor === p.transferProcessor ? sender : undefined;
  }

  /**
   * The worker's round over transfers still `sending` whose lease is over: lost answers, crashes,
   * missed notices, and approvals queued behind the transfer on its way. Answers how many were decided.
   */
  async function reconcile(): Promise<number> {
    let decided = 0;
    for (const p of await repo.sendingTransfers(db, now(), READ_BACK_BATCH)) {
      const sender = senderOf(p);
      if (!sender) continue;
      // Never sent yet (queued, or a crash before its first claim): nothing to read back.
      const after = p.transferAttempts === 0 ? await send(p, sender) : await readBack(p, sender);
      if (after.status !== "pending") decided++;
    }
    return decided;
  }

  /**
   * A processor's notice names transfers (by their id, or their end-to-end id): each one still
   * `sending` is read back, and so is each one paid, for money its receiving bank sent back.
   */
  async function notice(processor: string, refs: readonly string[]): Promise<void> {
    for (const ref of refs) {
      const p = (await repo.findByTransfer(db, processor, ref)) ?? (await repo.findByTransferEndToEnd(db, processor, ref));
      const sender = p && p.transferStatus !== "failed" ? senderOf(p) : undefined;
      if (p?.transferStatus === "sending" && sender) await readBack(p, sender);
      else if (p && sender && (p.status === "approved" || p.status === "returned")) await apply(p, await sender.read({ transferId: p.transferId!, now: now() }));
    }
  }

  const task = (intervalMs: number): Task => ({ name: "payouts.read-back", intervalMs, run: reconcile });

  return { approve, send, sendingFields, notice, reconcile, task, senderFor };
}

export type PayoutTransfers = ReturnType<typeof createPayoutTransfers>;
