import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { pidAlive, tempDir } from "../temp-dirs.js";
import { readFiles, ROOT, suiteFiles } from "./plan.js";
import { until } from "../wait.js";
import { throwawayUnavailable } from "./throwaway-postgres.js";
// run-suite: waits: it starts the runners on fixture files and waits for them (17 s of CPU in 81 s)

// The suite's runner (run-suite.ts) on files made here: files share a process yet keep their
// own hooks, a failure fails the run naming file and test, and the PostgreSQL-marked files run
// once more on a throwaway cluster that is gone afterwards. And no file that skips tests
// without DATABASE_URL lacks the mark (its PostgreSQL tests would run in no plain `npm test`).

const dir = tempDir("feira-suite-");
writeFileSync(path.join(dir, "package.json"), '{ "type": "module" }');
symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));

function suite(files: Record<string, string>, env: Record<string, string> = {}, timeout = 120_000) {
  const sub = path.join(dir, `run${readdirSync(dir).length}`);
  mkdirSync(sub);
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(sub, name), text);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "test/helpers/suite/run-suite.ts"), ...Object.keys(files).filter((f) => f.endsWith(".test.ts")).map((f) => path.join(sub, f))], {
    // The runner under test decides for itself: CI's PGlite stage turns the throwaway cluster off
    // for its own run (FEIRA_TEST_THROWAWAY_PG=0), which must not reach the runner tested here.
    cwd: ROOT, encoding: "utf8", timeout, env: { ...process.env, DATABASE_URL: "", FEIRA_TEST_THROWAWAY_PG: "", FEIRA_TEST_CONCURRENCY: "1", ...env },
  });
  return { status: r.status, out: r.stdout + r.stderr, rel: (f: string) => path.relative(ROOT, path.join(sub, f)) };
}

test("files in one process keep their own before/after hooks, and a failure fails the run with file and test named", () => {
  const file = (name: string, body: string) => `import { after, before, test } from "node:test";
let ready = false;
before(() => { ready = true; console.log("before ${name} pid " + process.pid); });
after(() => console.log("after ${name}"));
${body}`;
  const run = suite({
    "a.test.ts": file("a", `test("a works", () => { if (!ready) throw new Error("a's before did not run"); });`),
    // A module with a top-level await before b's tests: they must still be b's (node-test.ts).
    "tla.ts": "await new Promise((resolve) => setTimeout(resolve, 20));\nexport const late = 1;\n",
    "b.test.ts": file("b", `import { late } from "./tla.ts";\ntest("b breaks", () => { throw new Error("b is broken on purpose"); });\ntest("b goes on", () => {});`),
  });
  assert.equal(run.status, 1, run.out);
  const order = [...run.out.matchAll(/^(before|after) ([ab])/gm)].map((m) => `${m[1]} ${m[2]}`);
  assert.deepEqual(order, ["before a", "after a", "before b", "after b"], run.out);
  assert.equal(new Set([...run.out.matchAll(/pid (\d+)/g)].map((m) => m[1])).size, 1, "one process ran both files");
  assert.match(run.out, new RegExp(`✖ FAILED ${run.rel("b.test.ts")} › b breaks\\n[^]*b is broken on purpose`));
  assert.match(run.out, new RegExp(`✖ ${run.rel("b.test.ts")} \\(2 tests, 1 failed`));
  assert.match(run.out, /# 2 files, 3 tests: 2 pass, 1 fail/);
});

// A file whose after() hook throws before it closes its server (as when a feira process did not
// stop cleanly), and one whose test never ends.
const LEAK = `import http from "node:http";
import { after, test } from "node:test";
const server = http.createServer().listen(0);
after(async () => { throw new Error("closing the processes failed"); server.close(); });
test("leak passes", () => {});`;
// The per-file timeout these runs use: the hang file waits it out, and the leak file must finish
// within it even on a loaded CI machine (3 s was too short there: the leak file timed out before
// its after() ran, in 1 of 1 clean-clone runs beside the suite's own lanes).
const FILE_TIMEOUT_MS = 15_000;
const HANG = `import { test } from "node:test";
test("hang never ends", () => new Promise(() => { setInterval(() => {}, 1_000); }));`;

test("a file that leaves a server open (its after() threw first) or hangs fails the run, which ends, and the files after it still run", () => {
  const run = suite({
    "leak.test.ts": LEAK,
    "hang.test.ts": HANG,
    "last.test.ts": `import { test } from "node:test";
test("last runs", () => { console.log("last ran"); });`,
  }, { FEIRA_TEST_FILE_TIMEOUT_MS: String(FILE_TIMEOUT_MS) }, 90_000);
  assert.notEqual(run.status, null, `the run hung:\n${run.out}`);
  assert.equal(run.status, 1, run.out);
  assert.match(run.out, /closing the processes failed/);
  assert.match(run.out, new RegExp(`timed out after ${FILE_TIMEOUT_MS}ms`));
  assert.match(run.out, /last ran/);
});

test("a process of the suite's runner that spins past its file's timeout is killed by the watchdog, which names the file", () => {
  // A synchronous loop: the file's own timeout, a timer of the same process, never fires.
  const run = suite({ "spin.test.ts": `import { test } from "node:test";\ntest("spins", () => { for (;;) {} });` }, { FEIRA_TEST_FILE_TIMEOUT_MS: "3000", FEIRA_TEST_WATCHDOG_MS: "5000" }, 90_000);
  assert.notEqual(run.status, null, `the run hung:\n${run.out}`);
  assert.equal(run.status, 1, run.out);
  assert.match(run.out, new RegExp(`✖ FAILED ${run.rel("spin.test.ts")}: its process printed nothing for 8 s and was killed`));
});

test("the topology run ends too when a file leaves a server open or hangs, and reports both as failed", () => {
  const sub = path.join(dir, "topology");
  mkdirSync(sub);
  writeFileSync(path.join(sub, "leak.test.ts"), LEAK);
  writeFileSync(path.join(sub, "hang.test.ts"), HANG);
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "test/helpers/topology-run.ts"), path.join(sub, "leak.test.ts"), path.join(sub, "hang.test.ts")], {
    // No file here opens a database: the runner only needs DATABASE_URL to be set.
    cwd: ROOT, encoding: "utf8", timeout: 90_000, env: { ...process.env, DATABASE_URL: "postgres://unused@127.0.0.1:1/none", FEIRA_TEST_FILE_TIMEOUT_MS: String(FILE_TIMEOUT_MS) },
  });
  const out = r.stdout + r.stderr;
  assert.notEqual(r.status, null, `the run hung:\n${out}`);
  assert.equal(r.status, 1, out);
  assert.match(out, /closing the processes failed/);
  assert.match(out, new RegExp(`test timed out after ${FILE_TIMEOUT_MS}ms`));
  assert.match(out, /# 2 files, \d+ tests: 1 pass, 1 fail, 0 skipped, 0 todo, 1 cancelled/);
});

test("the topology run kills a file whose runner prints nothing and does not exit, names it, runs it once more, and fails if it stalls again", async () => {
  const sub = path.join(dir, "stall");
  mkdirSync(sub);
  // The file stops its `node --test` process (SIGSTOP: silent, never exits, as the runner that
  // once spun for 10 minutes in CI), then waits forever itself; "once" only on its first run.
  const stall = (name: string, once: boolean) => `import { existsSync, writeFileSync } from "node:fs";
import { test } from "node:test";
test("${name} stalls its runner", async () => {
  ${once ? `if (existsSync(new URL("./${name}.pid", import.meta.url))) return;` : ""}
  writeFileSync(new URL("./${name}.pid", import.meta.url), String(process.pid));
  process.kill(process.ppid, "SIGSTOP");
  await new Promise(() => setInterval(() => {}, 1_000));
});`;
  writeFileSync(path.join(sub, "once.test.ts"), stall("once", true));
  writeFileSync(path.join(sub, "always.test.ts"), stall("always", false));
  const r = spawnSync(process.execPath, ["--import", "tsx", path.join(ROOT, "test/helpers/topology-run.ts"), path.join(sub, "once.test.ts"), path.join(sub, "always.test.ts")], {
    cwd: ROOT, encoding: "utf8", timeout: 90_000, env: { ...process.env, DATABASE_URL: "postgres://unused@127.0.0.1:1/none", FEIRA_TEST_WATCHDOG_MS: "8000" },
  });
  const out = r.stdout + r.stderr;
  assert.notEqual(r.status, null, `the run hung:\n${out}`);
  assert.equal(r.status, 1, out);
  const once = path.join(sub, "once.test.ts");
  const always = path.join(sub, "always.test.ts");
  assert.equal(out.split(`✖ STALLED ${once}: no output and no exit for 8 s (attempt 1)`).length, 2, out);
  assert.match(out, new RegExp(`✔ ${once} \\(1 tests`));
  assert.match(out, new RegExp(`✖ STALLED ${always}: no output and no exit for 8 s \\(attempt 2\\)`));
  assert.match(out, new RegExp(`# failed files:\n#   ${always} \\(stalled twice\\)\n# stalled`));
  for (const name of ["once", "always"]) {
    const pid = Number(readFileSync(path.join(sub, `${name}.pid`), "utf8"));
    // Killed, it is a zombie until init reaps it.
    await until(`${name}'s process ${pid} killed`, () => !pidAlive(pid));
  }
});

test("a file marked waits runs in a lane beside the CPU lane, not after it", () => {
  // Each file says it is here, then waits (at most 30 s) for the other: one lane running them
  // one after the other fails the first.
  const meet = (me: string, other: string, mark = "") => `import { test } from "node:test";
import { existsSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
${mark}
test("${me} meets ${other}", async () => {
  writeFileSync(new URL("./${me}.here", import.meta.url), String(process.pid));
  for (let i = 0; !existsSync(new URL("./${other}.here", import.meta.url)); i++) {
    if (i > 600) throw new Error("${other} did not run beside ${me}");
    await sleep(50);
  }
});`;
  // The mark is split here, or this file itself would carry it.
  const run = suite({ "cpu.test.ts": meet("cpu", "waiting"), "waiting.test.ts": meet("waiting", "cpu", `${"//"} run-suite: waits: meets the CPU lane`) });
  assert.equal(run.status, 0, run.out);
  assert.match(run.out, /1 processes at once, and 2 beside them for the 1 files that wait on processes/);
  assert.match(run.out, /# 2 files, 2 tests: 2 pass, 0 fail/);
});

test("a file marked postgres runs again on a throwaway PostgreSQL cluster, removed at the end (and one a killed runner left)", { skip: throwawayUnavailable() ?? false }, () => {
  const clusters = () => readdirSync(os.tmpdir()).filter((n) => n.startsWith("feira-test-pg-"));
  const before = clusters();
  // What a runner killed with SIGKILL leaves: its cluster's directory, naming a pid now gone.
  const orphan = mkdtempSync(path.join(os.tmpdir(), "feira-test-pg-"));
  const dead = spawnSync(process.execPath, ["-e", ""]).pid;
  writeFileSync(path.join(orphan, "runner"), String(dead));
  const run = suite({
    // The mark is split here, or this file itself would carry it.
    "pg.test.ts": `import { test } from "node:test";
import pg from "pg";
${"//"} run-suite: postgres: proves the throwaway cluster
test("engine", { skip: process.env.DATABASE_URL ? false : "PostgreSQL only" }, async () => {
  const c = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await c.connect();
  console.log("server " + (await c.query("show server_version")).rows[0].server_version);
  await c.end();
});`,
  });
  assert.equal(run.status, 0, run.out);
  assert.match(run.out, /server 15\./);
  assert.match(run.out, /# 2 files, 2 tests: 1 pass, 0 fail, 1 skipped/);
  assert.deepEqual(clusters(), before, "the cluster's directory is removed");
});

test("every test file that skips tests without DATABASE_URL is marked to run on PostgreSQL too", () => {
  // This file's own DATABASE_URL skip is in a fixture, written out and run by the runner above.
  const unmarked = readFiles(suiteFiles().filter((f) => f !== "test/helpers/suite/run-suite.test.ts")).filter((f) => {
    const text = readFileSync(path.join(ROOT, f.file), "utf8");
    return /\bskip\b/.test(text) && /process\.env\.DATABASE_URL/.test(text) && !f.postgres;
  });
  assert.deepEqual(unmarked.map((f) => f.file), []);
  assert.ok(existsSync(path.join(ROOT, "test/charges/statement-count.test.ts")));
});
