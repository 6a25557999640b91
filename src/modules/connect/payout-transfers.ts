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
// derived from the payout (Efí's idEnvio): `transfer_status = 'sending'`. Only then is the
// processor called. Whatever happens next (an answer, a timeout, a 5xx, a lost answer, a kill -9
// before the outcome is committed) the payout stays pending and `sending` until the transfer is
// read back by that id: by the approval's own answer, a provider's notice, or the worker's
// read-back below. A read that finds nothing (the send never arrived) sends again under the same
// id, which the provider refuses to make twice (Efí's 409, read back by the adapter). A second
// approval meanwhile answers the payout's state and sends nothing.

export interface TransferDeps {
  db: Db;
  processors: Pick<ProcessorRegistry, "payouts">;
  /** The guarded decision (payouts.service.ts decideIn): the status change, its ledger move and event. */
  decideIn(tx: Tx, id: string, to: "approved" | "rejected", patch: repo.DecisionPatch): Promise<repo.PayoutRow | undefined>;
  now: () => Date;
}

/** A read-back waits this long after the send started: the approval's own call is answered first. */
const READ_BACK_AFTER_MS = 1_000;
const READ_BACK_BATCH = 20;

/** The transfer's id at the provider: the payout id's letters and digits (Efí's idEnvio takes 1 to 35 of them). */
export const transferIdOf = (payoutId: string) => payoutId.replace(/[^A-Za-z0-9]/g, "");

export function createPayoutTransfers(deps: TransferDeps) {
  const { db, now } = deps;

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
   * Approval without an end-to-end id: records `sending`, then sends. A payout already being
   * sent answers its state and sends nothing.
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

  /** Sends a payout recorded as `sending` (its approval, or PAYOUT_AUTO_APPROVE at its creation), then applies the answer. */
  async function send(p: repo.PayoutRow, sender: PayoutSender): Promise<repo.PayoutRow> {
    faultPoint("payout.after-sending");
    const state = await sender.send({
      payoutId: p.id, transferId: p.transferId!, amountMinor: p.netAmount, currency: p.currency, pixKey: p.pixKey, pixKeyType: "cnpj", now: now(),
    });
    faultPoint("payout.after-send");
    return apply(p, state);
  }

  /** The transfer's end decides the payout (guarded: once); anything else leaves it `sending`. */
  async function apply(p: repo.PayoutRow, state: TransferState): Promise<repo.PayoutRow> {
    if (state.outcome !== "sent" && state.outcome !== "failed") return p;
    const decided = await withTx(db, (tx) => (state.outcome === "sent"
      ? deps.decideIn(tx, p.id, "approved", { endToEndId: state.endToEndId, transferStatus: "sent" })
      : deps.decideIn(tx, p.id, "rejected", { reason: `Pix transfer failed: ${state.reason}`.slice(0, 500), transferStatus: "failed" })));
    return decided ?? (await repo.findPayoutById(db, p.id))!;
  }

  /**
   * Reads a `sending` transfer back where it was sent; one the provider never received is sent
   * again under the same id. Answers whether the payout was decided.
   */
  async function readBack(p: repo.PayoutRow): Promise<boolean> {
    const sender = deps.processors.payouts(p.environment);
    // Sent by a processor this process does not send with (PAYOUT_PROVIDER changed): left for one that does.
    if (!sender || sender.processor !== p.transferProcessor) return false;
    const state = await sender.read({ transferId: p.transferId!, now: now() });
    const after = state.outcome === "not_found" ? await send(p, sender) : await apply(p, state);
    return after.status !== "pending";
  }

  /** The worker's read-back of transfers still `sending`: lost answers, crashes, missed notices. */
  async function reconcile(): Promise<number> {
    let decided = 0;
    for (const p of await repo.sendingTransfers(db, new Date(now().getTime() - READ_BACK_AFTER_MS), READ_BACK_BATCH)) {
      if (await readBack(p)) decided++;
    }
    return decided;
  }

  /** A processor's notice names transfers: each one of its payouts still `sending` is read back. */
  async function notice(processor: string, transferIds: readonly string[]): Promise<void> {
    for (const id of transferIds) {
      const p = await repo.findByTransfer(db, processor, id);
      if (p?.transferStatus === "sending") await readBack(p);
    }
  }

  const task = (intervalMs: number): Task => ({ name: "payouts.read-back", intervalMs, run: reconcile });

  return { approve, send, sendingFields, notice, reconcile, task, senderFor };
}

export type PayoutTransfers = ReturnType<typeof createPayoutTransfers>;
