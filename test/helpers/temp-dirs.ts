import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

// Every temporary directory a test makes is removed when its process exits (the suite's runner
// puts many test files in one process), whatever the test did with it. A process killed outright
// never gets there: so each directory carries its creation time and its process's pid in its name,
// and the first one a later test process makes removes those whose process is gone, and those
// older than any test file lives (a pid may be reused), as test/helpers/db.ts drops stale test
// databases. Names without the time are never touched.
const STALE_AFTER_S = 6 * 3600;
const NAME = /^feira-[a-z]+(?:-[a-z]+)*-t(\d{10})(?:-p(\d+))?-[A-Za-z0-9]{6}$/;
const made: string[] = [];
let swept = false;

process.once("exit", () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** Whether a process of this pid runs (signal 0 checks without sending; EPERM: it runs, as another user). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Removes the test directories under `root` whose name says their process is gone or that they are
 * older than STALE_AFTER_S; returns their names.
 */
export function sweepStaleTempDirs(root = os.tmpdir(), nowMs = Date.now()): string[] {
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const [, created, pid] = NAME.exec(name) ?? [];
    if (!created) continue;
    const stale = nowMs / 1000 - Number(created) > STALE_AFTER_S;
    if (!stale && (pid === undefined || pidAlive(Number(pid)))) continue;
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
  const dir = mkdtempSync(path.join(os.tmpdir(), `${prefix}t${Math.floor(Date.now() / 1000)}-p${process.pid}-`));
  made.push(dir);
  return dir;
}
