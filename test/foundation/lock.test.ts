import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { lockDataDir } from "../../src/db/lock.js";
import { childEnv, nodeMain, tempDir } from "../helpers/process.js";

// PGlite admits one process per data directory; the lock file keeps a second one out and is
// taken over when the process that left it is gone. (PGlite only: with DATABASE_URL there is
// no lock, so these tests do not depend on the suite's engine.)

const lockFile = (dir: string) => path.join(dir, "feira.lock");

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid!;
}

test("lockDataDir writes this pid, and the returned function removes the lock", () => {
  const dir = path.join(tempDir(), "nested", "data"); // created when missing
  const unlock = lockDataDir(dir);
  assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid));
  unlock();
  assert.equal(existsSync(lockFile(dir)), false);
});

test("a lock held by another live process is refused with a message that says what to do", () => {
  const dir = tempDir();
  writeFileSync(lockFile(dir), String(process.ppid)); // the test runner: certainly alive
  assert.throws(() => lockDataDir(dir), (err: Error) => {
    assert.match(err.message, new RegExp(`The data directory ${dir} is in use by another feira process \\(pid ${process.ppid}\\)`));
    assert.match(err.message, /use another DATA_DIR/);
    assert.match(err.message, /DATABASE_URL/);
    return true;
  });
  assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.ppid), "the other process keeps its lock");
});

test("a stale lock left by a dead process is taken over", async () => {
  const dir = tempDir();
  writeFileSync(lockFile(dir), String(await deadPid()));
  const unlock = lockDataDir(dir);
  assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid));
  unlock();
});

test("an empty or garbled lock file (a crash while writing it) is taken over", () => {
  for (const content of ["", "not a pid", "-1", "0"]) {
    const dir = tempDir();
    writeFileSync(lockFile(dir), content);
    const unlock = lockDataDir(dir);
    assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid), `content ${JSON.stringify(content)}`);
    unlock();
  }
});

test("a server started on a DATA_DIR locked by a live process exits 1 with the clear message", async () => {
  const dir = tempDir();
  const unlock = lockDataDir(dir); // held by this test process
  try {
    const server = nodeMain(childEnv({ DATA_DIR: dir, PORT: "0" }));
    assert.equal(await server.exited, 1, server.output());
    assert.match(server.stderr(), new RegExp(`feira failed to start: The data directory ${dir} is in use by another feira process \\(pid ${process.pid}\\)`));
    assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid), "the refused server leaves the lock alone");
  } finally {
    unlock();
  }
});
