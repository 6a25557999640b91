import type { ChildProcess } from "node:child_process";
import path from "node:path";
import { createInterface } from "node:readline";
import { durationKey, FILE_TIMEOUT_MS, loadDurations, readFiles, ROOT, saveDurations, split, suiteFiles, type Job, type TestFile, type Work } from "./plan.js";
import { startThrowawayPostgres, throwawayUnavailable, type ThrowawayPostgres } from "./throwaway-postgres.js";
import { killTree, spawnWatched, WATCHDOG_MS } from "./watchdog.js";

// `npm test`: the suite (or the files given) in a few node processes instead of one per file.
// Each process imports many test files (shard.ts), so tsx and the app's module graph load once
// per process, not 160 times; files marked `// run-suite: own-process: <why>` get a process each.
// Without DATABASE_URL the files run on PGlite, and the files marked `// run-suite: postgres`
// run once more on a throwaway PostgreSQL cluster (throwaway-postgres.ts), so the tests that need
// PostgreSQL run in a plain `npm test` too. FEIRA_TEST_CONCURRENCY sets the processes at once (2);
// FEIRA_TEST_CPU_LOG=<file> records each file's CPU, its children's included (shard.ts).

const given = process.argv.slice(2).map((f) => path.relative(ROOT, path.resolve(f)));
const files = readFiles(given.length > 0 ? given : suiteFiles());
const slots = Number(process.env.FEIRA_TEST_CONCURRENCY ?? 2);
const waitSlots = Number(process.env.FEIRA_TEST_WAIT_CONCURRENCY ?? 2);
const onPostgres = Boolean(process.env.DATABASE_URL);
const started = Date.now();

const toWork = (f: TestFile, postgres: boolean): Work => ({ file: f.file, postgres, own: Boolean(f.ownProcess), waits: waitSlots > 0 && Boolean(f.waits) });
const work: Work[] = files.map((f) => toWork(f, onPostgres));
const notes: string[] = files.filter((f) => f.ownProcess).map((f) => `#   own process: ${f.file} (${f.ownProcess})`);
const pgFiles = onPostgres ? [] : files.filter((f) => f.postgres);
const unavailable = pgFiles.length === 0 ? undefined : process.env.FEIRA_TEST_THROWAWAY_PG === "0" ? "FEIRA_TEST_THROWAWAY_PG=0" : throwawayUnavailable();
if (pgFiles.length > 0 && !unavailable) work.push(...pgFiles.map((f) => toWork(f, true)));
if (unavailable) notes.push(`# SKIPPED on PostgreSQL, ${pgFiles.length} files whose PostgreSQL tests skip on PGlite: ${unavailable}`, ...pgFiles.map((f) => `#   ${f.file}`));
else if (pgFiles.length > 0) notes.push(`# ${pgFiles.length} files run on PGlite and again on a throwaway PostgreSQL cluster: ${pgFiles.map((f) => f.file).join(", ")}`);
const waiting = work.filter((w) => w.waits).length;
const lanes = `${slots} processes at once${waiting > 0 ? `, and ${waitSlots} beside them for the ${waiting} files that wait on processes` : ""}`;
process.stdout.write(`# ${files.length} test files on ${onPostgres ? "PostgreSQL (DATABASE_URL)" : "PGlite"}, ${lanes}\n${notes.join("\n")}\n`);

let cluster: Promise<ThrowawayPostgres> | undefined;
let stopCluster = () => {};
if (work.some((w) => w.postgres) && !onPostgres) {
  cluster = startThrowawayPostgres();
  cluster.then((c) => (stopCluster = c.stop), () => undefined);
}
const children = new Set<ChildProcess>();
const teardown = () => { for (const c of children) killTree(c.pid!); stopCluster(); };
process.once("exit", teardown);
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => { teardown(); process.exit(130); });

const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0, files: 0 };
const failures: string[] = [];
const measured: Record<string, number> = {};
const reporter = path.join(import.meta.dirname, "reporter.ts");
const shard = path.join(import.meta.dirname, "shard.ts");

async function runJob(job: Job): Promise<void> {
  // A runner of its own: under `node --test` the variable would make it speak the parent's protocol.
  // FEIRA_TEST_LIFTOFF_ONLY: the feira processes the tests start are short-lived (feira-bundle.ts).
  const env: NodeJS.ProcessEnv = { FEIRA_TEST_LIFTOFF_ONLY: "1", ...process.env, NODE_TEST_CONTEXT: undefined };
  if (job.postgres && cluster) {
    const url = await cluster.then((c) => c.url, () => undefined);
    if (!url) return; // reported once, below
    env.DATABASE_URL = url;
  }
  const tag = job.postgres && !onPostgres ? " [PostgreSQL]" : "";
  // The watchdog (watchdog.ts): a process silent past a file's own timeout and 5 min more is
  // stalled (its timeout could not fire): it is killed, and the file it was on is named.
  const reported = new Set<string>();
  const run = spawnWatched(["--import", "tsx", `--test-reporter=${reporter}`, shard, ...job.files], {
    cwd: ROOT, env, silenceMs: FILE_TIMEOUT_MS + WATCHDOG_MS,
    onOutput: (chunk, stream) => { if (stream === "stderr") process.stderr.write(chunk); },
    onStall: () => failures.push(`  ✖ FAILED ${job.files.find((f) => !reported.has(f))}${tag}: its process printed nothing for ${(FILE_TIMEOUT_MS + WATCHDOG_MS) / 1000} s and was killed`),
  });
  const child = run.child;
  children.add(child);
  let block: string[] | undefined; // the lines of a failure being printed
  const before = failures.length;
  for await (const line of createInterface({ input: child.stdout! })) {
    if (line.startsWith("##suite ")) {
      const counts = JSON.parse(line.slice(8)) as typeof totals;
      for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += counts[k];
      continue;
    }
    const done = /^([✔✖]) (\S+\.test\.ts) \(.*, ([\d.]+) s\)$/.exec(line);
    if (done) {
      reported.add(done[2]!);
      measured[durationKey(done[2]!, job.postgres)] = Number(done[3]);
      if (block) failures.push(block.join("\n"));
      block = undefined;
      process.stdout.write(`${line}${tag}\n`);
      continue;
    }
    if (line.startsWith("  ✖ FAILED ")) {
      if (block) failures.push(block.join("\n"));
      block = [`${line}${tag}`];
    } else block?.push(line);
    process.stdout.write(`${line}\n`);
  }
  if (block) failures.push(block.join("\n"));
  const { code } = await run.ended;
  children.delete(child);
  const missing = job.files.filter((f) => !reported.has(f));
  if (missing.length > 0 || (code !== 0 && failures.length === before)) {
    totals.fail++;
    failures.push(`  ✖ FAILED process${tag} exited ${code ?? child.signalCode} with files unreported: ${missing.join(", ") || "none"}`);
  }
}

const durations = loadDurations();
const plan = [...split(work.filter((w) => !w.waits), slots, durations), ...split(work.filter((w) => w.waits), waitSlots, durations)];
await Promise.all(plan.map(async (jobs) => { for (const job of jobs) await runJob(job); }));
if (cluster) await cluster.catch((err: Error) => { totals.fail++; failures.push(`  ✖ FAILED the throwaway PostgreSQL cluster: ${err.message}`); });
// Files given from outside test/ (the runner's own test makes some) are not kept.
saveDurations(Object.fromEntries(Object.entries(measured).filter(([k]) => /^(pg:)?test\//.test(k))));
const minutes = ((Date.now() - started) / 60_000).toFixed(1);
const summary = [
  "",
  ...(failures.length > 0 ? ["# failures:", ...failures] : []),
  `# ${totals.files} files, ${totals.tests} tests: ${totals.pass} pass, ${totals.fail} fail, ${totals.skipped} skipped, ${totals.todo} todo, ${totals.cancelled} cancelled; ${minutes} min`,
  "",
];
process.stdout.write(summary.join("\n"));
process.exitCode = totals.fail > 0 || totals.cancelled > 0 || failures.length > 0 ? 1 : 0;
