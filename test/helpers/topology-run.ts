import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./process.js";
import { FILE_TIMEOUT_MS } from "./suite/plan.js";
import { killTree, spawnWatched, WATCHDOG_MS } from "./suite/watchdog.js";
import { topologyFiles } from "./topology-files.js";
import { pidAlive } from "./temp-dirs.js";

// `npm run test:topology`: the whole suite (or the files given) with FEIRA_TEST_TOPOLOGY=2x2
// on PostgreSQL, then an account of it: how many test apps ran against the API and worker
// processes, which fell back to the in-process app and why, and which requests were answered
// in-process (test-only routes, requests no HTTP client can send).

interface Line { file: string; apps: number; fallbacks: string[]; noWorkers: string[]; requestsOverHttp: number; requestsInProcess: Record<string, number> }

if (!process.env.DATABASE_URL) {
  process.stderr.write("test:topology needs DATABASE_URL (PostgreSQL): the embedded database admits one process\n");
  process.exit(2);
}
const topology = process.env.FEIRA_TEST_TOPOLOGY || "2x2";
const given = process.argv.slice(2);
// Without a list, the files that build a test app: the others (unit tests, and tests that start
// their own processes) do not use the topology and would only repeat the PostgreSQL run.
const suite = topologyFiles();
const files = given.length > 0 ? given : suite.files;
const repeated = given.length > 0 ? 0 : suite.repeated.length;
const report = path.join(os.tmpdir(), `feira-topology-${process.pid}.jsonl`);
rmSync(report, { force: true });
// A run killed outright leaves its report behind: removed by the next run once its pid is gone.
for (const name of readdirSync(os.tmpdir())) {
  const pid = /^feira-topology-(\d+)\.jsonl$/.exec(name)?.[1];
  if (pid && !pidAlive(Number(pid))) rmSync(path.join(os.tmpdir(), name), { force: true });
}
const started = Date.now();
const pooler = process.env.FEIRA_TEST_POOLER_URL ? new URL(process.env.FEIRA_TEST_POOLER_URL) : undefined;
const concurrency = 2;

// One `node --test` process per file, two at once: each file's account of its apps is written
// from its own process (topology.ts), and a file that stalls is found by name. A file's output is
// kept and printed whole only if it fails; a file that passes is one line, with its time.
// --test-force-exit: a file whose after() hook threw before closing a server (a receiver, a
// fake) would otherwise keep its process, and this run, alive forever; the failure is reported
// either way. --test-timeout bounds each test of a file: one that hangs fails (and its file with
// it) instead of stalling the stage. And the watchdog (suite/watchdog.ts): a file that prints
// nothing and does not end for WATCHDOG_MS is killed with every process below it and run once
// more; stalled twice, it fails the run.
const env = { ...process.env, NODE_TEST_CONTEXT: undefined, FEIRA_TEST_TOPOLOGY: topology, FEIRA_TOPOLOGY_REPORT: report };
const running = new Set<number>();
const totals = { tests: 0, pass: 0, fail: 0, cancelled: 0, skipped: 0, todo: 0 };
const failed: string[] = [];
const stalls: string[] = [];

async function runFile(file: string, attempt = 1): Promise<void> {
  const fileStarted = Date.now();
  let out = "";
  // A runner of its own even when started from a test: under `node --test` the inherited
  // NODE_TEST_CONTEXT would make it skip every file.
  const run = spawnWatched(["--import", "tsx", "--test", "--test-force-exit", `--test-timeout=${FILE_TIMEOUT_MS}`, file], {
    cwd: ROOT, env, silenceMs: WATCHDOG_MS,
    onOutput: (chunk) => { out += chunk; },
  });
  running.add(run.child.pid!);
  const { code, signal, stalled } = await run.ended;
  running.delete(run.child.pid!);
  const secs = ((Date.now() - fileStarted) / 1000).toFixed(1);
  if (stalled) {
    const what = `${file}: no output and no exit for ${WATCHDOG_MS / 1000} s (attempt ${attempt}); its processes were killed`;
    stalls.push(what);
    process.stdout.write(`${out}\n✖ STALLED ${what}${attempt === 1 ? "; running it once more" : ""}\n`);
    if (attempt === 1) return runFile(file, 2);
    failed.push(`${file} (stalled twice)`);
    totals.fail++;
    return;
  }
  const count = (k: string) => Number(new RegExp(`^# ${k} (\\d+)$`, "m").exec(out)?.[1] ?? 0);
  const counts = { tests: count("tests"), pass: count("pass"), fail: count("fail"), cancelled: count("cancelled"), skipped: count("skipped"), todo: count("todo") };
  for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += counts[k];
  const ok = code === 0 && counts.fail === 0 && counts.cancelled === 0;
  if (!ok) {
    failed.push(file);
    if (counts.fail === 0 && counts.cancelled === 0) totals.fail++; // exited non-zero with no test failed
  }
  const note = `${counts.tests} tests${counts.fail ? `, ${counts.fail} failed` : ""}${counts.cancelled ? `, ${counts.cancelled} cancelled` : ""}${counts.skipped ? `, ${counts.skipped} skipped` : ""}`;
  process.stdout.write(`${ok ? "" : out}${ok ? "✔" : "✖"} ${file} (${note}, ${secs} s${ok ? "" : `, exit ${code ?? signal}`})\n`);
}

const queue = [...files];
const teardown = () => { for (const pid of running) killTree(pid); };
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => { teardown(); process.exit(130); });
await Promise.all(Array.from({ length: concurrency }, async () => { for (let f = queue.shift(); f; f = queue.shift()) await runFile(f); }));

const lines: Line[] = existsSync(report)
  ? readFileSync(report, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l) as Line)
  : [];
rmSync(report, { force: true });
const apps = lines.reduce((n, l) => n + l.apps, 0);
const fallbacks = lines.flatMap((l) => l.fallbacks.map((reason) => `${l.file}: ${reason}`));
const noWorkers = lines.flatMap((l) => l.noWorkers.map((reason) => `${l.file}: ${reason}`));
const overHttp = lines.reduce((n, l) => n + l.requestsOverHttp, 0);
const inProcess = lines.flatMap((l) => Object.entries(l.requestsInProcess).map(([reason, n]) => `${l.file}: ${n} (${reason})`));
const out = [
  "",
  ...(failed.length > 0 ? ["# failed files:", ...failed.map((f) => `#   ${f}`)] : []),
  ...(stalls.length > 0 ? ["# stalled (killed by the watchdog):", ...stalls.map((f) => `#   ${f}`)] : []),
  `# ${files.length} files, ${totals.tests} tests: ${totals.pass} pass, ${totals.fail} fail, ${totals.skipped} skipped, ${totals.todo} todo, ${totals.cancelled} cancelled`,
  `# topology ${topology}${pooler ? ` through the pooler at ${pooler.host} (DATABASE_POOL_MODE=transaction)` : ""}: ${files.length} test files, ${lines.length} of them built ${apps} test apps in ${((Date.now() - started) / 60_000).toFixed(1)} min`,
  ...(repeated > 0 ? [`# ${repeated} test files build no test app, so the topology would not change them: they run in the plain PostgreSQL run only`] : []),
  ...(given.length === 0 && suite.skipped.length > 0 ? [`# ${suite.skipped.length} test files are marked \`// topology: skip: <why>\` (every app in-process, or a browser, package or document): they run in the plain PostgreSQL run only`] : []),
  `# ${apps - fallbacks.length} apps ran against the processes (${overHttp} requests over HTTP); ${fallbacks.length} stayed in-process:`,
  ...fallbacks.map((f) => `#   ${f}`),
  `# ${noWorkers.length} of the apps on processes ran without worker processes (the test is the worker):`,
  ...noWorkers.map((f) => `#   ${f}`),
  `# requests answered in-process by apps of the processes' mode:`,
  ...(inProcess.length > 0 ? inProcess.map((f) => `#   ${f}`) : ["#   none"]),
  "",
];
process.stdout.write(out.join("\n"));
process.exitCode = failed.length > 0 || totals.fail > 0 || totals.cancelled > 0 ? 1 : 0;
