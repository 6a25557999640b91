import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { pidAlive, sweepStaleTempDirs, tempDir } from "./temp-dirs.js";

// The pid of a process that has exited: a child run to its end (its pid is not reused this soon).
function deadPid(): number {
  const { pid } = spawnSync(process.execPath, ["-e", ""]);
  assert.ok(pid && !pidAlive(pid));
  return pid;
}

// A test process killed outright leaves its temporary directories; a later one removes those whose
// name says were made by a process that is gone or are older than any test file lives, and nothing
// else.

test("stale test directories are removed; recent ones, and directories named otherwise, are kept", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "sweep-root-"));
  try {
    const now = Date.now();
    const at = (hoursAgo: number) => Math.floor(now / 1000 - hoursAgo * 3600);
    const names = {
      stale: `feira-crash-t${at(7)}-AbC123`,
      staleTest: `feira-test-t${at(30)}-x9y8z7`,
      recent: `feira-panel-t${at(1)}-QwErTy`,
      untimed: "feira-crash-AbC123",
      deadPid: `feira-crash-t${at(0)}-p${deadPid()}-AbC123`,
      livePid: `feira-crash-t${at(0)}-p${process.pid}-AbC123`,
      other: `someone-else-t${at(30)}-AbC123`,
    };
    for (const name of Object.values(names)) {
      mkdirSync(path.join(root, name));
      writeFileSync(path.join(root, name, "file"), "x");
    }
    assert.deepEqual(sweepStaleTempDirs(root, now).sort(), [names.stale, names.staleTest, names.deadPid].sort());
    assert.deepEqual(readdirSync(root).sort(), [names.recent, names.untimed, names.other, names.livePid].sort());
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("tempDir's names are the ones the sweep reads, with the time they were made", () => {
  const dir = tempDir("feira-sweep-check-");
  assert.ok(existsSync(dir));
  const name = path.basename(dir);
  assert.match(name, new RegExp(`^feira-sweep-check-t\\d{10}-p${process.pid}-[A-Za-z0-9]{6}$`));
  // Seven hours on, the sweep would take a directory of that name (in a root of its own: the
  // system's temporary directory holds the directories of the test files running meanwhile).
  const root = mkdtempSync(path.join(os.tmpdir(), "sweep-root-"));
  try {
    mkdirSync(path.join(root, name));
    assert.deepEqual(sweepStaleTempDirs(root), []);
    assert.deepEqual(sweepStaleTempDirs(root, Date.now() + 7 * 3600 * 1000), [name]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
