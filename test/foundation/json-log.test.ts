import { test } from "node:test";
import assert from "node:assert/strict";
import { basicAuth, childDatabaseEnv, childEnv, freePort, startProcess, tempDir, waitForHttp } from "../helpers/process.js";

// Piped or redirected, the log is for log shippers: every line of stdout is one JSON object,
// from the first start on a fresh data directory to the shutdown. The first-start keys are
// readable on stderr and in no log line. `npm start --silent`, as the README says for piping
// (without --silent npm writes its own "> feira@... start" lines to stdout).

const databaseEnv = childDatabaseEnv();

test("a piped first start: stdout is pure JSON lines, the keys go to stderr and never into a log line", async (t) => {
  const port = await freePort();
  // The default log level (info): the start, each request and the shutdown are logged.
  const env = childEnv({ DATA_DIR: tempDir(), PORT: String(port), ...databaseEnv() });
  const server = startProcess("npm", ["start", "--silent"], env);
  t.after(() => server.stop());

  const [, sandboxKey] = await server.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/);
  await waitForHttp(`http://127.0.0.1:${port}/health`);
  const listed = await fetch(`http://127.0.0.1:${port}/v1/customers`, { headers: { authorization: basicAuth(sandboxKey!) } });
  assert.equal(listed.status, 200, await listed.clone().text());
  await server.waitFor(/"path":"\/v1\/customers"/, 10_000);
  assert.equal(await server.stop(), 0, server.output());

  const stderr = server.stderr();
  const adminKey = /Admin key \(shown once, store it\): (adm_[A-Za-z0-9]+)/.exec(stderr)?.[1];
  const password = /login:\s+\S+ \/ (\S+)/.exec(stderr)?.[1];
  assert.ok(adminKey && password, `the first-start lines are on stderr:\n${stderr}`);

  const lines = server.stdout().split("\n").filter((line) => line !== "");
  assert.ok(lines.length >= 3, `the start, the request and the shutdown are logged:\n${server.stdout()}`);
  const entries = lines.map((line, i) => {
    try {
      return JSON.parse(line) as { msg?: string; level?: number };
    } catch {
      return assert.fail(`stdout line ${i + 1} is not JSON: ${line}\n--- stdout\n${server.stdout()}`);
    }
  });
  assert.ok(entries.every((e) => typeof e === "object" && e !== null && typeof e.level === "number"), "each line is a log object");
  assert.ok(entries.some((e) => e.msg === "feira started"));
  for (const secret of [adminKey, sandboxKey!, password]) {
    assert.ok(!server.stdout().includes(secret), "no first-start secret in the JSON log");
  }
});
