import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import net, { type AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { ConfigError, loadConfig } from "../../src/config.js";
import { buildTestApp } from "../helpers/app.js";
import { freshDatabase } from "../helpers/db.js";
import { basicAuth, childEnv, freePort, nodeMain, tempDir } from "../helpers/process.js";
import { holdsSocket, socketInodes } from "../helpers/proc-sockets.js";
// topology: skip: every app stays in-process: the tests drain, listen on and close the in-process app
// run-suite: postgres: WEB_CONCURRENCY > 1 needs PostgreSQL
// run-suite: waits: feira as processes (WEB_CONCURRENCY)

// WEB_CONCURRENCY=N runs N API processes on one port (src/cluster.ts). A process told to stop
// turns readiness off and takes no new connection (its replacement starts meanwhile), answers
// each connection it holds once more (the answer closing it), then finishes what is in flight
// and exits: a rolling restart under load loses no request.

const ON_POSTGRES = Boolean(process.env.DATABASE_URL);

async function until(what: string, ok: () => boolean, timeoutMs = 60_000, context = () => ""): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} ${context()}`);
    await sleep(50);
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** `src/main.ts` with two API processes (and a worker) on a fresh PostgreSQL database. */
async function startCluster(t: TestContext, env: Record<string, string> = {}) {
  const db = await freshDatabase();
  t.after(() => db.close());
  const port = await freePort();
  const server = await nodeMain(childEnv({
    DATABASE_URL: db.url, PORT: String(port), LOG_LEVEL: "info", WEB_CONCURRENCY: "2", RATE_LIMIT_PER_KEY: "0",
    JWT_SECRET: randomBytes(48).toString("base64"), ENCRYPTION_KEY: randomBytes(32).toString("base64"), ...env,
  }));
  t.after(() => server.stop());
  return { port, server };
}

const CLUSTER_ONLY = {
  skip: ON_POSTGRES ? false : "PostgreSQL only: the embedded database admits one process, so WEB_CONCURRENCY > 1 is refused there",
  timeout: 180_000,
};

/** A cluster whose two API processes listen: its port, output, sandbox key, and the API processes that listened, in order. */
async function servingCluster(t: TestContext) {
  const { port, server } = await startCluster(t);
  const [, key] = await server.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/, 90_000);
  const listening = () => [...server.output().matchAll(/"childPid":(\d+),"msg":"API process listening"/g)].map((m) => Number(m[1]));
  await until("two API processes", () => listening().length >= 2);
  assert.ok(key, "the first start printed the sandbox key");
  return { port, server, key, listening };
}

test("WEB_CONCURRENCY above 1 is refused on the embedded database, with the reason", () => {
  try {
    loadConfig({ DATA_DIR: tempDir(), WEB_CONCURRENCY: "2" });
    assert.fail("loadConfig accepted WEB_CONCURRENCY=2 without DATABASE_URL");
  } catch (err) {
    assert.ok(err instanceof ConfigError, String(err));
    assert.match(err.message, /WEB_CONCURRENCY=2 needs DATABASE_URL: the embedded database admits one process/);
  }
  assert.equal(loadConfig({ DATA_DIR: tempDir() }).webConcurrency, 1);
});

test("a draining process answers /health 503 and closes every connection after its answer", async (t) => {
  // startDraining() is called on this process's app, so its requests must reach it.
  const app = await buildTestApp({}, { inProcessOnly: "drains the in-process app (startDraining)" });
  t.after(() => app.close());
  const before = await app.app.inject({ method: "GET", url: "/health" });
  assert.equal(before.statusCode, 200, before.body);
  assert.notEqual(before.headers.connection, "close");
  app.app.startDraining();
  const health = await app.app.inject({ method: "GET", url: "/health" });
  assert.equal(health.statusCode, 503, health.body);
  assert.deepEqual(health.json(), { status: "unavailable" });
  assert.equal(health.headers.connection, "close");
  const ready = await app.app.inject({ method: "GET", url: "/ready" });
  assert.equal(ready.statusCode, 503, ready.body);
  const other = await app.app.inject({ method: "GET", url: "/v1/customers", headers: { authorization: basicAuth(app.admin) } });
  assert.equal(other.headers.connection, "close", "every answer, not only /health");
});

/**
 * A request begun before close() (so its connection is not idle and stays open), its `first`
 * part sent then, the `rest` after the process stopped listening: its answer, and the ends of its
 * connection and of close().
 */
async function requestAcrossClose(t: TestContext, opts: { drain: boolean; first: (key: string) => string; rest: string }) {
  const app = await buildTestApp({}, { inProcessOnly: "listens and closes the in-process app" });
  t.after(() => app.database.close());
  await app.app.listen({ port: 0, host: "127.0.0.1" });
  const { port } = app.app.server.address() as AddressInfo;
  let accepted: net.Socket | undefined;
  app.app.server.once("connection", (s: net.Socket) => { accepted = s; });
  const socket = net.connect(port, "127.0.0.1");
  let raw = "";
  socket.on("data", (chunk) => { raw += chunk.toString(); });
  const ended = new Promise<void>((resolve, reject) => { socket.on("close", () => resolve()); socket.on("error", reject); });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(opts.first(basicAuth(app.admin)));
  // The server's parser has read the request's first bytes: the connection is no longer idle.
  await until("the server to read the request's first bytes", () => (accepted?.bytesRead ?? 0) > 0);
  if (opts.drain) app.app.startDraining();
  const closed = app.app.close();
  await until("the process to stop listening", () => !app.app.server.listening);
  socket.write(opts.rest);
  await until("the answer", () => /\r\n\r\n/.test(raw));
  t.after(() => { socket.destroy(); return closed; });
  return { raw, ended, closed };
}

test("a request that reaches a closing process is served with Connection: close, not refused with 503", async (t) => {
  // What the cluster primary can do: hand a connection to a process whose close() has begun.
  // Its head is cut short: the request event comes after close() began.
  const first = (auth: string) => `GET /v1/admin/processors HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\n`;
  const { raw, ended, closed } = await requestAcrossClose(t, { drain: true, first, rest: "\r\n" });
  assert.match(raw, /^HTTP\/1\.1 200 /, raw.slice(0, 300));
  assert.match(raw, /\r\nconnection: close\r\n/i);
  await ended;
  await closed;
});

test("close() without a drain: a request in flight is served with Connection: close, and close() ends with it, not 72 s later", async (t) => {
  // A test app's close() at its file's end while a provider's notice was in flight: kept alive,
  // that connection held close() for Fastify's keep-alive timeout (72 s) after its answer.
  // Its head whole, its body cut short: Node decided to keep the connection alive before close().
  // The body lacks the merchant's required fields: the answer (422) is what matters, not its status.
  const body = JSON.stringify({ name: "Loja Aberta", email: "loja@example.com" });
  const first = (auth: string) => `POST /v1/admin/merchants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${auth}\r\n`
    + `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`;
  const { raw, ended, closed } = await requestAcrossClose(t, { drain: false, first, rest: body.slice(10) });
  assert.match(raw, /^HTTP\/1\.1 422 /, raw.slice(0, 300));
  assert.match(raw, /\r\nconnection: close\r\n/i);
  await ended;
  await closed;
});

test("WEB_CONCURRENCY=2: SIGTERM to each API process in turn, under a steady load, drops no request", CLUSTER_ONLY, async (t) => {
  const { port, server, key, listening } = await servingCluster(t);
  const original = listening().slice(0, 2);

  // Four clients, each sending one request after another on keep-alive connections.
  const failures: string[] = [];
  let answered = 0;
  let running = true;
  const client = async (n: number) => {
    for (let i = 0; running; i++) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/v1/customers`, {
          method: "POST",
          headers: { authorization: basicAuth(key), "content-type": "application/json" },
          body: JSON.stringify({ name: "Maria Silva", email: `c${n}-${i}@example.com`, documentId: "52998224725", documentType: "cpf" }),
        });
        const text = await res.text();
        if (res.status === 201) answered++;
        else failures.push(`${res.status} ${text}`);
      } catch (err) {
        failures.push(String((err as Error).cause ?? err));
      }
    }
  };
  const clients = [1, 2, 3, 4].map(client);
  const seen = () => `(answered ${answered}, failures: ${failures.slice(0, 3).join("; ")})`;
  await until("the first answers", () => answered >= 20, 60_000, seen);

  for (const pid of original) {
    const before = listening().length;
    const answeredBefore = answered;
    process.kill(pid, "SIGTERM");
    await until(`the replacement of ${pid} to listen`, () => listening().length > before, 60_000, () => server.output().slice(-2000));
    await until(`${pid} to exit`, () => !alive(pid));
    await until("answers after the restart", () => answered >= answeredBefore + 20, 60_000, seen);
  }
  running = false;
  await Promise.all(clients);

  assert.deepEqual(failures, [], `${failures.length} of ${answered + failures.length} requests failed`);
  assert.ok(answered >= 60, `answered ${answered}`);
  const now = listening().slice(-2);
  assert.ok(now.every(alive) && !now.some((p) => original.includes(p)), "two new API processes serve");
  assert.doesNotMatch(server.output(), /"level":50/, "no error was logged");
  assert.equal(await server.stop(), 0, server.output());
});

/** A raw connection to the cluster's port, and the API process (of `api`) the primary handed it to, read from /proc. */
async function connection(port: number, api: number[]) {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  let closed = false;
  socket.on("close", () => { closed = true; });
  socket.on("error", () => {});
  let pid: number | undefined;
  await until("the connection to reach an API process", () => {
    const inodes = socketInodes(port, { remote: socket.localPort! });
    pid = inodes ? api.find((p) => holdsSocket(p, inodes) === true) : undefined;
    return pid !== undefined;
  });
  return { socket, pid: pid!, closed: () => closed };
}

/** One request on a raw connection; the head of its answer once the whole answer has come. */
function ask(socket: net.Socket, key: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let raw = Buffer.alloc(0);
    const done = (end: () => void) => { socket.off("data", onData); socket.off("close", onClose); end(); };
    const onData = (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      const end = raw.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = raw.subarray(0, end).toString();
      if (raw.length >= end + 4 + Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0)) done(() => resolve(head));
    };
    const onClose = () => done(() => reject(new Error(`closed without an answer: ${raw.toString().slice(0, 200)}`)));
    socket.on("data", onData);
    socket.on("close", onClose);
    socket.write(`GET /v1/customers?limit=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basicAuth(key)}\r\n\r\n`);
  });
}

test("WEB_CONCURRENCY=2: a stopping API process answers each connection it holds, new or kept alive, before it closes it", CLUSTER_ONLY, async (t) => {
  // What dropped 2 of 151 requests of the rolling restart under load: the stopping process's
  // close() also closed every connection with no request being read, among them one the
  // primary had just handed over (its request still on the way) and a kept-alive one its client
  // was reusing. Here both kinds are held on purpose, and used only once the stop has begun.
  const { port, server, key, listening } = await servingCluster(t);
  const api = listening().slice(0, 2);
  const target = api[0]!;
  const kept: Awaited<ReturnType<typeof connection>>[] = [];
  const fresh: typeof kept = [];
  t.after(() => { for (const c of [...kept, ...fresh]) c.socket.destroy(); });
  for (let i = 0; i < 60 && (kept.length < 2 || fresh.length < 2); i++) {
    const c = await connection(port, api);
    if (c.pid !== target) c.socket.destroy();
    else if (kept.length < 2) {
      assert.match(await ask(c.socket, key), /^HTTP\/1\.1 200 /);
      kept.push(c);
    } else fresh.push(c);
  }
  assert.deepEqual([kept.length, fresh.length], [2, 2], "the primary handed connections to the process to stop");

  process.kill(target, "SIGTERM");
  const held = [...kept, ...fresh];
  const stopped = new RegExp(`"pid":${target},[^\\n]*drain: no new connections`);
  await until("the process to stop taking connections (or to close one of those it holds)", () => held.some((c) => c.closed()) || stopped.test(server.output()), 60_000);
  assert.equal(held.filter((c) => c.closed()).length, 0, "a connection was closed before its request came");
  for (const c of held) {
    const head = await ask(c.socket, key);
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.match(head, /\r\nconnection: close/i, "each answer closes its connection");
  }
  await until(`${target} to exit`, () => !alive(target));
  assert.ok(held.every((c) => c.closed()));
  assert.doesNotMatch(server.output(), /"level":50/, "no error was logged");
});

test("WEB_CONCURRENCY=2: a key rotated through one process is refused by every process within a second (NOTIFY, not the 5 s cache TTL)", {
  skip: ON_POSTGRES ? false : "PostgreSQL only: the embedded database admits one process, so WEB_CONCURRENCY > 1 is refused there",
  timeout: 120_000,
}, async (t) => {
  const adminKey = `adm_${randomBytes(16).toString("hex")}`;
  const { port, server } = await startCluster(t, { ADMIN_API_KEY: adminKey });
  const [, merchantId] = await server.waitFor(/Demo merchant (mer_\S+)/, 90_000);
  const [, key] = await server.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/);
  assert.ok(key, "the first start printed the sandbox key");
  await until("two API processes", () => (server.output().match(/"msg":"API process listening"/g) ?? []).length >= 2);
  // A fresh connection per request, so that the primary spreads them over both processes.
  const list = (k: string) => fetch(`http://127.0.0.1:${port}/v1/customers`, { headers: { authorization: basicAuth(k), connection: "close" } }).then((r) => r.status);
  for (let i = 0; i < 10; i++) assert.equal(await list(key), 200); // both processes now hold the key
  const rotated = await fetch(`http://127.0.0.1:${port}/v1/admin/merchants/${merchantId}/rotate-keys`, {
    method: "POST", headers: { authorization: basicAuth(adminKey) },
  });
  assert.equal(rotated.status, 200, await rotated.text());
  await sleep(1_000);
  const statuses = [];
  for (let i = 0; i < 10; i++) statuses.push(await list(key));
  assert.deepEqual(statuses, Array(10).fill(401));
});
