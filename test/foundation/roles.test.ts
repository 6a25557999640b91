import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { childEnv, nodeMain, tempDir } from "../helpers/process.js";
// run-suite: waits: feira as processes, by role

// The roles of src/main.ts on the embedded database, and the start-ups that must fail, saying
// why, before anything is opened or listened on. (PGlite only, whatever the suite's engine.)

// Each test is its own child process: they run side by side.
describe("src/main.ts", { concurrency: true }, () => {
  test("a bad configuration stops the start with a clear message and exit code 1", async () => {
    const server = await nodeMain(childEnv({ DATA_DIR: tempDir(), PORT: "not-a-port", NODE_ENV: "production" }));
    assert.equal(await server.exited, 1);
    const err = server.stderr();
    assert.match(err, /Invalid configuration/);
    assert.match(err, /PORT must be an integer between 0 and 65535/);
    for (const name of ["ENCRYPTION_KEY", "JWT_SECRET", "ADMIN_API_KEY"]) {
      assert.match(err, new RegExp(`${name} is required when NODE_ENV=production`));
    }
    assert.doesNotMatch(err, /\n\s+at /, "no stack trace");
  });

  test("the api and worker roles alone refuse to run on the embedded database", async () => {
    for (const role of ["api", "worker"]) {
      const dataDir = tempDir();
      const server = await nodeMain(childEnv({ DATA_DIR: dataDir }), [role]);
      assert.equal(await server.exited, 1);
      assert.match(server.stderr(), new RegExp(`The ${role} role alone needs DATABASE_URL`));
      assert.equal(existsSync(path.join(dataDir, "feira.lock")), false, "nothing was locked");
    }
  });

  test("an unknown role is refused", async () => {
    const server = await nodeMain(childEnv({ DATA_DIR: tempDir() }), ["serve"]);
    assert.equal(await server.exited, 1);
    assert.match(server.stderr(), /Unknown role "serve": use api, worker, migrate, or nothing for both api and worker/);
  });

  test("migrate applies the migrations to an empty DATA_DIR and exits 0, unlocked", async () => {
    const dataDir = tempDir();
    const server = await nodeMain(childEnv({ DATA_DIR: dataDir, LOG_LEVEL: "info" }), ["migrate"]);
    assert.equal(await server.exited, 0, server.output());
    assert.match(server.stdout(), /migrations applied/);
    assert.ok(readdirSync(dataDir).includes("PG_VERSION"), "the embedded database was created");
    assert.equal(existsSync(path.join(dataDir, "feira.lock")), false);
  });
});
