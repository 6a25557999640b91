import { withTx, type Db, type Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import { faultPoint } from "../../lib/faults.js";
import { newId } from "../../lib/ids.js";
import type { ProcessorRegistry } from "../../processors/registry.js";
import type { LedgerService } from "../ledger/index.js";
import { recordEvent } from "../webhooks/index.js";
import * as payoutsRepo from "./payouts.repo.js";
import { bookedAtProvider } from "./reconciliations.js";
import { activeAccounts, type ReconcilableAccount } from "./reconciliations.repo.js";

// Provider settlement's payouts (docs/guarantees.md, "Money in provider settlement"): the
// processor pays each seller's balance there to the seller's bank on its own schedule (the
// seller's payoutSchedule, as Pagar.me's transfer_settings). feira does not make those
// transfers; it reads the done ones back and records each as a read-only payout record
// (`source: "provider"`, approved, no fee) with the ledger's move out of the seller's atProvider
// balance and its payout.paid event, in one transaction. The record is unique on (transfer_processor, transfer_id), the
// processor's own id: several workers, restarts and a crash between the read and the commit make
// one record and one booking. The task runs on an interval and on each advance of a master's
// sandbox test clock, and the reconciliation runs an account's read before comparing its balance.
// The read is told the account's books (the scope's time, feira's atProvider figure, the
// schedule): the simulator makes its transfers from them, a processor answers from its own.

export interface ProviderTransferDeps {
  db: Db;
  processors: Pick<ProcessorRegistry, "adapter">;
  ledger: Pick<LedgerService, "postProviderTransfer" | "balanceOf">;
  /** "now" for a scope: real time, or the master's test clock in the sandbox. */
  clockNow(q: Queryable, scope: Scope): Promise<Date>;
}

const JOB = "connect.provider-transfers";
const PAGE = 50;

export function createProviderTransfers(deps: ProviderTransferDeps) {
  const { db } = deps;

  /** Records an account's done transfers not recorded yet; answers how many this call recorded. */
  async function syncAccount(a: ReconcilableAccount): Promise<number> {
    const capability = deps.processors.adapter(a.environment, a.processor)?.accounts;
    if (!capability?.transfersDone) return 0;
    const read = await capability.transfersDone(a.externalId, {
      now: await deps.clockNow(db, { merchantId: a.parentId, environment: a.environment }),
      currency: a.currency, schedule: a.schedule, scheduleFrom: a.scheduleFrom,
      booked: () => bookedAtProvider(deps.ledger, a),
      recorded: async (id) => (await payoutsRepo.findByTransfer(db, a.processor, id)) !== undefined,
    });
    // No answer: the next round asks again; nothing is booked on a guess.
    if (read.outcome !== "read") return 0;
    let n = 0;
    for (const t of read.transfers) {
      if (await payoutsRepo.findByTransfer(db, a.processor, t.id)) continue;
      faultPoint("provider-transfer.after-read");
      const recorded = await withTx(db, async (tx) => {
        const row = await payoutsRepo.insertProviderPayout(tx, {
          id: newId("po"), merchantId: a.submerchantId, parentId: a.parentId, environment: a.environment,
          amount: t.amountMinor, currency: a.currency, payoutFee: 0, netAmount: t.amountMinor, status: "approved", pixKey: "",
          source: "provider", transferProcessor: a.processor, transferId: t.id, transferStatus: "sent", processedAt: t.createdAt,
        });
        // Another worker recorded it first: it booked it too.
        if (!row) return false;
        await deps.ledger.postProviderTransfer(tx, {
          id: row.id, owner: a.submerchantId, environment: a.environment, currency: a.currency, processor: a.processor, amount: t.amountMinor,
        });
        await recordEvent(tx, {
          merchantId: row.merchantId, environment: row.environment, type: "payout.paid", objectId: row.id,
          data: {
            id: row.id, merchantId: row.merchantId, amount: row.amount, currency: row.currency, status: row.status, payoutFee: 0, netAmount: row.netAmount,
            processedAt: t.createdAt.toISOString(), endToEndId: null, reason: null, source: "provider", processor: a.processor, transferId: t.id,
          },
        });
        return true;
      });
      if (recorded) n++;
    }
    return n;
  }

  /** Every active account's transfers (all masters), or one master's sandbox. */
  async function runDue(master?: string): Promise<number> {
    let n = 0;
    let after: { submerchantId: string; processor: string } | undefined;
    for (;;) {
      const page = await activeAccounts(db, { limit: PAGE, ...(after ? { after } : {}), ...(master ? { master } : {}) });
      for (const a of page) n += await syncAccount(a);
      if (page.length < PAGE) return n;
      const last = page.at(-1)!;
      after = { submerchantId: last.submerchantId, processor: last.processor };
    }
  }

  const task = (intervalMs: number): Task => ({ name: JOB, intervalMs, run: () => runDue() });
  return { syncAccount, runDue, task };
}

export type ProviderTransfers = ReturnType<typeof createProviderTransfers>;
