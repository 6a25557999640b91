import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createHttpClient, type HttpClient } from "../../src/processors/http-client.js";

// The client's classification over real sockets: what each failure proves about whether the
// provider received the request.

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

async function serve(handler: Handler): Promise<{ url: string; server: Server; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c));
    req.on("end", () => {
      seen.push(`${req.method} ${req.url} ${body}`);
      handler(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/base`, server, seen };
}

const close = (s: Server) => new Promise<void>((r) => { s.closeAllConnections(); s.close(() => r()); });

function client(baseUrl: string, logs: string[] = [], timeoutMs = 2_000): HttpClient {
  return createHttpClient({
    baseUrl, timeoutMs, headers: { authorization: "Basic c2tfc2VjcmV0Og==" },
    mapError: (status, body) => ({ providerCode: String((body as { code?: unknown } | null)?.code ?? status), message: `mapped ${status}` }),
    log: (l) => logs.push(JSON.stringify(l)),
  });
}

test("a 2xx JSON answer is returned parsed, with path, query, headers and body as sent", async () => {
  const { url, server, seen } = await serve((req, res) => {
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ auth: req.headers.authorization, key: req.headers["idempotency-key"] }));
  });
  const logs: string[] = [];
  const c = client(url, logs);
  try {
    const r = await c.call({ method: "POST", path: "/orders", query: { code: "ch_1", skip: undefined }, body: { card: { number: "4000000000000010", cvv: "123" } }, headers: { "idempotency-key": "k1" } });
    assert.deepEqual(r, { ok: true, status: 200, body: { auth: "Basic c2tfc2VjcmV0Og==", key: "k1" } });
    assert.equal(seen[0], 'POST /base/orders?code=ch_1 {"card":{"number":"4000000000000010","cvv":"123"}}');
    // The log line names the path and status, never the body, the query or a header.
    assert.equal(logs.length, 1);
    assert.doesNotMatch(logs[0]!, /4000000000000010|123"|c2tf|code=/);
  } finally {
    await c.close();
    await close(server);
  }
});

test("statuses: 429 and 5xx keep the status, 4xx carries only the mapped code and message", async () => {
  const statuses = [429, 503, 422];
  const { url, server } = await serve((_req, res) => {
    res.statusCode = statuses.shift()!;
    res.end(JSON.stringify({ code: "E42", message: "raw provider text with 4000000000000010" }));
  });
  const c = client(url);
  try {
    const r429 = await c.call({ method: "GET", path: "/x" });
    assert.equal(!r429.ok && r429.failure.kind, "http_429");
    const r503 = await c.call({ method: "GET", path: "/x" });
    assert.deepEqual(!r503.ok && { kind: r503.failure.kind, status: r503.failure.status }, { kind: "http_5xx", status: 503 });
    const r422 = await c.call({ method: "GET", path: "/x" });
    assert.ok(!r422.ok);
    assert.deepEqual(r422.failure, { kind: "http_4xx", status: 422, message: "mapped 422", providerCode: "E42" });
  } finally {
    await c.close();
    await close(server);
  }
});

test("a refused connection is connection_refused: provably nothing sent", async () => {
  const { url, server } = await serve(() => undefined);
  await close(server);
  const c = client(url);
  try {
    const r = await c.call({ method: "POST", path: "/orders", body: {} });
    assert.equal(!r.ok && r.failure.kind, "connection_refused");
  } finally {
    await c.close();
  }
});

test("a server that hangs is a timeout, bounded by the per-call timeout", async () => {
  const { url, server, seen } = await serve(() => undefined);
  const c = client(url, [], 300);
  try {
    const started = Date.now();
    const r = await c.call({ method: "POST", path: "/orders", body: {} });
    assert.equal(!r.ok && r.failure.kind, "timeout");
    assert.ok(Date.now() - started < 2_000);
    assert.equal(seen.length, 1, "the request was received: a timeout proves nothing");
  } finally {
    await c.close();
    await close(server);
  }
});

test("a socket closed after the request was received is lost, not refused", async () => {
  const { url, server, seen } = await serve((req) => req.socket.destroy());
  const c = client(url);
  try {
    const r = await c.call({ method: "POST", path: "/orders", body: {} });
    assert.equal(!r.ok && r.failure.kind, "lost");
    assert.equal(seen.length, 1);
  } finally {
    await c.close();
    await close(server);
  }
});

test("a 2xx that is not JSON is a bad_response", async () => {
  const { url, server } = await serve((_req, res) => res.end("<html>proxy</html>"));
  const c = client(url);
  try {
    const r = await c.call({ method: "GET", path: "/x" });
    assert.equal(!r.ok && r.failure.kind, "bad_response");
  } finally {
    await c.close();
    await close(server);
  }
});
