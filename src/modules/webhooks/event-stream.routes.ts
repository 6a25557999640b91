import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors } from "../../http/schemas.js";
import { STREAM_DEFAULTS, type EventStreams } from "./event-stream.js";

export const StreamHeaders = Type.Object({
  "last-event-id": Type.Optional(Type.String({
    pattern: "^evt_[0-9a-z]{1,40}$",
    description: "Resume after this event: the id of the last event received (EventSource sends it when it reconnects).",
  })),
});

const STREAM_EXAMPLE = [
  "id: evt_01jd3k5x7m9q2r4t6v8w0y2z4a",
  "event: charge.paid",
  `data: ${JSON.stringify({ id: "evt_01jd3k5x7m9q2r4t6v8w0y2z4a", event: "charge.paid", livemode: false, data: { id: "ch_01jd3m7q2w4e6r8t0y2v4x6z8b", status: "paid", amount: 12000, net: 11881, currency: "BRL", payment_method: { type: "pix" }, paid_at: "2026-11-23T12:03:10.000Z" } })}`,
  "",
  ": heartbeat",
  "",
].join("\n");

export function eventStreamRoutes(streams: EventStreams) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const ends = new Set<() => void>();
    // Fastify's close waits for open connections; a stream never ends by itself, so end them.
    app.addHook("preClose", async () => {
      for (const end of ends) end();
    });

    app.get("/v1/events/stream", {
      schema: {
        operationId: "streamEvents", tags: ["events"], summary: "Stream new events (server-sent events)",
        description:
          "Keeps the connection open and sends each new event of this merchant and environment as it is recorded, as `text/event-stream`: `id` is the event id, `event` its type and `data` the body a webhook endpoint receives. A comment line every 15 s keeps proxies from closing the connection. Send `Last-Event-ID` to resume after an event (EventSource does it when it reconnects). `feira listen` uses this route to forward events to a local URL. At most 5 open streams per merchant and environment, counted across every API process; the slot of a stream whose process died frees itself within 45 s.",
        headers: StreamHeaders,
        response: {
          200: {
            description: "An endless stream of events.",
            // A media-level example: swagger-ui shows it instead of "string".
            content: { "text/event-stream": { schema: Type.String(), example: STREAM_EXAMPLE } },
          },
          ...errors(401, 403, 422, { 429: `At most ${STREAM_DEFAULTS.maxPerScope} event streams may be open per merchant and environment; close one first` }),
        },
      },
    }, async (req, reply) => {
      const stream = await streams.start(req.ctx, req.headers["last-event-id"], (chunk) => reply.raw.write(chunk));
      // The client may have gone while the slot was taken: give it back at once.
      if (req.raw.destroyed || reply.raw.destroyed) {
        stream.stop();
        return reply.hijack();
      }
      reply.hijack();
      reply.raw.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
        "x-request-id": req.id,
      });
      reply.raw.write("retry: 1000\n\n");
      const end = () => {
        stream.stop();
        ends.delete(end);
        if (!reply.raw.writableEnded) reply.raw.end();
      };
      ends.add(end);
      reply.raw.once("close", end);
    });
  };
}
