import type { Db } from "../../db/client.js";
import { mandatesByProviderRef, openLiveMandates, updateMandate, type MandateRow } from "./mandates.repo.js";
import type { SubscriptionService } from "./subscriptions.service.js";

// Live mandates change at their processor (the payer's bank approves, rejects, lets it expire or
// cancels it): feira learns it from a notice that only names the recurrence, or, when the notice
// is lost, from this reconciliation. Both read the recurrence back and apply what it is now
// (subscriptions.service applyProviderState); nothing is taken from a notice's body.

/** Open live mandates read back per run. */
const BATCH = 50;
/**
 * How long a mandate's read stands: the reconciliation reads each open live mandate once per
 * interval (the task's), not on every run. A run that read every mandate due and changed none
 * reports no work, so the worker waits its interval instead of reading them again at once (it
 * read 2 open mandates 140 times a second when every read counted as work).
 */
export const MANDATE_RECHECK_MS = 60_000;

export function createMandateReconciliation(deps: { db: Db; service: Pick<SubscriptionService, "applyProviderState"> }) {
  const { db } = deps;

  /** Reads one mandate back and applies it; true when that changed it. */
  async function apply(m: MandateRow): Promise<boolean> {
    const { changed } = await deps.service.applyProviderState(m);
    // Read now, whatever it said (no answer too): it is due again one interval later, and the
    // next run takes the mandates read longest ago first.
    await updateMandate(db, m.id, {});
    return changed;
  }

  /**
   * A processor's notice naming recurrences (by its references): the mandates feira has under them
   * are read back; references feira does not know change nothing. Recurring charges (`debits`) are
   * not read here: each period's debit is a charge, read back by the charges' own reconciliation.
   */
  async function notice(_processor: string, refs: { mandates?: readonly string[] }) {
    for (const m of await mandatesByProviderRef(db, refs.mandates ?? [])) await apply(m);
  }

  /**
   * One reconciliation pass at `at`: the open live mandates not read for an interval, longest ago
   * first. Its work is what changed, or a full batch (more may be due now).
   */
  async function run(at: Date = new Date()): Promise<number> {
    const rows = await openLiveMandates(db, BATCH, new Date(at.getTime() - MANDATE_RECHECK_MS));
    let changed = 0;
    for (const m of rows) if (await apply(m)) changed++;
    return rows.length === BATCH ? rows.length : changed;
  }

  return { notice, run };
}
