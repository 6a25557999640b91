import type { Db } from "../../db/client.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import { scopeOf, type Scope } from "../../db/scope.js";
import { faultPoint } from "../../lib/faults.js";
import type { AccountCapability, AccountHolder, AccountState, TransferSchedule } from "../../processors/accounts.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import type { ConnectService } from "./connect.service.js";
import * as repo from "./provider-accounts.repo.js";
import { createProviderOAuth, type ProviderOAuthDeps } from "./provider-oauth.js";

// A submerchant's accounts at processors (provider settlement): opened by the master for an
// active submerchant, one per processor. The row is committed before the processor is called;
// a retry (or a read) of an account whose answer was lost reads the processor back by the
// submerchant's code before it opens anything again, so a crash between the processor's answer
// and feira's commit never makes a second account. Bank data is checked by the processor's
// adapter before any call and only its last four digits are kept.

export interface ProviderAccountDeps extends ProviderOAuthDeps {
  processors: Pick<ProcessorRegistry, "adapter">;
  connect: Pick<ConnectService, "ownSubmerchant">;
}

export function createProviderAccountService(deps: ProviderAccountDeps) {
  const { db } = deps;
  const oauth = createProviderOAuth(deps);

  function capabilityOf(ctx: RequestCtx, processor: string): AccountCapability {
    // The sandbox's charges all go to the simulator: its sellers' accounts are the simulator's.
    const served = (ctx.environment === "sandbox") === (processor === "sandbox");
    const accounts = served ? deps.processors.adapter(ctx.environment, processor)?.accounts : undefined;
    if (!accounts) {
      throw invalid(`processor ${processor} holds no sellers' accounts in ${ctx.environment} (sandbox keys: sandbox; production: a live processor this deployment configures)`);
    }
    return accounts;
  }

  const holderOf = (s: Awaited<ReturnType<ConnectService["ownSubmerchant"]>>): AccountHolder =>
    ({ code: s.id, legalName: s.legalName, tradeName: s.tradeName, email: s.contactEmail, companyTaxId: s.companyTaxId, schedule: s.payoutSchedule });

  /** Records what the processor said; an answer that was not one leaves the account as it was. */
  async function record(scope: Scope, row: repo.ProviderAccountRow, state: AccountState): Promise<repo.ProviderAccountRow> {
    if (state.outcome === "unknown" || state.outcome === "not_found") return row;
    const updated = await repo.updateProviderAccount(db, scope, row.submerchantId, row.processor, {
      status: state.outcome, externalId: state.externalId ?? row.externalId,
      reason: state.outcome === "refused" ? state.reason : null,
      details: { ...row.details, ...(state.providerStatus ? { providerStatus: state.providerStatus } : {}) },
      checkedAt: new Date(),
    });
    return updated ?? row;
  }

  /** POST /v1/submerchants/{id}/provider-accounts. */
  async function open(ctx: RequestCtx, submerchantId: string, body: Record<string, unknown> & { processor: string }) {
    const sm = await deps.connect.ownSubmerchant(ctx, submerchantId);
    const accounts = capabilityOf(ctx, body.processor);
    const problems = accounts.check(body);
    if (problems.length > 0) throw invalid(problems.join("; "));
    if (sm.status !== "active") {
      throw new AppError("submerchant_not_active", `Submerchant ${sm.id} is not active; only an active submerchant (KYC approved) gets an account at a processor`);
    }
    const scope = scopeOf(ctx);
    const holder = holderOf(sm);
    const fresh = await repo.insertProviderAccount(db, {
      submerchantId: sm.id, processor: body.processor, parentId: ctx.merchantId, environment: ctx.environment,
      status: "pending", details: accounts.shown(body),
    });
    const row = fresh ?? (await repo.findProviderAccount(db, scope, sm.id, body.processor));
    if (!row) throw notFound("Provider account", body.processor);
    // Opened by the seller's own authorization: the answer is where the seller authorizes.
    if (accounts.oauth) return oauth.start(ctx, row, accounts.oauth);
    if (!accounts.open) throw invalid(`processor ${body.processor} is not supported here`);
    // Made already: its state now, read back from the processor.
    if (!fresh && (row.externalId || row.status !== "pending")) return repo.accountView(await readBack(scope, row, holder, accounts));
    // A retry of an account whose answer was lost: the processor first, by the submerchant's code.
    if (!fresh) {
      const found = await accounts.find(holder, null);
      if (found.outcome === "unknown") throw new AppError("processor_busy", `the processor did not answer (${found.failure.message}); retry`);
      if (found.outcome !== "not_found") return repo.accountView(await record(scope, row, found));
    }
    const state = await accounts.open(holder, body);
    faultPoint("account.after-open");
    if (state.outcome === "unknown") throw new AppError("processor_busy", `the processor did not answer (${state.failure.message}); retry, the account is read back before anything is sent again`);
    return repo.accountView(await record(scope, row, state));
  }

  async function readBack(scope: Scope, row: repo.ProviderAccountRow, holder: AccountHolder, accounts: AccountCapability) {
    return record(scope, row, await accounts.find(holder, row.externalId));
  }

  /** GET /v1/submerchants/{id}/provider-accounts/{processor}: the state read back from the processor. */
  async function get(ctx: RequestCtx, submerchantId: string, processor: string) {
    const sm = await deps.connect.ownSubmerchant(ctx, submerchantId);
    const row = await repo.findProviderAccount(db, scopeOf(ctx), sm.id, processor);
    if (!row) throw notFound("Provider account", `${processor} of ${sm.id}`);
    const accounts = deps.processors.adapter(ctx.environment, processor)?.accounts;
    // An authorized account's state is feira's own (its tokens); the others are read back.
    return repo.accountView(accounts && !accounts.oauth ? await readBack(scopeOf(ctx), row, holderOf(sm), accounts) : row);
  }

  async function list(ctx: RequestCtx, submerchantId: string) {
    const sm = await deps.connect.ownSubmerchant(ctx, submerchantId);
    return { data: (await repo.listProviderAccounts(db, scopeOf(ctx), sm.id)).map(repo.accountView), hasMore: false };
  }

  /**
   * A new payout schedule, before it is saved: each of the submerchant's accounts at a processor
   * with automatic transfers must be able to follow it (a 422 naming the field, nothing saved).
   */
  async function checkSchedule(ctx: RequestCtx, submerchantId: string, schedule: TransferSchedule): Promise<void> {
    for (const row of await repo.listProviderAccounts(db, scopeOf(ctx), submerchantId)) {
      const problem = deps.processors.adapter(ctx.environment, row.processor)?.accounts?.transfers?.check(schedule);
      if (problem) throw invalid(problem);
    }
  }

  /**
   * The saved schedule becomes each active account's automatic transfers at its processor. A
   * processor that did not answer: 503, and the PATCH's retry sends it again (it is idempotent).
   */
  async function applySchedule(ctx: RequestCtx, submerchantId: string, schedule: TransferSchedule): Promise<void> {
    for (const row of await repo.listProviderAccounts(db, scopeOf(ctx), submerchantId)) {
      const transfers = deps.processors.adapter(ctx.environment, row.processor)?.accounts?.transfers;
      if (!transfers || row.status !== "active" || !row.externalId) continue;
      const applied = await transfers.apply(row.externalId, schedule);
      if (applied.outcome === "unknown") throw new AppError("processor_busy", `${row.processor} did not answer (${applied.failure.message}); the schedule is saved: repeat the request to send it to ${row.processor}`);
      if (applied.outcome === "refused") throw invalid(`${row.processor} refused the payout schedule: ${applied.message}`);
    }
  }

  return { open, get, list, checkSchedule, applySchedule, callback: oauth.callback };
}

export type ProviderAccountService = ReturnType<typeof createProviderAccountService>;
