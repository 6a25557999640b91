import { dueInstant, latestDueDay } from "../../lib/due-days.js";
import type { AccountCapability, ProviderTransfers, TransferBooks } from "../accounts.js";
import type { ProcessorRecords } from "../processor.js";

// The simulator's sellers' accounts: active at once under an id derived from the submerchant, so
// provider settlement runs offline end to end. The simulator pays each seller exactly the shares
// feira computed and keeps no books: what it holds for a seller is what feira booked there, so its
// reconciliation always agrees, and it pays on any schedule feira can express.

const OPERATION = "provider_transfer";

/**
 * The seller's transfer of the latest due day of its schedule on the clock it is given (the test
 * clock, 06:00 Brasília as feira's own schedules; the first due day after the schedule was set), as Pagar.me's transfer_settings pay the
 * recipient's balance to its bank. It is made at the first read on or after that 06:00: the whole
 * balance then (what feira booked there, with the transfers it answered before booked out), if
 * it is above zero and reaches the minimum; otherwise the day has none. It is recorded once per
 * (account, day) in `records`, so a re-read (a crash before feira committed it, another worker)
 * answers the same id and amount. Only that day's transfer is listed: one that feira had not
 * recorded when a later due day came never left, as far as feira's books go, and the later
 * transfer, made from those books, carries its money.
 */
async function dayTransfer(records: ProcessorRecords, externalId: string, books: TransferBooks): Promise<ProviderTransfers> {
  if (!books.schedule) return { outcome: "read", transfers: [] };
  const schedule = books.schedule;
  const day = latestDueDay(schedule, books.now);
  // A due day before the schedule was set is not one of its days.
  if (books.scheduleFrom && dueInstant(day) <= books.scheduleFrom) return { outcome: "read", transfers: [] };
  const made = await records.once(OPERATION, `${externalId}:${day}`, async () => {
    const amount = books.booked > 0 && books.booked >= schedule.minimumAmount ? books.booked : 0;
    return { id: `tr_${externalId}_${day.replaceAll("-", "")}`, amountMinor: amount, createdAt: books.now.toISOString() };
  });
  const { id, amountMinor, createdAt } = made as { id: string; amountMinor: number; createdAt: string };
  return { outcome: "read", transfers: amountMinor > 0 ? [{ id, amountMinor, createdAt: new Date(createdAt) }] : [] };
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
