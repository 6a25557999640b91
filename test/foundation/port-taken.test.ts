import { test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import net from "node:net";
import { migratedDataDir } from "../helpers/db.js";
import { childEnv, freePort, nodeMain } from "../helpers/process.js";
// run-suite: waits: feira as processes

// The first start prints the admin key and the demo merchant's keys once. If the port is
// taken, the process must stop before making them, so that the next start shows them instead
// of them being lost for good. The data directory holds the migrated, empty database (the keys
// are made on an empty database, migrated or not): no initdb in each of the two starts.
test("a taken port stops the first start before any key is made; the next start prints them", { timeout: 300_000 }, async () => {
  const dataDir = await migratedDataDir();
  const blocker = net.createServer();
  const port = await freePort();
  await new Promise<void>((resolve) => blocker.listen(port, "127.0.0.1", resolve));
  try {
    const first = await nodeMain(childEnv({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn" }));
    assert.equal(await first.exited, 1, first.output());
    assert.match(first.stderr(), /EADDRINUSE/);
    assert.doesNotMatch(first.output(), /sk_test_|Admin key/, "no key printed by the start that failed");
  } finally {
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
  }
  const second = await nodeMain(childEnv({ DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: "warn" }));
  try {
    await second.waitFor(/sandbox key:\s+sk_test_[A-Za-z0-9]+/);
    assert.match(second.stderr(), /Admin key \(shown once, store it\): adm_/);
  } finally {
    await second.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
