import { withTx, type Db, type Queryable } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { scopeOf, type Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import { calendarDate } from "../../lib/calendar.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import type { LedgerService } from "../ledger/index.js";
import { recordEvent } from "../webhooks/index.js";
import type { ConnectService } from "./connect.service.js";
import { PAYOUT_ZONE } from "./payout-schedule.js";
import * as repo from "./reconciliations.repo.js";

// Provider settlement's daily reconciliation (docs/guarantees.md): once a day per seller's
// account at a processor, the seller's balance there (what the processor holds and has not yet
// transferred to the seller's bank) is read and compared with feira's atProvider figure for
// that processor. The result is recorded under (account, currency, day), the day on Brasília's
// calendar by real time or the master's sandbox test clock: several workers, restarts and a
// crash mid-run make one row, and a mismatch's connect.balance_mismatch event commits with it.
// The task runs when the worker starts (a day missed while none ran is reconciled at once) and
// then on an interval; an account the processor did not answer for is tried again next round.

export interface ReconciliationDeps {
  db: Db;
  processors: Pick<ProcessorRegistry, "adapter">;
  ledger: Pick<LedgerService, "balanceOf">;
  connect: Pick<ConnectService, "ownSubmerchant">;
  clockNow(q: Queryable, scope: Scope): Promise<Date>;
  /** Records the account's transfers made by the processor first, so both figures leave them out. */
  beforeRead?(a: repo.ReconcilableAccount): Promise<unknown>;
}

const JOB = "connect.reconcile";
const PAGE = 50;

/** feira's atProvider figure of a seller at a processor, in cents. */
export async function bookedAtProvider(ledger: Pick<LedgerService, "balanceOf">, a: repo.ReconcilableAccount): Promise<number> {
  const b = await ledger.balanceOf({ merchantId: a.submerchantId, environment: a.environment });
  return b.atProvider.filter((x) => x.processor === a.processor && x.currency === a.currency).reduce((s, x) => s + x.amount, 0);
}

export function createReconciliations(deps: ReconciliationDeps) {
  const { db } = deps;

  /** One account's day: recorded once; returns the row this run recorded, if any. */
  async function reconcileOne(a: repo.ReconcilableAccount): Promise<repo.ReconciliationRow | undefined> {
    const scope: Scope = { merchantId: a.parentId, environment: a.environment };
    const capability = deps.processors.adapter(a.environment, a.processor)?.accounts;
    if (!capability?.balance) return undefined;
    const now = await deps.clockNow(db, scope);
    const day = calendarDate(now, PAYOUT_ZONE);
    const key = { submerchantId: a.submerchantId, processor: a.processor, currency: a.currency, day };
    if (await repo.reconciled(db, key)) return undefined;
    await deps.beforeRead?.(a);
    const feiraAmount = await bookedAtProvider(deps.ledger, a);
    const read = await capability.balance({ externalId: a.externalId, currency: a.currency, booked: feiraAmount });
    // No answer: the next round asks again. A recipient the processor no longer knows holds nothing.
    if (read.outcome === "unknown") return undefined;
    const processorAmount = read.outcome === "read" ? read.amountMinor : 0;
    const status = processorAmount === feiraAmount ? "matched" as const : "mismatch" as const;
    return withTx(db, async (tx) => {
      const row = await repo.insertReconciliation(tx, { ...key, parentId: a.parentId, environment: a.environment, feiraAmount, processorAmount, status, checkedAt: now });
      if (row && status === "mismatch") {
        await recordEvent(tx, {
          merchantId: a.parentId, environment: a.environment, type: "connect.balance_mismatch", objectId: a.submerchantId,
          data: { submerchantId: a.submerchantId, processor: a.processor, currency: a.currency, day, feiraAmount, processorAmount, difference: processorAmount - feiraAmount },
        });
      }
      return row;
    });
  }

  /** Every active account's day (all masters), or one master's sandbox (its clock's advance). */
  async function runDue(master?: string): Promise<number> {
    let n = 0;
    let after: { submerchantId: string; processor: string } | undefined;
    for (;;) {
      const page = await repo.activeAccounts(db, { limit: PAGE, ...(after ? { after } : {}), ...(master ? { master } : {}) });
      for (const a of page) if (await reconcileOne(a)) n++;
      if (page.length < PAGE) return n;
      const last = page.at(-1)!;
      after = { submerchantId: last.submerchantId, processor: last.processor };
    }
  }

  /** GET /v1/submerchants/{id}/reconciliation: the last result per processor and currency. */
  async function last(ctx: RequestCtx, submerchantId: string) {
    const sm = await deps.connect.ownSubmerchant(ctx, submerchantId);
    const rows = await repo.lastReconciliations(db, scopeOf(ctx), sm.id);
    return { submerchantId: sm.id, accounts: rows.map(view) };
  }

  const task = (intervalMs: number): Task => ({ name: JOB, intervalMs, run: () => runDue() });
  return { runDue, last, task };
}

export const view = (r: repo.ReconciliationRow) => ({
  processor: r.processor, currency: r.currency, day: r.day, status: r.status,
  feiraAmount: r.feiraAmount, processorAmount: r.processorAmount, difference: r.processorAmount - r.feiraAmount,
  checkedAt: r.checkedAt.toISOString(),
});

export type Reconciliations = ReturnType<typeof createReconciliations>;
