import { dueInstant, latestDueDay } from "../../lib/due-days.js";
import type { AccountCapability, ProviderTransfers, TransferBooks } from "../accounts.js";
import type { ProcessorRecords } from "../processor.js";

// The simulator's sellers' accounts: active at once under an id derived from the submerchant, so
// provider settlement runs offline end to end. The simulator pays each seller exactly the shares
// feira computed and keeps no books: what it holds for a seller is what feira booked there, so its
// reconciliation always agrees, and it pays on any schedule feira can express.

const OPERATION = "provider_transfer";

type Made = { id: string; amountMinor: number; createdAt: string };

// Records are JSON: what was stored is read back as the transfer it was stored from.
const asMade = (r: Record<string, unknown>): Made => ({ id: String(r.id), amountMinor: Number(r.amountMinor), createdAt: String(r.createdAt) });

const listed = (made: (Made | undefined)[]): ProviderTransfers => ({
  outcome: "read",
  transfers: made.filter((m): m is Made => m !== undefined && m.amountMinor > 0)
    .map((m) => ({ id: m.id, amountMinor: m.amountMinor, createdAt: new Date(m.createdAt) })),
});

/** The schedule's due day before `day` that is one of its days (after it was set), if any. */
function dayBefore(schedule: NonNullable<TransferBooks["schedule"]>, day: string, from: Date | null): string | null {
  const before = latestDueDay(schedule, new Date(dueInstant(day).getTime() - 1));
  return from && dueInstant(before) <= from ? null : before;
}

/**
 * The seller's transfer of the latest due day of its schedule on the clock it is given (the test
 * clock, 06:00 Brasília as feira's own schedules; the first due day after the schedule was set),
 * as Pagar.me's transfer_settings pay the recipient's balance to its bank. It is made at the
 * first read on or after that 06:00, of the whole balance then, if it is above zero and reaches
 * the minimum; otherwise the day has none. It is recorded once per (account, day) in `records`,
 * so a re-read (a crash before feira committed it, another worker) answers the same id and
 * amount. What the seller holds is what feira booked there, less the previous due day's transfer
 * if feira has not booked it yet (a worker about to commit it, or one that died first): that one
 * is listed again with the new one, so it is recorded then, and the two never take the same money.
 */
async function dayTransfer(records: ProcessorRecords, externalId: string, books: TransferBooks): Promise<ProviderTransfers> {
  const schedule = books.schedule;
  if (!schedule) return listed([]);
  const day = latestDueDay(schedule, books.now);
  if (books.scheduleFrom && dueInstant(day) <= books.scheduleFrom) return listed([]);
  const key = (d: string) => `${externalId}:${d}`;
  const previousDay = dayBefore(schedule, day, books.scheduleFrom);
  const stored = previousDay ? await records.find(OPERATION, key(previousDay)) : undefined;
  const previous = stored && asMade(stored);
  const made = await records.once(OPERATION, key(day), async () => {
    // Whether the previous one is booked is asked before the figure is read: a commit in between
    // lowers the figure, so the transfer can come out short (the rest waits a day), never over.
    const unbooked = previous && previous.amountMinor > 0 && !(await books.recorded(previous.id)) ? previous.amountMinor : 0;
    const held = (await books.booked()) - unbooked;
    const amountMinor = held > 0 && held >= schedule.minimumAmount ? held : 0;
    const made: Made = { id: `tr_${externalId}_${day.replaceAll("-", "")}`, amountMinor, createdAt: books.now.toISOString() };
    return made;
  });
  return listed([previous, asMade(made)]);
}

export function sandboxAccounts(records: ProcessorRecords): AccountCapability {
  return {
    check: () => [],
    shown: () => ({}),
    open: async (holder) => ({ outcome: "active", externalId: `acct_sandbox_${holder.code}`, providerStatus: "active" }),
    find: async (holder) => ({ outcome: "active", externalId: `acct_sandbox_${holder.code}`, providerStatus: "active" }),
    // The schedule is feira's own (the submerchant's payoutSchedule), handed back with each read.
    transfers: { check: () => null, apply: async () => ({ outcome: "applied" }) },
    transfersDone: (externalId, books) => dayTransfer(records, externalId, books),
    balance: async ({ currency, booked }) => ({ outcome: "read", amountMinor: booked, currency }),
  };
}
