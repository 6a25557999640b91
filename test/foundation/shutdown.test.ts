import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { migratedDataDir } from "../helpers/db.js";
import { basicAuth, childEnv, freePort, nodeMain, tempDir, waitForHttp } from "../helpers/process.js";
// run-suite: waits: feira as processes, stopped by signals

// One real server on PGlite (whatever the suite's engine: the lock file and the single-process
// rule exist only for the embedded database): a second process on its DATA_DIR is refused,
// and SIGTERM lets an in-flight request finish, exits 0 and removes the lock.

/** Sends the head and half of the body of a request, and later the rest; resolves the raw response. */
function slowRequest(port: number, head: string, body: string) {
  const socket = net.connect(port, "127.0.0.1");
  let raw = "";
  socket.on("data", (chunk) => { raw += chunk.toString(); });
  const ended = new Promise<string>((resolve, reject) => {
    socket.on("close", () => resolve(raw));
    socket.on("error", reject);
  });
  const half = Math.floor(body.length / 2);
  socket.write(`${head}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, half)}`);
  return { finish: () => socket.end(body.slice(half)), response: ended };
}

test("second process refused; SIGTERM finishes the in-flight request, exits 0 and removes the lock", async (t) => {
  const dataDir = await migratedDataDir(); // the migrated, empty database: no initdb to wait for
  const port = await freePort();
  const server = await nodeMain(childEnv({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "debug" }));
  t.after(() => server.stop());
  const [, key] = await server.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/);
  await waitForHttp(`http://127.0.0.1:${port}/health`);
  assert.equal(readFileSync(path.join(dataDir, "feira.lock"), "utf8"), String(server.child.pid));

  const second = await nodeMain(childEnv({ DATA_DIR: dataDir, PORT: String(await freePort()) }));
  assert.equal(await second.exited, 1, second.output());
  assert.match(second.stderr(), new RegExp(`is in use by another feira process \\(pid ${server.child.pid}\\)`));
  assert.equal(existsSync(path.join(dataDir, "feira.lock")), true, "the running server keeps its lock");

  const body = JSON.stringify({ name: "Em Voo", email: "voo@example.com", documentId: "52998224725", documentType: "cpf" });
  const request = slowRequest(
    port,
    `POST /v1/customers HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basicAuth(key!)}\r\nContent-Type: application/json\r\nConnection: close\r\n`,
    body,
  );
  // The server has routed the request (its head arrived) and now waits for the rest of the body.
  await server.waitFor(/"url":"\/v1\/customers".*"msg":"incoming request"/);
  server.child.kill("SIGTERM");
  await server.waitFor(/shutting down: finishing in-flight requests/);
  await sleep(200);
  assert.equal(server.child.exitCode, null, "the server waits for the in-flight request");
  request.finish();

  const response = await request.response;
  assert.match(response, /^HTTP\/1\.1 201 /, response);
  assert.match(response, /"id":"cus_/);
  assert.equal(await server.exited, 0, server.output());
  assert.equal(existsSync(path.join(dataDir, "feira.lock")), false, "the lock file is removed");
  assert.doesNotMatch(server.output(), /"level":50/, "no error was logged");
});

test("SIGTERM while the process is still starting: it finishes starting, then stops cleanly (exit 0, lock removed)", async (t) => {
  const dataDir = tempDir();
  const lock = path.join(dataDir, "feira.lock");
  const server = await nodeMain(childEnv({ DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: "info", DEMO_HISTORY: "false" }));
  t.after(() => server.stop());
  // The lock is taken before the embedded database opens and migrates: the signal lands while
  // the process starts, before it listens (a supervisor that stops a process as soon as it
  // answers /health races the same few steps).
  while (!existsSync(lock)) {
    if (server.child.exitCode !== null) assert.fail(`the server exited while starting:\n${server.output()}`);
    await sleep(5);
  }
  server.child.kill("SIGTERM");
  assert.equal(await server.exited, 0, server.output());
  assert.match(server.output(), /shutting down: finishing in-flight requests/);
  assert.equal(existsSync(lock), false, "the lock file is removed");
});
