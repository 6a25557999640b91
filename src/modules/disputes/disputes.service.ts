import { createHash } from "node:crypto";
import { withTx, type Db, type Queryable, type Tx } from "../../db/client.js";
import type { disputeFiles } from "../../db/schema.js";
import type { Scope } from "../../db/scope.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import { systemCtx, type RequestCtx } from "../../core/context.js";
import type { Sealer } from "../../lib/crypto.js";
import { faultPoint } from "../../lib/faults.js";
import type { DisputeCapability, FoundDispute } from "../../processors/processor.js";
import type { SellerAccounts } from "../../processors/provider-split.js";
import { documentTypeOf } from "../../lib/file-content.js";
import { newId, seededId } from "../../lib/ids.js";
import type { ChargeDisputes, ChargeRow } from "../charges/index.js";
import { grossOf } from "../ledger/index.js";
import { recordEvents, type EventType } from "../webhooks/index.js";
import { assertDisputeTransition, canMove, type DisputeStatus } from "./dispute-status.js";
import { checkEvidence, type EvidenceFile } from "./disputes.evidence.js";
import { toDisputeEventData, toDisputeResponse, type DisputeRow } from "./disputes.mapper.js";
import * as repo from "./disputes.repo.js";
import { readForList } from "../../db/replica.js";

// Disputes: opened by a provider's notice or the sandbox, each with its money moves (opening
// takes the amount, won gives it back, lost keeps it and ends the charge: charge-disputes.ts) and
// its event in the transaction of its guarded status move, so a notice repeated, a deadline and
// a merchant's request racing each move the money once.

export interface DisputeDeps {
  db: Db;
  sealer: Sealer;
  charges: { get(ctx: RequestCtx, id: string): Promise<ChargeRow> };
  money: ChargeDisputes;
  /** "Now" for a scope: real time, or the merchant's test clock in sandbox. */
  clockNow(q: Queryable, scope: Scope): Promise<Date>;
  /** The disputes capability of a live processor's adapter (undefined: none, or not configured here). */
  capabilityOf(processor: string): DisputeCapability | undefined;
  /** The sellers' accounts a call about the charge's payment carries: its dispute is the seller's when the payment is (a seller's own account). */
  sellersOf?(charge: ChargeRow): Promise<SellerAccounts>;
  now?: () => Date;
}

export interface OpenInput {
  charge: ChargeRow;
  kind: DisputeRow["kind"];
  reason: string;
  amount: number;
  evidenceDueBy: Date;
  processor: string;
  disputeRef?: string | null;
  /** The id to give it (derived from the request's Idempotency-Key); a new one without. */
  id?: string;
}

/** Charge statuses a provider's dispute is recorded on; before payment it waits for the payment's read. */
const DISPUTABLE = new Set<ChargeRow["status"]>(["paid", "refunded", "charged_back"]);
/** A provider's reason as feira's (lower case, letters, digits and _). */
const reasonOf = (r: string) => r.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "").slice(0, 100) || "chargeback";

const EVENT_OF: Record<DisputeStatus, EventType> = {
  needs_response: "charge.dispute.created", under_review: "charge.dispute.updated", won: "charge.dispute.closed", lost: "charge.dispute.closed",
};
// Card networks give the merchant days to answer (Stripe shows 7 to 21); the MED gives the
// receiving bank 7 days to analyse. The sandbox gives 7, on the merchant's test clock.
const SANDBOX_RESPONSE_DAYS = 7;
const DAY_MS = 86_400_000;
const SANDBOX_KIND: Record<string, DisputeRow["kind"] | undefined> = { credit_card: "chargeback", pix: "pix_med", pix_automatico: "pix_med" };
const fileAad = (disputeId: string, fileId: string) => `dispute:${disputeId}:${fileId}`;

export function createDisputeService(deps: DisputeDeps) {
  const { db, money } = deps;
  const realNow = deps.now ?? (() => new Date());

  async function announce(tx: Tx, d: DisputeRow, charge: Pick<ChargeRow, "postbackUrl">, type = EVENT_OF[d.status]) {
    await recordEvents(tx, [{ merchantId: d.merchantId, environment: d.environment, type, objectId: d.id, data: toDisputeEventData(d), postbackUrl: charge.postbackUrl }]);
  }

  /**
   * Opens a dispute in `tx`, taking its amount from the balance. A provider's dispute already
   * known (processor, ref) is answered as it is and nothing moves twice.
   */
  async function open(tx: Tx, input: OpenInput): Promise<DisputeRow> {
    const { charge } = input;
    if (input.disputeRef) {
      const known = await repo.findByRef(tx, input.processor, input.disputeRef);
      if (known) return known;
    }
    const id = input.id ?? newId("dp");
    const held = await money.hold(tx, charge.id, input.amount, id);
    const row = await repo.insertDispute(tx, {
      id, merchantId: charge.merchantId, environment: charge.environment, chargeId: charge.id, kind: input.kind, status: "needs_response",
      reason: input.reason, amount: input.amount, currency: charge.currency, held, evidenceDueBy: input.evidenceDueBy,
      processor: input.processor, disputeRef: input.disputeRef ?? null,
    });
    // A racing notice inserted it first: roll this hold back with the transaction.
    if (!row) throw new AppError("conflict", `Dispute ${input.disputeRef} of ${input.processor} was opened by another request; retry`);
    await announce(tx, row, charge);
    return row;
  }

  /** Moves a dispute to `to` with its money and event; undefined when it is no longer in `d.status`. */
  async function decide(tx: Tx, d: DisputeRow, to: DisputeStatus, charge: Pick<ChargeRow, "postbackUrl">): Promise<DisputeRow | undefined> {
    assertDisputeTransition(d.id, d.status, to);
    const moved = await repo.moveDispute(tx, d.id, d.status, to, to === "won" || to === "lost" ? { closedAt: realNow() } : {});
    if (!moved) return undefined;
    if (to === "won") await money.release(tx, d.chargeId, d.held, d.id);
    if (to === "lost") await money.lose(tx, d.chargeId, d.kind, d.held);
    await announce(tx, moved, charge);
    return moved;
  }

  async function find(ctx: Scope, id: string): Promise<DisputeRow> {
    const row = await repo.findDispute(db, ctx, id);
    if (!row) throw notFound("Dispute", id);
    return row;
  }

  const chargeOf = (ctx: RequestCtx, d: DisputeRow) => deps.charges.get(ctx, d.chargeId);
  const changed = (id: string) => new AppError("conflict", `Dispute ${id} was changed by another request; retry`);

  /**
   * A retry that took over the claim of an attempt that died (its seed is not fresh) may find the
   * move that attempt committed before it could answer: that move is its answer, not a refusal.
   */
  const resumed = (ctx: RequestCtx) => Boolean(ctx.idempotencySeed) && !ctx.idempotencySeedFresh;

  /** The merchant's or the sandbox issuer's decision: the move, its money and event, committed once. */
  async function decideNow(ctx: RequestCtx, d: DisputeRow, to: "won" | "lost") {
    const charge = await chargeOf(ctx, d);
    const closed = await withTx(db, (tx) => decide(tx, d, to, charge));
    if (!closed) throw changed(d.id);
    faultPoint("dispute.after-close");
    return toDisputeResponse(closed);
  }

  /**
   * The merchant's evidence, once, before the deadline: the files are judged by content and
   * sealed, and the dispute goes under review. Every check is made before anything is written.
   */
  async function submitEvidence(ctx: RequestCtx, id: string, text: string, sent: readonly EvidenceFile[]) {
    const files = checkEvidence(text, sent);
    const d = await find(ctx, id);
    const provider = d.processor === "sandbox" ? undefined : deps.capabilityOf(d.processor);
    if (d.processor !== "sandbox" && (!provider?.submitEvidence || !d.disputeRef)) {
      throw invalid(`Dispute ${id} is answered in ${provider?.provider ?? d.processor}'s own dashboard; send the evidence there`);
    }
    if (d.status !== "needs_response") throw invalid(`Dispute ${id} is ${d.status}; evidence is accepted once, while it needs_response`);
    const now = await deps.clockNow(db, ctx);
    if (now > d.evidenceDueBy) throw invalid(`Dispute ${id}'s evidenceDueBy (${d.evidenceDueBy.toISOString()}) has passed`);
    const rows: (typeof disputeFiles.$inferInsert)[] = [];
    for (const [i, f] of files.entries()) {
      const type = await documentTypeOf(f.content);
      if (!type) throw invalid(`files[${i}] (${f.name}) must be a PDF, PNG or JPEG file (judged by its content)`);
      const fileId = newId("dpf");
      rows.push({
        id: fileId, disputeId: d.id, name: f.name, contentType: type, size: f.content.length,
        sha256: createHash("sha256").update(f.content).digest("hex"), contentSealed: deps.sealer.seal(f.content.toString("base64"), fileAad(d.id, fileId)),
      });
    }
    // A provider's dispute: the evidence goes to the provider after every check and before
    // anything is written here, so a refusal or no answer leaves the dispute needs_response.
    const charge = await chargeOf(ctx, d);
    if (provider?.submitEvidence && d.disputeRef) {
      const on = deps.sellersOf ? await deps.sellersOf(charge) : {};
      const sent = await provider.submitEvidence({
        disputeRef: d.disputeRef, text, files: files.map((f, i) => ({ name: f.name, contentType: rows[i]!.contentType, data: f.content })), ...on,
      });
      if (sent.outcome === "refused") throw invalid(`${provider.provider} refused the evidence: ${sent.message}`);
      if (sent.outcome === "not_found") throw invalid(`${provider.provider} no longer has dispute ${d.disputeRef}`);
      if (sent.outcome === "unknown") throw new AppError("unavailable", `${provider.provider} gave no answer to rely on (${sent.failure.kind}); nothing was recorded, send the evidence again`);
    }
    const evidence = { text, files: rows.map((r) => ({ id: r.id, name: r.name, contentType: r.contentType, size: r.size })) };
    const moved = await withTx(db, async (tx) => {
      const next = await repo.moveDispute(tx, d.id, "needs_response", "under_review", { evidence, submittedAt: now });
      if (next) await announce(tx, next, charge);
      // The provider announces the upload it just took, and that notice, read back, may move
      // the dispute to under_review before this commits: the evidence is still this request's.
      const kept = next ?? (provider ? await repo.recordEvidence(tx, d.id, { evidence, submittedAt: now }) : undefined);
      if (kept) await repo.insertFiles(tx, rows);
      return kept;
    });
    if (!moved) throw invalid(`Dispute ${id} is no longer needs_response; evidence is accepted once`);
    return toDisputeResponse(moved);
  }

  /**
   * A provider's dispute of a live charge (a chargeback notice read back, a payment read that
   * carries one): opened once per (processor, disputeRef) with its hold, then moved to what the
   * provider says when the status table allows it, so each move and its money happen once
   * whatever the order and repetition of the reads. A charge not paid yet waits for its payment.
   */
  async function fromProvider(charge: ChargeRow, found: FoundDispute): Promise<void> {
    if (!DISPUTABLE.has(charge.status)) return;
    const apply = () => withTx(db, async (tx) => {
      const d = await repo.findByRef(tx, charge.processor, found.disputeRef) ?? await open(tx, {
        charge, kind: found.kind, reason: reasonOf(found.reason), amount: found.amountMinor,
        evidenceDueBy: found.evidenceDueBy ?? realNow(), processor: charge.processor, disputeRef: found.disputeRef,
      });
      if (d.status !== found.outcome && canMove(d.status, found.outcome)) await decide(tx, d, found.outcome, charge);
    });
    try {
      await apply();
    } catch (err) {
      // Another read of the same dispute opened it first (open's conflict): it is there now.
      if (!(err instanceof AppError && err.code === "conflict")) throw err;
      await apply();
    }
  }

  /** The merchant concedes: lost, the amount stays taken. */
  async function accept(ctx: RequestCtx, id: string) {
    const d = await find(ctx, id);
    if (resumed(ctx) && d.status === "lost") return toDisputeResponse(d);
    assertDisputeTransition(d.id, d.status, "lost");
    return decideNow(ctx, d, "lost");
  }

  /** The deadline: an unanswered dispute past evidenceDueBy (by its clock) is lost, in `only` or everywhere. Answers how many. */
  async function loseOverdue(only?: Scope, limit = 50): Promise<number> {
    let n = 0;
    for (const d of await repo.overdueDisputes(db, realNow(), limit, only)) {
      const charge = await deps.charges.get(systemCtx(d, "disputes.deadline"), d.chargeId);
      const done = await withTx(db, (tx) => decide(tx, d, "lost", charge));
      if (done) n++;
    }
    return n;
  }

  // The sandbox stands in for the issuer and the payer's bank.
  const sandboxOnly = (ctx: RequestCtx) => {
    if (ctx.environment !== "sandbox") throw new AppError("forbidden", "Forbidden: sandbox endpoints need a sandbox (sk_test_) key");
  };

  /** Opens a dispute on a paid sandbox card (chargeback) or Pix (pix_med) charge, for what it still has paid. */
  async function openSandbox(ctx: RequestCtx, chargeId: string, body: { kind?: DisputeRow["kind"]; reason?: string }) {
    sandboxOnly(ctx);
    const charge = await deps.charges.get(ctx, chargeId);
    const kind = SANDBOX_KIND[charge.paymentMethodType];
    if (!kind) throw invalid(`Charge ${chargeId} is paid by ${charge.paymentMethodType}; only card (chargeback) and Pix (pix_med) charges are disputed`);
    if (body.kind && body.kind !== kind) throw invalid(`kind must be ${kind} for a ${charge.paymentMethodType} charge`);
    // The id follows the Idempotency-Key: a retry after the first attempt committed finds its dispute.
    const id = seededId("dp", ctx.idempotencySeed);
    if (resumed(ctx)) {
      const earlier = await repo.findDispute(db, ctx, id);
      if (earlier) return toDisputeResponse(earlier);
    }
    if (charge.status !== "paid") throw new AppError("invalid_state", `Charge ${chargeId} is ${charge.status}; only a paid charge can be disputed`);
    const amount = grossOf(charge) - charge.amountRefunded - charge.amountDisputed;
    if (amount <= 0 || (await repo.hasOpenDispute(db, chargeId))) throw new AppError("invalid_state", `Charge ${chargeId} already has an open dispute`);
    const evidenceDueBy = new Date((await deps.clockNow(db, ctx)).getTime() + SANDBOX_RESPONSE_DAYS * DAY_MS);
    const row = await withTx(db, (tx) => open(tx, {
      id, charge, kind, reason: body.reason ?? (kind === "chargeback" ? "fraudulent" : "fraud"), amount, evidenceDueBy, processor: "sandbox",
    }));
    faultPoint("dispute.after-open");
    return toDisputeResponse(row);
  }

  /** Decides a sandbox dispute under review, as the issuer would. */
  async function closeSandbox(ctx: RequestCtx, id: string, outcome: "won" | "lost") {
    sandboxOnly(ctx);
    const d = await find(ctx, id);
    if (resumed(ctx) && d.status === outcome) return toDisputeResponse(d);
    if (d.status !== "under_review") throw new AppError("invalid_state", `Dispute ${id} is ${d.status}; only a dispute under_review is decided`);
    return decideNow(ctx, d, outcome);
  }

  async function get(ctx: RequestCtx, id: string) {
    return toDisputeResponse(await find(ctx, id));
  }

  async function list(ctx: RequestCtx, q: { status?: DisputeStatus; chargeId?: string; kind?: string; page?: number; limit?: number; openFirst?: boolean }) {
    const page = q.page ?? 1;
    const limit = q.limit ?? 10;
    const { rows, total } = await readForList(db, ctx, (r) => repo.listDisputes(r, ctx, { ...q, page, limit }));
    return { data: rows.map(toDisputeResponse), meta: { total, page, limit, totalPages: Math.ceil(total / limit) } };
  }

  /** A charge's disputes, for the charge's own view. */
  async function ofCharge(ctx: Scope, chargeId: string) {
    return (await repo.disputesOfCharge(db, ctx, chargeId)).map(toDisputeResponse);
  }

  /** "Now" as the scope's deadlines are judged: real time, or the merchant's test clock in sandbox. */
  const clockNow = (ctx: Scope) => deps.clockNow(db, ctx);

  return { open, decide, find, fromProvider, submitEvidence, accept, loseOverdue, openSandbox, closeSandbox, get, list, ofCharge, clockNow };
}

export type DisputeService = ReturnType<typeof createDisputeService>;
export type { EvidenceFile };
