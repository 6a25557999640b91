import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { lockDataDir } from "../../src/db/lock.js";
import { bundledModule } from "../helpers/feira-bundle.js";
import { childEnv, nodeMain, tempDir } from "../helpers/process.js";
// run-suite: waits: feira as processes (the data directory's lock)

// PGlite admits one process per data directory; the lock file keeps a second one out and is
// taken over when the process that left it is gone. (PGlite only: with DATABASE_URL there is
// no lock, so these tests do not depend on the suite's engine.)

const lockFile = (dir: string) => path.join(dir, "feira.lock");

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid!;
}

test("lockDataDir writes this pid, and the returned function removes the lock", async () => {
  const dir = path.join(tempDir(), "nested", "data"); // created when missing
  const unlock = await lockDataDir(dir);
  assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid));
  unlock();
  assert.equal(existsSync(lockFile(dir)), false);
});

test("a lock held by another live process is refused with a message that says what to do", async () => {
  const dir = tempDir();
  writeFileSync(lockFile(dir), String(process.ppid)); // the test runner: certainly alive
  await assert.rejects(() => lockDataDir(dir), (err: Error) => {
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
  const unlock = await lockDataDir(dir);
  assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid));
  unlock();
});

test("an empty or garbled lock file (a crash while writing it) is taken over", async () => {
  for (const content of ["", "not a pid", "-1", "0"]) {
    const dir = tempDir();
    writeFileSync(lockFile(dir), content);
    const unlock = await lockDataDir(dir);
    assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid), `content ${JSON.stringify(content)}`);
    unlock();
  }
});

test("a server started on a DATA_DIR locked by a live process exits 1 with the clear message", async () => {
  const dir = tempDir();
  const unlock = await lockDataDir(dir); // held by this test process
  try {
    const server = await nodeMain(childEnv({ DATA_DIR: dir, PORT: "0" }));
    assert.equal(await server.exited, 1, server.output());
    assert.match(server.stderr(), new RegExp(`feira failed to start: The data directory ${dir} is in use by another feira process \\(pid ${process.pid}\\)`));
    assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid), "the refused server leaves the lock alone");
  } finally {
    unlock();
  }
});

/**
 * A child that tries to lock `dir`, prints won or lost, and holds a won lock until killed. It
 * imports the bundle of src/db/lock.ts: through tsx each of the 16 contenders cost about 1 s of CPU.
 */
async function contender(dir: string) {
  const code = `import(${JSON.stringify(await bundledModule("src/db/lock.ts"))}).then(async ({ lockDataDir }) => {
    try { await lockDataDir(${JSON.stringify(dir)}); console.log("won"); setInterval(() => {}, 1000); }
    catch (e) { console.log(e.constructor.name === "DataDirInUse" ? "lost" : "error " + e.message); process.exit(0); }
  });`;
  const child = spawn(process.execPath, ["-e", code], { cwd: path.resolve(import.meta.dirname, "../.."), stdio: ["ignore", "pipe", "inherit"] });
  const verdict = new Promise<string>((resolve) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
    child.once("exit", () => resolve(out.trim() || "exited"));
  });
  return { child, verdict };
}

test("two starts racing for one data directory: exactly one wins, every time, even over a stale lock file", async () => {
  for (let round = 0; round < 5; round++) {
    const dir = tempDir();
    // A stale file from a dead process makes both contenders take the takeover path at once.
    if (round % 2 === 1) writeFileSync(lockFile(dir), String(await deadPid()));
    const racers = await Promise.all([contender(dir), contender(dir), contender(dir)]);
    const verdicts = await Promise.all(racers.map((r) => r.verdict));
    for (const r of racers) r.child.kill("SIGKILL");
    await Promise.all(racers.map((r) => (r.child.exitCode === null && r.child.signalCode === null ? once(r.child, "exit") : undefined)));
    assert.deepEqual([...verdicts].sort(), ["lost", "lost", "won"], `round ${round}: ${verdicts.join(", ")}`);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a holder killed with SIGKILL leaves no lock behind that blocks the next start", async () => {
  const dir = tempDir();
  const first = await contender(dir);
  assert.equal(await first.verdict, "won");
  first.child.kill("SIGKILL");
  await once(first.child, "exit");
  const unlock = await lockDataDir(dir);
  assert.equal(readFileSync(lockFile(dir), "utf8"), String(process.pid));
  unlock();
  rmSync(dir, { recursive: true, force: true });
});

test("the data directory is 0700 and everything in it 0600 for files (and 0700 for folders) after a start", async () => {
  const dir = tempDir();
  const loose = path.join(dir, "left-by-an-old-version.txt");
  writeFileSync(loose, "x", { mode: 0o666 });
  const server = await nodeMain(childEnv({ DATA_DIR: dir, PORT: "0" }));
  try {
    await server.waitFor(/feira started/);
    const modes: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const full = path.join(d, e.name);
        const mode = statSync(full).mode & 0o777;
        if (e.isDirectory()) {
          if (mode !== 0o700) modes.push(`${full} ${mode.toString(8)}`);
          walk(full);
        } else if (mode !== 0o600) modes.push(`${full} ${mode.toString(8)}`);
      }
    };
    assert.equal(statSync(dir).mode & 0o777, 0o700);
    walk(dir);
    assert.deepEqual(modes, [], "files or folders open to other users");
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
