import type { Db } from "../../db/client.js";
import { AppError } from "../../http/errors.js";
import type { RequestCtx } from "../../http/context.js";
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
  /** Open streams per merchant and environment; more are refused with 429. */
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

  function start(ctx: RequestCtx, lastEventId: string | undefined, write: (chunk: string) => void): EventStream {
    const key = `${ctx.merchantId}:${ctx.environment}`;
    const streams = open.get(key) ?? new Set<EventStream>();
    if (streams.size >= opts.maxPerScope) {
      throw new AppError("rate_limited", `At most ${opts.maxPerScope} event streams may be open per merchant and environment; close one first`);
    }
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
