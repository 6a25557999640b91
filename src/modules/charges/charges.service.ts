import { notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import { createChargePath, type ChargeCreateDeps } from "./create/charge-create.js";
import { payerDay, termsOfCharge, toChargeResponse, type ChargeRow } from "./charges.mapper.js";
import type { Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import * as repo from "./charges.repo.js";
import type { ConnectService } from "../connect/index.js";
import type { LedgerService } from "../ledger/index.js";
import { createSandboxActions } from "./sandbox/sandbox-actions.js";
import { createLatePayments } from "./provider-state/late-payments.js";
import { readForList } from "../../db/replica.js";

export type { ChargeCheck, PreparedCharge } from "./create/charge-pipeline.js";

/** The sandbox test clock's time for a merchant's environment (real time in production). */
export type SandboxClockNow = (q: Queryable, scope: Scope) => Promise<Date>;

export interface ChargeServiceDeps extends Omit<ChargeCreateDeps, "now" | "connect"> {
  connect: Pick<ConnectService, "checkCharge" | "chargeSettlement" | "providerAccounts" | "checkCanResend">;
  ledger: Pick<LedgerService, "postLatePayment">;
  now?: () => Date;
}

/**
 * The charge service other modules call: creation (create/charge-create.ts), reads, and the
 * sandbox's actions (sandbox/sandbox-actions.ts), which the panel's demo history also uses.
 */
export function createChargeService(deps: ChargeServiceDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const path = createChargePath({ ...deps, now });

  async function get(ctx: RequestCtx, id: string): Promise<ChargeRow> {
    const row = await repo.findCharge(db, ctx, id);
    if (!row) throw notFound("Charge", id);
    return row;
  }

  /** A charge made through a payment link, for the checkout page's status poll. */
  async function findForLink(scope: Pick<RequestCtx, "merchantId" | "environment">, paymentLinkId: string, id: string) {
    const row = await repo.findCharge(db, scope as RequestCtx, id);
    return row && row.paymentLinkId === paymentLinkId ? row : undefined;
  }

  async function list(ctx: RequestCtx, query: repo.ChargeListQuery) {
    const page = await readForList(db, ctx, (q) => repo.listCharges(q, ctx, query));
    return { data: page.data.map((c) => toChargeResponse(c)), hasMore: page.hasMore };
  }

  // The sandbox's test clock (the subscriptions module's, made after this one): the day a sandbox
  // charge's amount due is computed for. Until it is wired, real time.
  let clockNow: SandboxClockNow = async () => now();
  const useClock = (clock: SandboxClockNow) => { clockNow = clock; };

  /**
   * The payer's day a charge's amount due is computed for: today in Brasília, or the test clock's
   * day for a sandbox charge with collection terms (the only ones whose amount changes by day,
   * so no other charge's read costs a statement more).
   */
  async function dayFor(ctx: Scope, c: ChargeRow): Promise<string> {
    const clocked = c.environment === "sandbox" && termsOfCharge(c) !== null;
    return payerDay(clocked ? await clockNow(db, ctx) : now());
  }

  const late = createLatePayments({ db, effects: deps.effects, ledger: deps.ledger });
  const sandbox = createSandboxActions({ db, effects: deps.effects, connect: deps.connect, get, processorFor: path.processorFor, now, dayFor, late });

  /** Production charges of this process waiting on a processor now (a gauge of /metrics). */
  const waitingOnProcessor = () => deps.waiting.waiting();

  return { ...path, ...sandbox, get, dayFor, useClock, findForLink, list, waitingOnProcessor };
}

export type ChargeService = ReturnType<typeof createChargeService>;
