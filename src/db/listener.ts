import { setTimeout as sleep } from "node:timers/promises";
import type pg from "pg";

// LISTEN belongs to one session: when its connection is lost (the primary failed over, a
// restart, a network cut) nothing is heard until it is made again on the new primary. The
// listener reconnects by itself, with a growing pause, and after each re-LISTEN calls
// `onNotify("")` once: notifications sent while it was away are gone, and every caller treats
// any payload as "look again" (the outbox's wake-up, the key cache's forget), so that one call
// covers them all. The callers' polling and TTLs cover the gap itself.

/** The application_name of a session LISTENing on `channel`, so the listeners can be counted (config-changes.ts). */
export const listenerName = (channel: string) => `feira listen ${channel}`;

export interface ListenerEvents {
  /** A lost LISTEN connection was made again. */
  onRelisten?(): void;
}

export async function listenForever(
  connect: () => pg.Client, channel: string, onNotify: (payload: string) => void, events: ListenerEvents = {},
): Promise<() => Promise<void>> {
  let stopped = false;
  let client: pg.Client | undefined;

  async function session(): Promise<void> {
    const c = connect();
    client = c;
    // This session's end only: a late error of an older client must not end the new one.
    let lost: () => void = () => undefined;
    const gone = new Promise<void>((resolve) => { lost = resolve; });
    c.on("error", () => lost());
    c.on("end", () => lost());
    c.on("notification", (n) => { if (n.channel === channel) onNotify(n.payload ?? ""); });
    try {
      await c.connect();
      await c.query(`listen ${channel}`);
    } catch (err) {
      client = undefined;
      await c.end().catch(() => undefined);
      throw err;
    }
    void gone.then(() => { if (!stopped) void again(); });
  }

  async function again(): Promise<void> {
    const old = client;
    client = undefined;
    await old?.end().catch(() => undefined);
    for (let pause = 100; !stopped; pause = Math.min(pause * 2, 2_000)) {
      await sleep(pause);
      if (stopped) return;
      try {
        await session();
        events.onRelisten?.();
        onNotify("");
        return;
      } catch {
        // the next pause, and again
      }
    }
  }

  await session();
  return async () => {
    stopped = true;
    await client?.end().catch(() => undefined);
  };
}
