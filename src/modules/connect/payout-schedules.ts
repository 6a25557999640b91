import { systemCtx, type RequestCtx } from "../../core/context.js";
import { AppError } from "../../core/errors.js";
import { withTx, type Db, type Queryable } from "../../db/client.js";
import type { Scope } from "../../db/scope.js";
import type { Task } from "../../jobs/runner.js";
import { faultPoint } from "../../lib/faults.js";
import { derivedSeed } from "../../lib/ids.js";
import type { LedgerService } from "../ledger/index.js";
import type { SubmerchantRow } from "./connect.repo.js";
import { dueInstant, latestDueDay, nextDueAt, parseSchedule, type PayoutScheduleInput } from "./payout-schedule.js";
import * as repo from "./payout-schedules.repo.js";
import type { PayoutService } from "./payouts.service.js";
import type { ProviderAccountService } from "./provider-accounts.service.js";

// Payout schedules in platform settlement (docs/guarantees.md; the rules of days and times
// are in payout-schedule.ts). A worker task claims the submerchants whose due time has come (by
// real time, or in the sandbox by the master's test clock, whose advance runs it too) and
// requests, through the payout requests' own path, the payout of the whole available balance.
// Exactly once per submerchant and day: the payout's id is derived from (submerchant, day), so a
// second worker, a restart, or a run taken over after a crash finds the first request instead of
// making a second; the next due time is written only after the request is committed.
export interface PayoutScheduleDeps {
  db: Db;
  payouts: Pick<PayoutService, "create">;
  ledger: Pick<LedgerService, "availableBalance">;
  /** "now" for a scope: real time, or the master's test clock in the sandbox (late-bound: the clock's module is made after this one). */
  clockNow(q: Queryable, scope: Scope): Promise<Date>;
  /** How long a claimed run may take before another worker takes it over: more than a payout's send. */
  leaseMs: number;
  /** The schedule as the automatic transfers of the submerchant's accounts at processors (provider settlement). */
  atProviders?: Pick<ProviderAccountService, "checkSchedule" | "applySchedule">;
  now?: () => Date;
}

const BATCH = 20;
const JOB = "payouts.schedule";

export function createPayoutSchedules(deps: PayoutScheduleDeps) {
  const { db } = deps;
  const realNow = deps.now ?? (() => new Date());
  const masterScope = (s: SubmerchantRow): Scope => ({ merchantId: s.parentId, environment: s.environment });

  /** PATCH's payoutSchedule, for an already-found submerchant of the caller: its first due time from the caller's clock. */
  async function set(ctx: RequestCtx, s: SubmerchantRow, input: PayoutScheduleInput): Promise<SubmerchantRow> {
    const schedule = parseSchedule(input);
    await deps.atProviders?.checkSchedule(ctx, s.id, schedule);
    const now = await deps.clockNow(db, ctx);
    const due = schedule ? nextDueAt(schedule, now) : null;
    const saved = (await repo.setSchedule(db, s.id, schedule, now, due)) ?? s;
    await deps.atProviders?.applySchedule(ctx, s.id, schedule);
    return saved;
  }

  /**
   * One claimed submerchant's run: the payout for the latest due day (a missed day is not paid
   * on its own: the balance is paid once, under the latest day), then the next due time.
   * A balance below the minimum, or a submerchant that cannot be paid (not active), skips the
   * day. Returns whether a payout was requested.
   */
  async function runOne(s: SubmerchantRow): Promise<boolean> {
    const schedule = s.payoutSchedule;
    if (!schedule || !s.payoutDueAt) return false;
    const now = await deps.clockNow(db, masterScope(s));
    const day = latestDueDay(schedule, now);
    const ctx = systemCtx(masterScope(s), JOB, derivedSeed(s.id, `payout-schedule:${day}`, dueInstant(day)));
    let paid = false;
    if (s.status === "active") {
      const available = await withTx(db, (tx) => deps.ledger.availableBalance(tx, { owner: s.id, environment: s.environment, currency: s.currency }));
      if (available > 0 && available >= schedule.minimumAmount) paid = await request(ctx, s.id, available);
    }
    faultPoint("payout.schedule.after-request");
    await repo.completeRun(db, s.id, s.payoutDueAt, nextDueAt(schedule, now));
    return paid;
  }

  /**
   * The day's request, under its derived id: a request made by an earlier run of the day is
   * answered as it is (create's id check comes before any other). A refusal (the balance taken
   * meanwhile, a fee above it) skips the day: nothing was written.
   */
  async function request(ctx: RequestCtx, submerchantId: string, amount: number): Promise<boolean> {
    try {
      await deps.payouts.create(ctx, submerchantId, amount);
      return true;
    } catch (err) {
      if (err instanceof AppError && err.statusCode < 500) return false;
      throw err;
    }
  }

  /** Claims and runs due schedules: all masters (the worker), or one master's sandbox (its clock's advance). */
  async function runDue(master?: string): Promise<number> {
    let n = 0;
    for (;;) {
      const claimed = await repo.claimDue(db, { now: realNow(), limit: BATCH, leaseMs: deps.leaseMs, ...(master ? { master } : {}) });
      for (const s of claimed) {
        await runOne(s);
        n++;
      }
      if (claimed.length < BATCH) return n;
    }
  }

  // Run at the worker's start too: a due day missed while no worker ran is paid at once.
  const task = (intervalMs: number): Task => ({ name: JOB, intervalMs, run: () => runDue() });

  return { set, runDue, task };
}

export type PayoutSchedules = ReturnType<typeof createPayoutSchedules>;
