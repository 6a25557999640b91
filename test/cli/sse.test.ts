import assert from "node:assert/strict";
import { test } from "node:test";
import { readSse } from "../../src/cli/sse.js";

// The CLI's reader of server-sent events, fed the way a socket delivers: in arbitrary pieces.
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      controller.close();
    },
  });
}

test("reads events split across chunks, skips comments and retry lines, joins multi-line data", async () => {
  const events = [];
  for await (const e of readSse(body("retry: 1000\n\n: heartbeat\n\nid: evt_1\nev", "ent: charge.paid\ndata: {\"a\":1}\n", "\nid: evt_2\r\nevent: x\r\ndata: line one\r\ndata: line two\r\n\r\n"))) {
    events.push(e);
  }
  assert.deepEqual(events, [
    { id: "evt_1", event: "charge.paid", data: "{\"a\":1}" },
    { id: "evt_2", event: "x", data: "line one\nline two" },
  ]);
});
