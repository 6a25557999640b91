import { withTx, type Db, type Queryable } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { AppError } from "../../core/errors.js";
import type { Scope } from "../../db/scope.js";
import { addDays } from "./billing.js";
import type { BillingEngine, StepResult } from "./billing-engine.js";
import * as repo from "./subscriptions.repo.js";

// The sandbox test clock: a per-merchant offset (sandbox_clocks) by which its sandbox time runs
// ahead of real time. The billing engine takes "now" from it for sandbox subscriptions, so a year
// of renewals, a dunning sequence or a trial end can be run in seconds. Advancing walks through
// every step that falls due in the window in time order (each at its own simulated time, as
// Stripe's test clocks do), synchronously, and then leaves the clock at the target.
const DAY_MS = 86_400_000;
const MAX_STEPS = 20_000;

export function createSandboxClock(deps: { db: Db; engine: BillingEngine; leaseMs: number; now?: () => Date }) {
  const { db, engine } = deps;
  const realNow = deps.now ?? (() => new Date());
  const listeners: ((scope: Scope) => Promise<unknown>)[] = [];
  const forbidden = () => new AppError("forbidden", "Forbidden: the test clock moves sandbox time only; use a sandbox (sk_test_) key");

  async function read(ctx: RequestCtx) {
    if (ctx.environment !== "sandbox") throw forbidden();
    const offset = await repo.clockOffset(db, ctx.merchantId);
    return { now: new Date(realNow().getTime() + offset).toISOString(), offsetDays: offset / DAY_MS, actions: [] as ReturnType<typeof wire>[] };
  }

  const wire = (r: StepResult) => ({ ...r, at: r.at.toISOString() });

  async function advance(ctx: RequestCtx, days: number) {
    if (ctx.environment !== "sandbox") throw forbidden();
    const target = addDays(await engine.clockNow(db, ctx), days);
    const actions: StepResult[] = [];
    const moveTo = (at: Date, q: Queryable = db) => repo.raiseClockOffset(q, ctx.merchantId, at.getTime() - realNow().getTime());
    let waits = 0;
    for (let i = 0; i < MAX_STEPS; i++) {
      const next = await repo.nextDueAt(db, ctx.merchantId, target);
      if (!next) break;
      const current = await engine.clockNow(db, ctx);
      const at = next > current ? next : current;
      // The clock moves and the steps it makes due are claimed in one transaction: a worker's
      // claim by the merchant's clock (mode "clocks") sees the new time only with the claims
      // taken, so every step of the window is billed here and listed in the answer.
      const claimed = await withTx(db, async (tx) => {
        await moveTo(at, tx);
        return repo.claimDue(tx, { limit: 50, leaseMs: deps.leaseMs, mode: { merchantId: ctx.merchantId, dueBy: at } });
      });
      if (claimed.length === 0) {
        // Due but claimed by a worker right now: it bills them; wait for it, boundedly.
        if (++waits > 250) break;
        await new Promise((r) => setTimeout(r, 20));
        continue;
      }
      actions.push(...(await engine.runClaimed(claimed, async () => at)));
    }
    await moveTo(target);
    // Other modules' sandbox deadlines that the new time passed (a dispute's evidenceDueBy).
    for (const passed of listeners) await passed(ctx);
    const offset = await repo.clockOffset(db, ctx.merchantId);
    return { now: target.toISOString(), offsetDays: offset / DAY_MS, actions: actions.map(wire) };
  }

  /** Registers what runs, before advance answers, on the merchant's sandbox once its clock moved (wired when the app is built). */
  function onAdvance(listener: (scope: Scope) => Promise<unknown>): void {
    listeners.push(listener);
  }

  return { advance, read, onAdvance };
}

export type SandboxClock = ReturnType<typeof createSandboxClock>;
