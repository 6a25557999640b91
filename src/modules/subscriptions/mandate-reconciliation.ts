import type { Db } from "../../db/client.js";
import { mandatesByProviderRef, openLiveMandates, updateMandate, type MandateRow } from "./mandates.repo.js";
import type { SubscriptionService } from "./subscriptions.service.js";

// Live mandates change at their processor (the payer's bank approves, rejects, lets it expire or
// cancels it): feira learns it from a notice that only names the recurrence, or, when the notice
// is lost, from this reconciliation. Both read the recurrence back and apply what it is now
// (subscriptions.service applyProviderState); nothing is taken from a notice's body.

/** Open live mandates read back per run: the task runs every minute, so a lost notice is found within minutes. */
const BATCH = 50;

export function createMandateReconciliation(deps: { db: Db; service: Pick<SubscriptionService, "applyProviderState"> }) {
  const { db } = deps;

  async function apply(m: MandateRow) {
    const outcome = await deps.service.applyProviderState(m);
    // Read now, whatever it said: the next run takes the mandates read longest ago first.
    if (outcome !== "unknown") await updateMandate(db, m.id, {});
  }

  /**
   * A processor's notice naming recurrences (by its references): the mandates feira has under them
   * are read back; references feira does not know change nothing. Recurring charges (`debits`) are
   * not read here: each period's debit is a charge, read back by the charges' own reconciliation.
   */
  async function notice(_processor: string, refs: { mandates?: readonly string[] }) {
    for (const m of await mandatesByProviderRef(db, refs.mandates ?? [])) await apply(m);
  }

  /** One reconciliation pass: the open live mandates read longest ago. */
  async function run(): Promise<number> {
    const rows = await openLiveMandates(db, BATCH);
    for (const m of rows) await apply(m);
    return rows.length;
  }

  return { notice, run };
}
