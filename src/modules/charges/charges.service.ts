import { notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import { createChargePath, type ChargeCreateDeps } from "./create/charge-create.js";
import { toChargeResponse, type ChargeRow } from "./charges.mapper.js";
import * as repo from "./charges.repo.js";
import type { ConnectService } from "../connect/index.js";
import { createSandboxActions } from "./sandbox/sandbox-actions.js";
import { readForList } from "../../db/replica.js";

export type { ChargeCheck, PreparedCharge } from "./create/charge-pipeline.js";

export interface ChargeServiceDeps extends Omit<ChargeCreateDeps, "now" | "connect"> {
  connect: Pick<ConnectService, "checkCharge" | "chargeSettlement" | "providerAccounts" | "checkCanResend">;
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
    return { data: page.data.map(toChargeResponse), hasMore: page.hasMore };
  }

  const sandbox = createSandboxActions({ db, effects: deps.effects, connect: deps.connect, get, processorFor: path.processorFor, now });

  /** Production charges of this process waiting on a processor now (a gauge of /metrics). */
  const waitingOnProcessor = () => deps.waiting.waiting();

  return { ...path, ...sandbox, get, findForLink, list, waitingOnProcessor };
}

export type ChargeService = ReturnType<typeof createChargeService>;
