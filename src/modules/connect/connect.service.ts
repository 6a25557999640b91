import type { Static } from "typebox";
import type { Config } from "../../config.js";
import { withTx, type Db } from "../../db/client.js";
import type { Task } from "../../jobs/runner.js";
import { scopeOf } from "../../db/scope.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { ProviderAccountRef } from "../../processors/provider-split.js";
import type { RequestCtx } from "../../core/context.js";
import { formatDocument, normalizeDocument } from "../../lib/documents.js";
import { seededId } from "../../lib/ids.js";
import { toMajor, toMinor } from "../../lib/money.js";
import { createTtlCache, type ConfigChanges } from "../../db/config-changes.js";
import type { MerchantService } from "../merchants/index.js";
import { checkDestination, recordEvent } from "../webhooks/index.js";
import * as repo from "./connect.repo.js";
import type { CreateSubmerchantBody, ListSubmerchantsQuery } from "./connect.schemas.js";
import { SORTABLE } from "./connect.schemas.js";
import { providerSplitAccounts } from "./provider-split.js";
import { activeProviderAccount, providerAccountsByExternalId } from "./provider-accounts.repo.js";
import type { SellerTokens } from "./seller-tokens.js";
import { checkSplitRules, type SplitRule } from "./split-rules.js";
import { connectSettlement, saveSettlement, type Settlement } from "./settlement.js";
import { accountView, providerAccountsOf, type ProviderAccountRow } from "./provider-accounts.repo.js";
import {
  assertSubmerchantTransition, NEEDS_DOCUMENTS, NOTIFIED, publicStatus, STAMP_OF,
  type PublicSubmerchantStatus, type SubmerchantStatus,
} from "./submerchant-status.js";
import { documentsView } from "./documents.js";
import { dayRange, envelope, pageWindow } from "./paging.js";
import { showSchedule } from "./payout-schedule.js";

export interface ConnectDeps {
  db: Db;
  config: Pick<Config, "webhookAllowPrivateUrls" | "production">;
  merchants: Pick<MerchantService, "createSubmerchantAccount" | "revealKeys" | "getFees">;
  /** A merchant's Connect account and default split are cached per process for charges. */
  configChanges: ConfigChanges;
  /** Sellers' tokens at processors (accounts opened by OAuth), fresh for a call on their accounts. */
  sellerTokens: Pick<SellerTokens, "fresh">;
  now?: () => Date;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const NO_CONNECT = () => new AppError("forbidden", "Forbidden: Connect is not enabled for this merchant");

export function createConnectService(deps: ConnectDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());
  const chargeAccounts = createTtlCache<NonNullable<Awaited<ReturnType<typeof repo.findAccountWithSettings>>>>();
  const settlements = createTtlCache<{ settlement: Settlement }>();
  deps.configChanges.onForget(() => { chargeAccounts.clear(); settlements.clear(); });

  async function accountOf(ctx: Pick<RequestCtx, "merchantId">): Promise<repo.ConnectAccount> {
    const [account] = await repo.findAccounts(db, [ctx.merchantId]);
    if (!account) throw new AppError("unauthorized", "Unauthorized");
    return account;
  }

  /** Masters with Connect enabled and submerchants may use the Connect routes; nobody else. */
  async function requireConnect(ctx: RequestCtx): Promise<repo.ConnectAccount> {
    const account = await accountOf(ctx);
    if (!account.parentId && !account.connectEnabled) throw NO_CONNECT();
    return account;
  }

  /** Only the master manages submerchants (a submerchant never has submerchants of its own). */
  async function requireMaster(ctx: RequestCtx): Promise<repo.ConnectAccount> {
    const account = await requireConnect(ctx);
    if (account.parentId) throw new AppError("forbidden", "Forbidden: only the master merchant manages submerchants");
    return account;
  }

  /** The master's submerchant, or 404 (never another master's). */
  async function ownSubmerchant(ctx: RequestCtx, id: string): Promise<repo.SubmerchantRow> {
    await requireMaster(ctx);
    const row = await repo.findSubmerchant(db, ctx, id);
    if (!row) throw notFound("Submerchant", id);
    return row;
  }

  function view(s: repo.SubmerchantRow, totalSales: number, providerAccounts: ProviderAccountRow[] = []) {
    const status = s.status;
    return {
      id: s.id, tradeName: s.tradeName, legalName: s.legalName, companyTaxId: s.companyTaxId,
      averageMonthlyRevenue: toMajor(s.averageMonthlyRevenue, "BRL"), averageOrderValue: toMajor(s.averageOrderValue, "BRL"),
      productType: s.productType, website: s.website, gatewayId: s.parentId,
      approvedAt: iso(s.approvedAt), inactivatedAt: iso(s.inactivatedAt),
      status: publicStatus(status), accreditationStatus: status, statusReason: s.statusReason,
      contactEmail: s.contactEmail, productDescription: s.productDescription, softDescriptor: s.softDescriptor,
      postbackUrl: s.postbackUrl, currency: s.currency, rejectedAt: iso(s.rejectedAt), blockedAt: iso(s.blockedAt),
      createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString(), totalSales,
      payoutSchedule: showSchedule(s.payoutSchedule),
      holdDays: s.holdDays,
      providerAccounts: providerAccounts.map(accountView),
    };
  }

  async function viewOne(ctx: RequestCtx, s: repo.SubmerchantRow) {
    const sales = await repo.totalSales(db, [s.id], ctx.environment);
    const accounts = await providerAccountsOf(db, { merchantId: s.parentId, environment: s.environment }, [s.id]);
    return view(s, sales.get(s.id) ?? 0, accounts.get(s.id));
  }

  function brl(value: number, field: string): number {
    const parsed = toMinor(value, "BRL", { minUnits: 0, field });
    if (!parsed.ok) throw invalid(parsed.message);
    return parsed.minor;
  }

  /**
   * POST /v1/submerchants: a linked merchant, pending, with its own keys and copies of the
   * master's fees, in one transaction. Under an Idempotency-Key the id comes from the claim's
   * seed, so a retry after a crash answers with the submerchant the first attempt created.
   */
  async function create(ctx: RequestCtx, body: Static<typeof CreateSubmerchantBody>) {
    const master = await requireMaster(ctx);
    const id = seededId("sm", ctx.idempotencySeed);
    if (ctx.idempotencySeed) {
      const earlier = await repo.findSubmerchant(db, ctx, id);
      if (earlier) return viewOne(ctx, earlier);
    }
    const cnpj = normalizeDocument("cnpj", body.companyTaxId);
    if (!cnpj.ok) throw invalid("companyTaxId is not a valid CNPJ");
    const averageMonthlyRevenue = brl(body.averageMonthlyRevenue, "averageMonthlyRevenue");
    const averageOrderValue = brl(body.averageOrderValue, "averageOrderValue");
    const postbackUrl = body.postbackUrl ? await checkDestination(body.postbackUrl, ctx.environment, deps.config, "postbackUrl") : null;
    const duplicate = () => new AppError("conflict", `A submerchant with companyTaxId ${formatDocument("cnpj", cnpj.value)} already exists in this Connect`);
    if (await repo.taxIdTaken(db, ctx, cnpj.value)) throw duplicate();

    const row = await withTx(db, async (tx) => {
      // Its Pix key is its CNPJ: payouts are paid by Pix to the submerchant's tax id.
      await deps.merchants.createSubmerchantAccount(tx, { id, parentId: master.id, environment: ctx.environment, name: body.tradeName, pixKey: cnpj.value });
      const inserted = await repo.insertSubmerchant(tx, {
        id, parentId: master.id, environment: ctx.environment, tradeName: body.tradeName, legalName: body.legalName,
        companyTaxId: cnpj.value, averageMonthlyRevenue, averageOrderValue, productType: body.productType,
        website: body.website, contactEmail: body.contactEmail, productDescription: body.productDescription,
        softDescriptor: body.softDescriptor ?? null, postbackUrl, status: "pending",
      });
      if (!inserted) throw duplicate(); // a concurrent request registered the same CNPJ
      return inserted;
    });
    return view(row, 0);
  }

  function sortOrder(orderBy: string | undefined) {
    if (!orderBy) return [{ field: "createdAt" as const, descending: true }];
    const seen = new Set<string>();
    return orderBy.split(",").map((raw) => raw.trim()).filter(Boolean).map((part) => {
      const descending = part.startsWith("-");
      const field = descending ? part.slice(1) : part;
      if (!(SORTABLE as readonly string[]).includes(field)) {
        throw invalid(`query.orderBy field ${field} is not one of ${SORTABLE.join(", ")}`);
      }
      if (seen.has(field)) throw invalid(`query.orderBy names ${field} twice`);
      seen.add(field);
      return { field: field as (typeof SORTABLE)[number], descending };
    });
  }

  async function list(ctx: RequestCtx, q: Static<typeof ListSubmerchantsQuery>) {
    await requireMaster(ctx);
    const window = pageWindow(q);
    const days = (["createdAt", "updatedAt", "approvedAt", "rejectedAt", "blockedAt", "inactivatedAt"] as const)
      .flatMap((column) => (q[column] ? [{ column, ...dayRange(q[column]) }] : []));
    const statuses: SubmerchantStatus[] | undefined = q.status === "pending" ? ["pending", "pre_approved"] : q.status ? [q.status] : undefined;
    const { rows, total } = await repo.listSubmerchants(db, {
      master: scopeOf(ctx), statuses,
      companyTaxId: q.companyTaxId?.replace(/[./-]/g, "").toUpperCase(),
      legalName: q.legalName, tradeName: q.tradeName, currency: q.currency?.toUpperCase(),
      days, order: sortOrder(q.orderBy), limit: window.limit, offset: window.offset,
    });
    const sales = await repo.totalSales(db, rows.map((r) => r.id), ctx.environment);
    const accounts = await providerAccountsOf(db, scopeOf(ctx), rows.map((r) => r.id));
    return envelope(rows.map((r) => view(r, sales.get(r.id) ?? 0, accounts.get(r.id))), total, window);
  }

  async function get(ctx: RequestCtx, id: string) {
    return viewOne(ctx, await ownSubmerchant(ctx, id));
  }

  async function apiKeys(ctx: RequestCtx, id: string) {
    const s = await ownSubmerchant(ctx, id);
    return { merchantId: s.id, keys: await deps.merchants.revealKeys(scopeOf({ merchantId: s.id, environment: ctx.environment })) };
  }

  /**
   * fees-info: a submerchant always gets its own data whatever the path says; a master
   * gets a linked submerchant's, and 404 for its own id, an unknown one or another master's.
   */
  async function feesInfo(ctx: RequestCtx, id: string) {
    const account = await accountOf(ctx);
    let target: repo.SubmerchantRow | undefined;
    if (account.parentId) {
      target = await repo.findOwnRegistration(db, ctx);
    } else {
      if (!account.connectEnabled) throw NO_CONNECT();
      target = await repo.findSubmerchant(db, ctx, id);
    }
    if (!target) throw notFound("Sub-account", id);
    // As stored: brand overrides are rows of their own, nothing is merged or defaulted.
    const fees = (await deps.merchants.getFees(target.id)).filter((f) => f.feeType === "tx_spread" || f.feeType === "anticipation");
    return { merchant: { id: target.id, legalName: target.legalName, companyTaxId: target.companyTaxId }, fees };
  }

  async function getSettings(ctx: RequestCtx) {
    const account = await requireConnect(ctx);
    const row = await repo.findAccountWithSettings(db, scopeOf(ctx));
    const settlement = await connectSettlement(db, account.parentId ?? account.id, ctx.environment);
    return { defaultSplit: row?.defaultSplit ?? [], settlement };
  }

  /** Either half of the settings, or both; settlement is the master's alone (a submerchant's key: 403). */
  async function putSettings(ctx: RequestCtx, body: { defaultSplit?: SplitRule[]; settlement?: Settlement }) {
    const account = await requireConnect(ctx);
    if (body.settlement !== undefined && account.parentId) throw new AppError("forbidden", "Forbidden: only the master merchant sets the settlement");
    const { defaultSplit, settlement } = body;
    if (defaultSplit !== undefined) await checkSplitRules(db, ctx, account, defaultSplit, "defaultSplit");
    await deps.configChanges.change(db, async (tx) => {
      if (defaultSplit !== undefined) await repo.upsertSettings(tx, scopeOf(ctx), defaultSplit);
      if (settlement !== undefined) await saveSettlement(tx, scopeOf(ctx), settlement);
    });
    return getSettings(ctx);
  }

  /**
   * The settlement a new charge of this scope is created under: its root merchant's (the master's
   * for a submerchant), cached as the account is (a change is forgotten at once everywhere).
   */
  async function chargeSettlement(ctx: RequestCtx): Promise<Settlement> {
    const account = await chargeAccounts.get(`${ctx.merchantId}:${ctx.environment}`, () => repo.findAccountWithSettings(db, scopeOf(ctx)), (a) => !a.parentId || a.status === "active");
    const root = account?.parentId ?? ctx.merchantId;
    const hit = await settlements.get(`${root}:${ctx.environment}`, async () => ({ settlement: await connectSettlement(db, root, ctx.environment) }));
    return hit?.settlement ?? "platform";
  }

  /**
   * The split's sellers' accounts at the processors of the charge's route when the Connect is in
   * provider settlement (the caller checked it is); refuses what the chosen one cannot take.
   */
  async function providerAccounts(
    ctx: RequestCtx, split: readonly SplitRule[], candidates: readonly string[],
    route: { sendsSplit: (processor: string) => boolean; splitSellers: (processor: string) => number | undefined },
  ) {
    const account = await chargeAccounts.get(`${ctx.merchantId}:${ctx.environment}`, () => repo.findAccountWithSettings(db, scopeOf(ctx)), (a) => !a.parentId || a.status === "active");
    if (!account) throw new AppError("unauthorized", "Unauthorized");
    return providerSplitAccounts(db, ctx, account, split, candidates, route, deps.sellerTokens.fresh);
  }

  /**
   * A provider-settled charge's sellers' accounts at the processor that served it, their tokens
   * fresh: what a refund made on a seller's own account needs. Empty for any other charge.
   */
  async function chargeSellers(charge: { environment: string; processor: string; settlement: string; split: readonly SplitRule[] | null }) {
    if (charge.settlement !== "provider" || !charge.split) return [];
    const environment = charge.environment === "production" ? "production" : "sandbox";
    const refs = [];
    for (const rule of charge.split) {
      const found = await activeProviderAccount(db, { submerchantId: rule.merchantId, processor: charge.processor, environment });
      if (found) refs.push(await deps.sellerTokens.fresh(found));
    }
    return refs;
  }

  /**
   * The seller's account a processor's notice names by the processor's own id of it (Mercado
   * Pago's user_id), its token fresh; null when no seller's account there has that id (the
   * operator's own, or none feira knows). Throws 422 submerchant_not_at_provider when the seller's
   * authorization has expired or was revoked.
   */
  async function sellerAccount(processor: string, externalId: string): Promise<ProviderAccountRef | null> {
    const [found] = await providerAccountsByExternalId(db, processor, externalId);
    if (!found) return null;
    if (found.status !== "active" || !found.accessTokenSealed) {
      throw new AppError("submerchant_not_at_provider", `submerchant ${found.submerchantId}'s authorization at ${processor} is not active: authorize again`);
    }
    return deps.sellerTokens.fresh({ ...found, externalId });
  }

  /**
   * Connect's rules for a new charge, checked before the processor is called: a submerchant
   * that is not active cannot charge in production, and the split (the charge's own, else the
   * merchant's default) must name members of the originator's Connect. Returns the split to
   * apply, or null.
   */
  async function checkCharge(ctx: RequestCtx, split: SplitRule[] | undefined): Promise<SplitRule[] | null> {
    // Read on every charge, changed rarely: cached (configChanges forgets it on a change).
    // A submerchant that may not charge is not kept: made active, it charges at once everywhere.
    const account = await chargeAccounts.get(`${ctx.merchantId}:${ctx.environment}`, () => repo.findAccountWithSettings(db, scopeOf(ctx)), (a) => !a.parentId || a.status === "active");
    if (!account) throw new AppError("unauthorized", "Unauthorized");
    if (account.parentId && ctx.environment === "production" && account.status !== "active") {
      throw new AppError("submerchant_not_active", `Submerchant ${account.id} is not active (${publicStatus(account.status ?? "pending")}); only active submerchants can create production charges`);
    }
    if (split && split.length > 0) {
      await checkSplitRules(db, ctx, account, split, "split");
      return withHoldDays(split);
    }
    if (split === undefined && account.defaultSplit && account.defaultSplit.length > 0) {
      await checkSplitRules(db, ctx, account, account.defaultSplit, "defaultSplit");
      return withHoldDays(account.defaultSplit);
    }
    return null;
  }

  /** The rules as the charge keeps them: each recipient's holdDays of the moment (the ledger holds its share that long). */
  async function withHoldDays(rules: SplitRule[]): Promise<SplitRule[]> {
    const days = await repo.holdDaysOf(db, rules.map((r) => r.merchantId));
    return rules.map(({ holdDays: _ignored, ...r }) => ((days.get(r.merchantId) ?? 0) > 0 ? { ...r, holdDays: days.get(r.merchantId)! } : r));
  }

  /** PATCH holdDays, for an already-found submerchant of the caller. */
  async function setHoldDays(s: repo.SubmerchantRow, holdDays: number): Promise<repo.SubmerchantRow> {
    return (await repo.setHoldDays(db, s.id, holdDays)) ?? s;
  }

  /** resend-webhook: 422 for a charge of a submerchant that is not active. */
  async function checkCanResend(merchantId: string): Promise<void> {
    const [account] = await repo.findAccounts(db, [merchantId]);
    if (account?.parentId && account.status !== "active") {
      throw invalid(`Submerchant ${merchantId} is inactive (status ${publicStatus(account.status ?? "pending")}): webhooks of its charges cannot be resent until it is active`);
    }
  }

  /**
   * POST /v1/admin/submerchants/{id}/status: one guarded move of the table, with its timestamp;
   * pre_approved and active need the required documents. The notification {merchantId, status,
   * date} (no event name, date in UTC) is recorded in the same transaction and delivered to the postbackUrl.
   */
  async function setStatus(id: string, to: Exclude<SubmerchantStatus, "pending">, reason: string | undefined) {
    const current = await repo.findSubmerchantForAdmin(db, id);
    if (!current) throw notFound("Submerchant", id);
    const from = current.status;
    assertSubmerchantTransition(id, from, to);
    if (NEEDS_DOCUMENTS.includes(to)) {
      const { missing } = documentsView(id, await repo.listDocuments(db, id));
      if (missing.length > 0) {
        throw new AppError("invalid_state", `Submerchant ${id} cannot become ${to}: required documents missing: ${missing.join(", ")}`);
      }
    }
    const at = now();
    const stamp = STAMP_OF[to];
    // Whether the submerchant may charge in production is part of its cached account.
    const updated = await deps.configChanges.change(db, async (tx) => {
      const row = await repo.transition(tx, id, from, to, { statusReason: reason ?? null, ...(stamp ? { [stamp]: at } : {}) });
      if (!row) throw new AppError("conflict", `Submerchant ${id} was changed by another request; retry`);
      if (NOTIFIED.includes(to)) {
        await recordEvent(tx, {
          merchantId: id, environment: row.environment, type: "submerchant.status_changed", objectId: id,
          data: { merchantId: id, status: to, date: at.toISOString() }, postbackUrl: row.postbackUrl,
        });
      }
      return row;
    });
    return view(updated, (await repo.totalSales(db, [id], updated.environment)).get(id) ?? 0);
  }

  return {
    requireConnect, requireMaster, ownSubmerchant, viewOne, setHoldDays, create, list, get, apiKeys, feesInfo,
    getSettings, putSettings, chargeSettlement, checkCharge, providerAccounts, chargeSellers, sellerAccount, checkCanResend, setStatus,
  };
}

export type ConnectService = ReturnType<typeof createConnectService>;
export type { PublicSubmerchantStatus };

const SALES_ROLLUP_BATCH = 5000;

/**
 * The worker task connect.sales-rollup: folds the charges' sales tail into the submerchants'
 * running counts (migration 0021), in statements of `batch` rows while a batch comes back full.
 * totalSales is exact whether it ran or not; it keeps the tail that totalSales reads short.
 */
export function salesRollupTask(db: Db, batch = SALES_ROLLUP_BATCH): Task {
  return {
    name: "connect.sales-rollup",
    intervalMs: 5_000,
    run: async () => {
      let total = 0;
      for (;;) {
        const n = await repo.rollUpSales(db, batch);
        total += n;
        if (n < batch) return total;
      }
    },
  };
}
