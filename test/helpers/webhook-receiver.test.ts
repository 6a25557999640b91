import assert from "node:assert/strict";
import http from "node:http";
import { describe, it } from "node:test";
import { startReceiver } from "./webhook-receiver.js";

function post(url: string, body: string, agent?: http.Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "x-test": "1" } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("startReceiver", () => {
  it("listens on 127.0.0.1, answers 200 ok and records the request", async () => {
    const receiver = await startReceiver();
    try {
      assert.match(receiver.url, /^http:\/\/127\.0\.0\.1:\d+$/);
      const before = Date.now();
      const res = await post(`${receiver.url}/hooks?x=1`, '{"a":"ç"}');
      assert.deepEqual(res, { status: 200, body: "ok" });
      assert.equal(receiver.requests.length, 1);
      const [req] = receiver.requests;
      assert.equal(req?.method, "POST");
      assert.equal(req?.path, "/hooks?x=1");
      assert.equal(req?.body, '{"a":"ç"}');
      assert.equal(req?.headers["content-type"], "application/json");
      assert.equal(req?.headers["x-test"], "1");
      assert.ok((req?.receivedAt ?? 0) >= before);
    } finally {
      await receiver.close();
    }
  });

  it("lets respond() choose status and body per request, by 0-based index", async () => {
    const seen: number[] = [];
    const receiver = await startReceiver({
      respond: (req, index) => {
        seen.push(index);
        return index < 2 ? { status: 503, body: `fail ${index} ${req.body}` } : { status: 204 };
      },
    });
    try {
      assert.deepEqual(await post(receiver.url, "a"), { status: 503, body: "fail 0 a" });
      assert.deepEqual(await post(receiver.url, "b"), { status: 503, body: "fail 1 b" });
      assert.equal((await post(receiver.url, "c")).status, 204);
      assert.deepEqual(seen, [0, 1, 2]);
    } finally {
      await receiver.close();
    }
  });

  it("delays a response and records the request before answering", async () => {
    const receiver = await startReceiver({ respond: () => ({ status: 200, delayMs: 150 }) });
    try {
      const started = Date.now();
      let answered = false;
      const pending = post(receiver.url, "x").then((r) => { answered = true; return r; });
      // Resolved by the request's arrival, before the delay's timer can fire: no clock involved.
      await receiver.waitFor(1, 10_000);
      assert.equal(answered, false, "request visible before the delayed response");
      assert.equal((await pending).status, 200);
      assert.ok(Date.now() - started >= 140, "the answer waited for the delay");
    } finally {
      await receiver.close();
    }
  });

  it("answers 500 when respond() throws", async () => {
    const receiver = await startReceiver({ respond: () => { throw new Error("bad test"); } });
    try {
      const res = await post(receiver.url, "x");
      assert.equal(res.status, 500);
      assert.match(res.body, /bad test/);
    } finally {
      await receiver.close();
    }
  });

  it("waitFor resolves at once or when enough requests arrive", async () => {
    const receiver = await startReceiver();
    try {
      const waiting = receiver.waitFor(2, 2000);
      await post(receiver.url, "1");
      await post(receiver.url, "2");
      assert.deepEqual((await waiting).map((r) => r.body), ["1", "2"]);
      assert.equal((await receiver.waitFor(1)).length, 2);
    } finally {
      await receiver.close();
    }
  });

  it("waitFor rejects after the timeout saying how many arrived", async () => {
    const receiver = await startReceiver();
    try {
      await post(receiver.url, "only one");
      await assert.rejects(receiver.waitFor(3, 50), /expected 3 request\(s\) within 50ms, got 1/);
    } finally {
      await receiver.close();
    }
  });

  it("close ends keep-alive connections, pending delays and waiters promptly", async () => {
    const receiver = await startReceiver({ respond: (_r, i) => (i === 0 ? { status: 200 } : { status: 200, delayMs: 60_000 }) });
    const agent = new http.Agent({ keepAlive: true });
    try {
      assert.equal((await post(receiver.url, "x", agent)).status, 200);
      const stuck = post(receiver.url, "y", agent).catch((err: Error) => err);
      await receiver.waitFor(2, 1000);
      const waiting = receiver.waitFor(5, 60_000);
      const started = Date.now();
      await receiver.close();
      assert.ok(Date.now() - started < 1000, "close did not wait for idle or pending sockets");
      await assert.rejects(waiting, /closed after 2 request\(s\), waiting for 5/);
      assert.ok((await stuck) instanceof Error, "the pending request was cut off");
    } finally {
      agent.destroy();
    }
  });
});
