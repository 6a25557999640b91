import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./process.js";
import { FILE_TIMEOUT_MS } from "./suite/plan.js";
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

// --test-force-exit: a file whose after() hook threw before closing a server (a receiver, a
// fake) would otherwise keep its process, and this run, alive forever; the failure is reported
// either way. --test-timeout bounds each test of a file: one that hangs fails (and its file with
// it) instead of stalling the stage.
const child = spawn(process.execPath, ["--import", "tsx", "--test", "--test-concurrency=2", "--test-force-exit", `--test-timeout=${FILE_TIMEOUT_MS}`, ...files], {
  // A runner of its own even when started from a test: under `node --test` the inherited
  // NODE_TEST_CONTEXT would make it skip every file.
  cwd: ROOT, stdio: "inherit", env: { ...process.env, NODE_TEST_CONTEXT: undefined, FEIRA_TEST_TOPOLOGY: topology, FEIRA_TOPOLOGY_REPORT: report },
});
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => {
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
    `# topology ${topology}${pooler ? ` through the pooler at ${pooler.host} (DATABASE_POOL_MODE=transaction)` : ""}: ${files.length} test files, ${lines.length} of them built ${apps} test apps in ${((Date.now() - started) / 60_000).toFixed(1)} min`,
    ...(repeated > 0 ? [`# ${repeated} test files build no test app, so the topology would not change them: they run in the plain PostgreSQL run only`] : []),
    `# ${apps - fallbacks.length} apps ran against the processes (${overHttp} requests over HTTP); ${fallbacks.length} stayed in-process:`,
    ...fallbacks.map((f) => `#   ${f}`),
    `# ${noWorkers.length} of the apps on processes ran without worker processes (the test is the worker):`,
    ...noWorkers.map((f) => `#   ${f}`),
    `# requests answered in-process by apps of the processes' mode:`,
    ...(inProcess.length > 0 ? inProcess.map((f) => `#   ${f}`) : ["#   none"]),
    "",
  ];
  process.stdout.write(out.join("\n"));
  process.exit(code ?? (signal ? 1 : 0));
});
