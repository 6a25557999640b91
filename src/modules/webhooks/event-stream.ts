import { and, count, eq, lt, sql } from "drizzle-orm";
import { withTx, type Db } from "../../db/client.js";
import { inScope } from "../../db/scope.js";
import { eventStreams } from "../../db/schema.js";
import { AppError } from "../../core/errors.js";
import type { RequestCtx } from "../../core/context.js";
import { newId } from "../../lib/ids.js";
import * as repo from "./events.repo.js";
import { buildBody } from "./payload.js";

// The merchant's new events as server-sent events, for `feira listen` and any EventSource.
// Each stream polls the events table (indexed by merchant, environment, id); ids sort by
// creation time, so "id > cursor" finds what is new. An event's id is made before its
// transaction commits, so one can appear after a later id was already sent: each poll looks
// back LOOKBACK_MS and skips the ids it already sent. A transaction slower than that is missed
// by a live stream (it is still in GET /v1/events and still delivered to endpoints).

export interface EventStreamOptions {
  pollMs: number;
  heartbeatMs: number;
  lookbackMs: number;
  /** Open streams per merchant and environment, across every API process; more get 429. */
  maxPerScope: number;
}

export const STREAM_DEFAULTS: EventStreamOptions = { pollMs: 250, heartbeatMs: 15_000, lookbackMs: 5_000, maxPerScope: 5 };
const PAGE = 100;
const MAX_PAGES_PER_POLL = 10;

export interface EventStream { stop(): void }

/** The lowest id that could have been made at `ms`: "evt_" and the id's 10 time characters. */
const idFloorAt = (ms: number) => newId("evt", Math.max(0, ms)).slice(0, 14);

export function frame(row: repo.EventRow): string {
  // JSON.stringify never emits a raw newline, so the body is one `data:` line.
  return `id: ${row.id}\nevent: ${row.type}\ndata: ${buildBody(row)}\n\n`;
}

export function createEventStreams(deps: { db: Db; options?: Partial<EventStreamOptions> }) {
  const opts = { ...STREAM_DEFAULTS, ...deps.options };
  const open = new Map<string, Set<EventStream>>();

  // A stream's slot lives this long without renewal: the slot of a process that died frees itself.
  const slotTtl = () => sql`now() + make_interval(secs => ${(opts.heartbeatMs * 3) / 1000}::float8)`;

  /**
   * Takes one of the merchant's slots in the database, so the limit holds behind any number of
   * API processes: counted and taken under a transaction-scoped advisory lock of the scope.
   */
  async function claimSlot(ctx: RequestCtx, id: string): Promise<boolean> {
    const scope = inScope(eventStreams, ctx);
    return withTx(deps.db, async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`feira_event_streams:${ctx.merchantId}:${ctx.environment}`}))`);
      await tx.delete(eventStreams).where(and(scope, lt(eventStreams.expiresAt, sql`now()`)));
      const [row] = await tx.select({ n: count() }).from(eventStreams).where(scope);
      if ((row?.n ?? 0) >= opts.maxPerScope) return false;
      await tx.insert(eventStreams).values({ id, merchantId: ctx.merchantId, environment: ctx.environment, expiresAt: slotTtl() });
      return true;
    });
  }

  async function start(ctx: RequestCtx, lastEventId: string | undefined, write: (chunk: string) => void): Promise<EventStream> {
    const key = `${ctx.merchantId}:${ctx.environment}`;
    const slot = newId("req");
    if (!(await claimSlot(ctx, slot))) {
      throw new AppError("rate_limited", `At most ${opts.maxPerScope} event streams may be open per merchant and environment; close one first`);
    }
    const streams = open.get(key) ?? new Set<EventStream>();
    let lastRenewal = Date.now();
    // Without Last-Event-ID the stream starts now; with it, right after that event.
    const startAfter = lastEventId ?? idFloorAt(Date.now());
    let highest = startAfter;
    const sent = new Set<string>();
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let lastWrite = Date.now();
    const send = (chunk: string) => {
      write(chunk);
      lastWrite = Date.now();
    };

    async function poll() {
      const window = idFloorAt(Date.now() - opts.lookbackMs);
      let after = highest < window ? highest : window;
      if (after < startAfter) after = startAfter;
      for (const id of sent) if (id <= after) sent.delete(id);
      for (let page = 0; page < MAX_PAGES_PER_POLL && !stopped; page++) {
        const rows = await repo.eventsAfter(deps.db, ctx, after, PAGE);
        for (const row of rows) {
          if (sent.has(row.id) || stopped) continue;
          sent.add(row.id);
          if (row.id > highest) highest = row.id;
          send(frame(row));
        }
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1]!.id;
      }
      if (Date.now() - lastWrite >= opts.heartbeatMs) send(": heartbeat\n\n");
      if (Date.now() - lastRenewal >= opts.heartbeatMs / 3) {
        lastRenewal = Date.now();
        await deps.db.update(eventStreams).set({ expiresAt: slotTtl() }).where(eq(eventStreams.id, slot));
      }
    }

    const loop = () => {
      if (stopped) return;
      timer = setTimeout(() => {
        // A failed poll (e.g. the database restarting) is retried on the next tick.
        poll().then(loop, loop);
      }, opts.pollMs);
    };
    const stream: EventStream = {
      stop() {
        stopped = true;
        clearTimeout(timer);
        streams.delete(stream);
        if (streams.size === 0) open.delete(key);
        // Best effort: a slot not deleted (the database unreachable) expires on its own.
        deps.db.delete(eventStreams).where(eq(eventStreams.id, slot)).catch(() => undefined);
      },
    };
    streams.add(stream);
    open.set(key, streams);
    loop();
    return stream;
  }

  return { start, openCount: () => [...open.values()].reduce((n, s) => n + s.size, 0) };
}

export type EventStreams = ReturnType<typeof createEventStreams>;
