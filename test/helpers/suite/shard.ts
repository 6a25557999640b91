import { appendFileSync, readFileSync } from "node:fs";
import { register } from "node:module";
import { describe } from "node:test";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startRecording, stopRecording } from "./node-test.js";
import { FILE_TIMEOUT_MS } from "./plan.js";

// One process of the suite's runner (run-suite.ts): it imports many test files, each one's
// tests and hooks in a describe named after the file, so a file's top-level before/after hooks
// stay the file's own (they run around its tests, not around the whole process) and a failure
// names its file. Every `node:test` import but this file's and node-test.ts's own goes to
// node-test.ts, which records a file's top-level calls while it loads; the files load one after
// another, all before the first test runs, and each describe replays its file's calls.

const SHIM = pathToFileURL(path.join(import.meta.dirname, "node-test.ts")).href;
const hook = `export async function resolve(specifier, context, next) {
  if (specifier === "node:test" && context.parentURL?.startsWith("file:") && context.parentURL !== ${JSON.stringify(SHIM)}
    && !context.parentURL.includes("/node_modules/")) return { url: ${JSON.stringify(SHIM)}, shortCircuit: true };
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const root = path.resolve(import.meta.dirname, "../../..");
const loaded: { file: string; calls: (() => void)[]; error?: unknown }[] = [];
for (const file of process.argv.slice(2)) {
  startRecording();
  try {
    await import(pathToFileURL(path.resolve(root, file)).href);
    loaded.push({ file, calls: stopRecording() });
  } catch (error) {
    loaded.push({ file, calls: stopRecording(), error });
  }
}
// Each describe is made when the one before it has finished, as a process per file would: its
// body (and its files' describe bodies, which may read the clock) runs just before its tests.
// FEIRA_TEST_CPU_LOG=<file>: each file's CPU, this process's and its children's that exited
// meanwhile (the feira processes it started), one JSON line per file: where the suite's CPU goes.
const cpuLog = process.env.FEIRA_TEST_CPU_LOG;
for (const { file, calls, error } of loaded) {
  const before = cpuSeconds();
  // A file that hangs fails after FILE_TIMEOUT_MS instead of stalling the run.
  await describe(file, { timeout: FILE_TIMEOUT_MS }, () => {
    if (error) throw error;
    for (const call of calls) call();
  });
  if (cpuLog) {
    const now = cpuSeconds();
    const self = +(now.self - before.self).toFixed(2);
    const children = +(now.children - before.children).toFixed(2);
    appendFileSync(cpuLog, `${JSON.stringify({ file, postgres: Boolean(process.env.DATABASE_URL), self, children })}\n`);
  }
}

// Every file has run. What a file failed to close (a server, a timer of a test that timed out, an
// after() hook that threw before its closes) would keep this process alive, and the run waiting
// for it: node:test reports at beforeExit, which never comes. So after a grace period, say what
// is still open, have the report written, and exit. (--test-force-exit cannot serve: it ends the
// process as soon as no test is pending, which is between two of these describes.) The timer is
// unref'd: a process with nothing open exits on its own before it fires.
setTimeout(() => {
  process.stderr.write(`# still open after the last test file of this process: ${process.getActiveResourcesInfo().join(", ")}\n`);
  process.emit("beforeExit", 0);
  setTimeout(() => process.exit(), 1_000).unref();
}, 5_000).unref();

/** utime + stime and cutime + cstime of /proc/self/stat, in seconds (clock ticks of 1/100 s). */
function cpuSeconds(): { self: number; children: number } {
  if (!cpuLog) return { self: 0, children: 0 };
  const stat = readFileSync("/proc/self/stat", "utf8");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ").map(Number);
  return { self: (f[11]! + f[12]!) / 100, children: (f[13]! + f[14]!) / 100 };
}
