import { setTimeout as sleep } from "node:timers/promises";
import { EVENT_CATALOG, EVENT_TYPES, isEventType } from "../modules/webhooks/catalog.js";
import { webhookHeaders } from "../modules/webhooks/signing.js";
import { basicAuth, type Connection } from "./api.js";
import { readSse, type SseEvent } from "./sse.js";

export interface ListenOptions {
  connection: Connection;
  forwardTo: string;
  secret: string;
  /** Only these event types; all when empty. */
  events: string[];
  /** Also the events that go only to postback URLs, never to endpoints (the legacy charge.updated). */
  includePostbackEvents: boolean;
  print: (line: string) => void;
  signal: AbortSignal;
}

/** Event types that go only to postback URLs: a webhook endpoint never receives them. */
export const POSTBACK_ONLY_EVENTS: readonly string[] = EVENT_TYPES.filter((t) => !EVENT_CATALOG[t].toEndpoints);
export const INCLUDE_POSTBACK_FLAG = "--include-postback-events";

// Like `stripe listen`: stream the merchant's events and POST each to a local URL, signed with
// the local secret as a webhook endpoint would be, one line per event with the receiver's answer.
// The stream carries every event of the merchant; what is forwarded is what an endpoint would
// receive, so a handler is not written for charge.updated, which only postback URLs get.
// A dropped stream reconnects after a second and resumes after the last event it saw.
export async function listen(o: ListenOptions): Promise<void> {
  let lastEventId: string | undefined;
  let announced = false;
  while (!o.signal.aborted) {
    try {
      const res = await fetch(new URL("/v1/events/stream", o.connection.baseUrl), {
        headers: { authorization: basicAuth(o.connection.apiKey), accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
        signal: o.signal,
      });
      if (res.status === 401 || res.status === 403) {
        throw new FatalError(`The server refused the key (${res.status}): ${await res.text()}\nRun \`feira login\` with a sandbox secret key.`);
      }
      if (res.status !== 200 || !res.body) throw new Error(`stream answered ${res.status}: ${await res.text()}`);
      if (!announced) {
        o.print(`Ready! Forwarding events to ${o.forwardTo}. Your webhook signing secret is ${o.secret} (^C to quit)`);
        if (!o.includePostbackEvents) {
          o.print(`Forwarding what a webhook endpoint receives: not ${POSTBACK_ONLY_EVENTS.join(" or ")}, which go only to postback URLs (${INCLUDE_POSTBACK_FLAG} forwards them too).`);
        }
        announced = true;
      } else {
        o.print("Reconnected.");
      }
      for await (const event of readSse(res.body)) {
        if (event.id) lastEventId = event.id;
        if (o.events.length > 0 && !o.events.includes(event.event)) continue;
        // A type this CLI does not know (a newer server) is forwarded: it cannot tell.
        if (!o.includePostbackEvents && isEventType(event.event) && !EVENT_CATALOG[event.event].toEndpoints) continue;
        o.print(await forward(o, event));
      }
    } catch (err) {
      if (err instanceof FatalError) throw err;
      if (o.signal.aborted) return;
      o.print(`Stream interrupted (${(err as Error).message}); reconnecting...`);
    }
    await sleep(1000, undefined, { signal: o.signal }).catch(() => undefined);
  }
}

export class FatalError extends Error {}

async function forward(o: ListenOptions, event: SseEvent): Promise<string> {
  const id = event.id ?? `msg_${Date.now()}`;
  const head = `${new Date().toISOString().replace("T", " ").slice(0, 19)}  --> ${event.event} [${id}]`;
  const started = Date.now();
  try {
    const res = await fetch(o.forwardTo, {
      method: "POST",
      headers: webhookHeaders(o.secret, id, Math.floor(Date.now() / 1000), event.data),
      body: event.data,
      signal: AbortSignal.any([o.signal, AbortSignal.timeout(10_000)]),
    });
    await res.body?.cancel();
    return `${head}  <-- [${res.status}] POST ${o.forwardTo} (${Date.now() - started} ms)`;
  } catch (err) {
    return `${head}  <-- [error] POST ${o.forwardTo}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`;
  }
}
