import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { readSse, type SseEvent } from "../../src/cli/sse.js";
import { basic, buildTestApp, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { cardCharge, CARDS, createCharge } from "../helpers/charges.js";

// GET /v1/events/stream over a real socket: what a stream sends, from where it resumes, and
// that it shows nothing of another merchant or environment.
let t: TestApp;
let url: string;
let m: SeededMerchant;
let other: SeededMerchant;

before(async () => {
  t = await buildTestApp();
  url = await t.app.listen({ port: 0, host: "127.0.0.1" });
  m = await seedMerchant(t);
  other = await seedMerchant(t);
});
after(() => t.close());

async function open(key: string, lastEventId?: string) {
  const stop = new AbortController();
  const res = await fetch(`${url}/v1/events/stream`, {
    headers: { authorization: basic(key), ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    signal: stop.signal,
  });
  const events = res.body ? readSse(res.body) : undefined;
  return {
    res,
    /** The next `n` events (heartbeats are skipped by the reader). */
    async take(n: number): Promise<SseEvent[]> {
      const out: SseEvent[] = [];
      while (out.length < n) {
        const next = await events!.next();
        if (next.done) throw new Error(`stream ended after ${out.length} event(s)`);
        out.push(next.value);
      }
      return out;
    },
    close: () => stop.abort(),
  };
}

test("streams new events of the key's merchant and environment, as webhook bodies", async () => {
  const stream = await open(m.sandboxKey);
  try {
    assert.equal(stream.res.status, 200);
    assert.match(stream.res.headers.get("content-type") ?? "", /^text\/event-stream/);
    await createCharge(t, other.sandboxKey, cardCharge(CARDS.visa)); // another merchant
    await createCharge(t, m.productionKey, cardCharge(CARDS.visa)).catch(() => undefined); // another environment
    const charge = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
    const events = await stream.take(2);
    for (const e of events) {
      const body = JSON.parse(e.data) as { id: string; event: string; livemode: boolean; data: { id: string } };
      assert.equal(body.id, e.id);
      assert.equal(body.event, e.event);
      assert.equal(body.livemode, false);
      assert.equal(body.data.id, charge.id, "only this merchant's sandbox charge");
    }
    assert.deepEqual(events.map((e) => e.event).sort(), ["charge.created", "charge.paid"]);
  } finally {
    stream.close();
  }
});

test("Last-Event-ID resumes right after that event", async () => {
  const first = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  const second = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  const list = await t.app.inject({ method: "GET", url: "/v1/events?limit=100", headers: { authorization: basic(m.sandboxKey) } });
  const ids = (list.json() as { data: { id: string; objectId: string }[] }).data.reverse();
  const lastOfFirst = ids.filter((e) => e.objectId === first.id).at(-1)!.id;
  const expected = ids.filter((e) => e.id > lastOfFirst).map((e) => e.id);
  assert.ok(expected.length >= 2, "the second charge's events follow");

  const stream = await open(m.sandboxKey, lastOfFirst);
  try {
    const events = await stream.take(expected.length);
    assert.deepEqual(events.map((e) => e.id), expected);
    assert.ok(events.every((e) => (JSON.parse(e.data) as { data: { id: string } }).data.id === second.id));
  } finally {
    stream.close();
  }
});

test("needs a key, checks Last-Event-ID, and bounds open streams", async () => {
  const anonymous = await fetch(`${url}/v1/events/stream`);
  assert.equal(anonymous.status, 401, await anonymous.text());
  const bad = await fetch(`${url}/v1/events/stream`, { headers: { authorization: basic(m.sandboxKey), "last-event-id": "not an event id" } });
  assert.ok(bad.status === 422 || bad.status === 400, `${bad.status} ${await bad.text()}`);

  const streams = await Promise.all(Array.from({ length: 5 }, () => open(other.sandboxKey)));
  try {
    const sixth = await fetch(`${url}/v1/events/stream`, { headers: { authorization: basic(other.sandboxKey) } });
    // An accepted stream never ends: reading its body for the message would hang the test.
    if (sixth.status === 200) await sixth.body?.cancel();
    assert.equal(sixth.status, 429, sixth.status === 200 ? "a sixth stream was opened" : await sixth.text());
  } finally {
    for (const s of streams) s.close();
  }
});

test("closing the server ends open streams instead of waiting for them", async () => {
  const own = await buildTestApp();
  const ownUrl = await own.app.listen({ port: 0, host: "127.0.0.1" });
  const merchant = await seedMerchant(own);
  const res = await fetch(`${ownUrl}/v1/events/stream`, { headers: { authorization: basic(merchant.sandboxKey) } });
  assert.equal(res.status, 200);
  const reading = (async () => { for await (const _ of readSse(res.body!)) { /* until the server ends it */ } })();
  await own.close(); // would hang here if the stream kept the connection open
  await reading;
});
