// The process helper of the crash and topology tests (test/helpers/feira-process.ts) waits for a
// started server's /health. A port chosen free can be bound by another test file's server first;
// that server's /health must not be taken for this one's (the child fails with EADDRINUSE). And a
// process a failed test never stopped must not keep its test file running forever.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { feiraEntry } from "../helpers/feira-bundle.js";
import { makeStore, startFeira, type Store } from "../helpers/feira-process.js";
import { freePort } from "../helpers/process.js";
// run-suite: waits: feira as processes

let store: Store | undefined;
let second: Store | undefined;
let third: Store | undefined;
const other = http.createServer((_req, res) => res.end("{}"));
after(async () => {
  other.close();
  await store?.close();
  await second?.close();
  await third?.close();
});

test("a port another server answers on is not taken for the started process's", { timeout: 240_000 }, async () => {
  const port = await freePort();
  await new Promise<void>((resolve) => other.listen(port, "127.0.0.1", resolve));
  store = await makeStore();
  await assert.rejects(startFeira(store, { port }), /EADDRINUSE/);
});

test("nor after a first start slower than 30 s (a loaded runner's take 37-45 s)", { timeout: 240_000 }, async () => {
  // The helper believed another server's /health once its child had been starting for 30 s.
  // Here the child takes 31 s before it even loads feira, then fails to bind.
  const port = await freePort();
  const slow = http.createServer((_req, res) => res.end("{}"));
  await new Promise<void>((resolve) => slow.listen(port, "127.0.0.1", resolve));
  try {
    third = await makeStore();
    const entry = ["--import", "data:text/javascript,await new Promise((r) => setTimeout(r, 31000))", ...(await feiraEntry())];
    await assert.rejects(startFeira(third, { port, entry }), /EADDRINUSE/);
  } finally {
    slow.close();
  }
});

test("closing a store ends the processes started on it that are still running", { timeout: 240_000 }, async () => {
  second = await makeStore();
  const p = await startFeira(second);
  try {
    const closing = second;
    second = undefined;
    await closing.close();
    assert.equal(p.child.signalCode, "SIGKILL", "the process left running was killed by the store's close");
  } finally {
    await p.kill();
  }
});
