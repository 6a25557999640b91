import type { Db } from "../../../db/client.js";
import { createLeasedBudget, type LeaseStore } from "../../../core/key-limit.js";
import { clientAddressKey } from "../../../lib/client-address.js";
import type { ProviderSync } from "./provider-sync.js";
import { findLiveCharge } from "./provider-sync.repo.js";

// What a provider notice may cost feira's providers. Some providers sign nothing (anyone can
// send their notices) and a signed notice, once seen, can be replayed within its window; each
// one that names a live charge makes feira read the payment at the provider. Two bounds keep a flood of
// notices from turning into a flood of provider calls (which the provider would answer with
// 429s, or count against feira's account):
//
// - Per charge, reads are coalesced in this process: one read at a time, and notices that come
//   during it share a single read after it (a notice may announce a change the running read
//   started too early to see). Any number of notices for one charge that find a read running
//   cost one more read, whenever each of them arrives during it.
// - A read that would start is counted per client address and in all, per second, with the
//   per-key limit's leased budgets (shared by the API processes on PostgreSQL). Past either,
//   the notice is answered 429: the provider retries it later, and the reconciliation reads the
//   charge anyway.
//
// Notices that name no live charge never reach a provider and are not counted.

export interface NoticeLimits {
  perSecond: number;
  perAddressPerSecond: number;
}

export type Admission = { admitted: true } | { admitted: false; retryInMs: number };

/** One read of a charge: counted against the address of the notice that asked for it, then made. */
interface Round {
  done: Promise<Admission>;
  start(): void;
}

interface Slot {
  running: Round;
  /** The read after the running one, which notices arriving meanwhile share. */
  queued?: Round;
}

export function createNoticeGate(deps: { db: Db; sync: Pick<ProviderSync, "syncByReference">; store: LeaseStore; limits: NoticeLimits }) {
  const { store, limits } = deps;
  const all = createLeasedBudget(store, { prefix: "notice_all", points: limits.perSecond, durationMs: 1000 });
  const perAddress = createLeasedBudget(store, { prefix: "notice_ip", points: limits.perAddressPerSecond, durationMs: 1000 });
  const slots = new Map<string, Slot>();
  let waiting = 0;

  /** Spends one read of the address's budget and one of the global; the wait when refused. */
  async function take(ip: string): Promise<number> {
    const mine = await perAddress.take(clientAddressKey(ip));
    if (!mine.allowed) return Math.max(1, mine.msBeforeNext);
    const global = await all.take("all");
    return global.allowed ? 0 : Math.max(1, global.msBeforeNext);
  }

  function round(ip: string, read: () => Promise<unknown>): Round {
    let start!: () => void;
    const done = new Promise<void>((resolve) => { start = resolve; }).then(async (): Promise<Admission> => {
      const waitMs = await take(ip);
      if (waitMs > 0) return { admitted: false, retryInMs: waitMs };
      await read();
      return { admitted: true };
    });
    return { done, start };
  }

  // Runs a charge's reads one after the other until none is queued.
  async function drive(key: string, slot: Slot): Promise<void> {
    for (;;) {
      slot.running.start();
      await slot.running.done.catch(() => undefined); // its notices get the error
      if (!slot.queued) {
        slots.delete(key);
        return;
      }
      slot.running = slot.queued;
      slot.queued = undefined;
    }
  }

  /** The read of charge `key` this notice waits for: a new one, or the queued one it joins. */
  function admit(key: string, ip: string, read: () => Promise<unknown>): Promise<Admission> {
    const slot = slots.get(key);
    if (slot?.queued) return slot.queued.done;
    const next = round(ip, read);
    if (slot) {
      slot.queued = next;
      return next.done;
    }
    const fresh: Slot = { running: next };
    slots.set(key, fresh);
    void drive(key, fresh);
    return next.done;
  }

  return {
    /**
     * A notice of `processor` naming `refs` (feira's charge id or the provider's id, most precise
     * first), from `ip`: the first that names a live charge of that processor is read again at
     * the provider, within the bounds above. Unknown references cost one indexed read of feira's
     * own database and nothing else.
     */
    async notice(processor: string, refs: readonly string[], ip: string): Promise<Admission> {
      for (const ref of refs) {
        const charge = await findLiveCharge(deps.db, processor, ref);
        if (!charge) continue;
        waiting++;
        try {
          return await admit(charge.id, ip, () => deps.sync.syncByReference(processor, [ref]));
        } finally {
          waiting--;
        }
      }
      return { admitted: true };
    },
    /** Notices of this process waiting for their charge's read (shown in /metrics). */
    waiting: () => waiting,
  };
}

export type NoticeGate = ReturnType<typeof createNoticeGate>;
