import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// Every temporary directory a test makes is removed when its process exits (the suite's runner
// puts many test files in one process), whatever the test did with it. A process killed outright never gets
// there: so each directory carries its creation time in its name, and the first one a later test
// process makes removes those older than any test file lives, as test/helpers/db.ts drops stale
// test databases. Names without the time are never touched.
const STALE_AFTER_S = 6 * 3600;
const NAME = /^feira-[a-z]+(?:-[a-z]+)*-t(\d{10})-[A-Za-z0-9]{6}$/;
const made: string[] = [];
let swept = false;

process.once("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Removes the test directories under `root` whose name says they are older than STALE_AFTER_S; returns their names. */
export function sweepStaleTempDirs(root = os.tmpdir(), nowMs = Date.now()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const created = NAME.exec(name)?.[1];
    if (!created || nowMs / 1000 - Number(created) <= STALE_AFTER_S) continue;
    rmSync(path.join(root, name), { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

/** A new directory under the system's temporary directory, removed when this process exits. `prefix` is `feira-<words>-`. */
export function tempDir(prefix = "feira-test-"): string {
  if (!swept) {
    swept = true;
    sweepStaleTempDirs();
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}t${Math.floor(Date.now() / 1000)}-`));
  made.push(dir);
  return dir;
}
