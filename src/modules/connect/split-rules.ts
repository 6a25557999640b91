import type { Queryable } from "../../db/client.js";
import { AppError, invalid } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import type { SplitRule } from "../ledger/index.js";
import { findAccounts, type ConnectAccount } from "./connect.repo.js";
import { publicStatus } from "./submerchant-status.js";

export type { SplitRule };

// Who may receive a share of whose charges: all participants belong to one Connect
// (a master and its submerchants); master -> submerchant, submerchant -> master and
// submerchant -> submerchant of the same master. Messages name the rule: "split.0.merchantId".

const rootOf = (a: Pick<ConnectAccount, "id" | "parentId">) => a.parentId ?? a.id;

/**
 * Each rule has exactly one of percentage (> 0, at most two decimals) and amount (> 0; its
 * decimals are the charge's currency's, checked with the charge); percentages sum to at most
 * 100; no self, no repeats. Whether fixed amounts fit is the charge's to check (its net).
 */
function checkShape(originatorId: string, rules: readonly SplitRule[], field: string): void {
  const seen = new Set<string>();
  let basisPoints = 0;
  for (const [i, rule] of rules.entries()) {
    if ((rule.percentage === undefined) === (rule.amount === undefined)) {
      throw invalid(`${field}.${i}.${rule.amount === undefined ? "percentage" : "amount"}: a rule has exactly one of percentage and amount`);
    }
    if (rule.amount !== undefined && !(rule.amount > 0)) throw invalid(`${field}.${i}.amount must be greater than 0`);
    if (rule.percentage !== undefined) {
      const bp = Math.round(rule.percentage * 100);
      if (!(rule.percentage > 0) || Math.abs(bp - rule.percentage * 100) > 1e-6) {
        throw invalid(`${field}.${i}.percentage must be greater than 0 with at most 2 decimals`);
      }
      basisPoints += bp;
    }
    if (rule.merchantId === originatorId) throw invalid(`${field}.${i}.merchantId is the charging merchant itself; its share is the remainder`);
    if (seen.has(rule.merchantId)) throw invalid(`${field}.${i}.merchantId ${rule.merchantId} appears twice`);
    seen.add(rule.merchantId);
  }
  if (basisPoints > 10_000) throw invalid(`${field} percentages add up to more than 100`);
}

export async function checkSplitRules(
  q: Queryable, ctx: Pick<RequestCtx, "environment">, originator: ConnectAccount, rules: readonly SplitRule[], field: string,
): Promise<void> {
  checkShape(originator.id, rules, field);
  if (rules.length === 0) return;
  const root = rootOf(originator);
  const accounts = new Map((await findAccounts(q, [root, ...rules.map((r) => r.merchantId)])).map((a) => [a.id, a]));
  if (!accounts.get(root)?.connectEnabled) throw invalid(`${field} needs Connect, which is not enabled for this merchant's account`);
  for (const [i, rule] of rules.entries()) {
    const recipient = accounts.get(rule.merchantId);
    // A submerchant exists only in the environment that registered it: from any other it is
    // answered exactly like a stranger, so the answer reveals nothing of the other environment.
    const elsewhere = recipient?.environment != null && recipient.environment !== ctx.environment;
    if (!recipient || elsewhere || rootOf(recipient) !== root) {
      throw invalid(`${field}.${i}.merchantId ${rule.merchantId} is not part of this merchant's Connect`);
    }
    // A submerchant may transact only once its KYC is approved (the spec): a pending, pre-approved,
    // rejected or blocked one receives no share, in the sandbox as in production, so that a split
    // tried in the sandbox is refused exactly as it would be live.
    if (recipient.parentId && recipient.status !== "active") {
      const status = publicStatus(recipient.status ?? "pending");
      throw new AppError("submerchant_not_active", `${field}.${i}.merchantId ${rule.merchantId} is not an active submerchant (${status}); a share goes only to a submerchant whose KYC is approved`);
    }
  }
}
