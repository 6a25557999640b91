import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

// What run-suite.ts runs where: the test files, their pragmas, and a split of them into as many
// slots as run at once, balanced by each file's last recorded time.
//
// Pragmas, a comment line in the test file (the reason is required, and printed):
//   // run-suite: own-process: <why>   the file runs in a process of its own, not beside others
//   // run-suite: postgres: <why>      the file also runs on PostgreSQL when the run is on PGlite
//                                      (it has tests that skip without DATABASE_URL)
//   // run-suite: waits: <why>         the file mostly waits on processes it starts (feira, fakes,
//                                      a browser): it runs in the wait lanes, beside the CPU lanes

export const ROOT = path.resolve(import.meta.dirname, "../../..");
const CACHE = path.join(ROOT, "node_modules/.cache/feira/test-durations.json");
const SEED = path.join(import.meta.dirname, "durations.json");
const UNKNOWN_S = 10; // a file never timed here: about the suite's mean
// A file that waits on processes and was never timed here (a clean clone's CI): such files take
// 40 to 190 s, and a wait lane balanced as if they took 10 s would end minutes after the rest.
const UNKNOWN_WAITS_S = 60;
/**
 * How long one test file may take before it fails as hung: the slowest take about 190 s here,
 * and a CI machine may be twice as slow. A hang costs this much of CI's 90 minutes, not all.
 * FEIRA_TEST_FILE_TIMEOUT_MS sets it (the runner's own test).
 */
export const FILE_TIMEOUT_MS = Number(process.env.FEIRA_TEST_FILE_TIMEOUT_MS) || 10 * 60_000;

export interface TestFile { file: string; ownProcess?: string; postgres?: string; waits?: string }

export function pragmas(text: string): Omit<TestFile, "file"> {
  const out: Omit<TestFile, "file"> = {};
  for (const m of text.matchAll(/^\/\/ run-suite: (own-process|postgres|waits): (.+)$/gm)) {
    if (m[1] === "own-process") out.ownProcess = m[2]!.trim();
    else if (m[1] === "waits") out.waits = m[2]!.trim();
    else out.postgres = m[2]!.trim();
  }
  return out;
}

/** Every *.test.ts under test/, sorted, as paths relative to the repository. */
export function suiteFiles(): string[] {
  const out: string[] = [];
  (function walk(dir: string) {
    for (const e of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (e.name.endsWith(".test.ts")) out.push(rel);
    }
  })("test");
  return out.sort();
}

export function readFiles(files: string[]): TestFile[] {
  return files.map((file) => ({ file, ...pragmas(readFileSync(path.join(ROOT, file), "utf8")) }));
}

/**
 * Seconds per file (and engine) from earlier runs on this machine, over those of a whole run of
 * both engines on the development machine (durations.json, committed): a clean clone, as in CI,
 * has no cache, and lanes balanced as if every file took the same time ended up to 45 s apart.
 * To refresh it, copy the cache after a whole `npm test` on PGlite and one on PostgreSQL.
 */
export function loadDurations(): Record<string, number> {
  return { ...readDurations(SEED), ...readDurations(CACHE) };
}

function readDurations(file: string): Record<string, number> {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Record<string, number>;
  } catch {
    return {};
  }
}

export function saveDurations(measured: Record<string, number>): void {
  mkdirSync(path.dirname(CACHE), { recursive: true });
  writeFileSync(CACHE, JSON.stringify({ ...readDurations(CACHE), ...measured }, null, 1));
}

export const durationKey = (file: string, postgres: boolean) => (postgres ? `pg:${file}` : file);

/** A job: one process running its files, on PGlite or PostgreSQL. */
export interface Job { files: string[]; postgres: boolean; seconds: number }

export interface Work { file: string; postgres: boolean; own: boolean; waits: boolean }

/**
 * Longest first, each to the least loaded slot; then per slot one process for its shared files
 * of each engine and one per own-process file. PostgreSQL jobs come last in a slot (its
 * throwaway cluster starts meanwhile).
 */
export function split(work: Work[], slots: number, durations: Record<string, number>): Job[][] {
  const time = (w: Work) => durations[durationKey(w.file, w.postgres)] ?? (w.waits ? UNKNOWN_WAITS_S : UNKNOWN_S);
  const loads = Array.from({ length: slots }, () => ({ seconds: 0, work: [] as Work[] }));
  for (const w of [...work].sort((a, b) => time(b) - time(a))) {
    const slot = loads.reduce((min, s) => (s.seconds < min.seconds ? s : min));
    slot.work.push(w);
    slot.seconds += time(w);
  }
  return loads.map(({ work: mine }) => {
    const jobs: Job[] = [];
    for (const postgres of [false, true]) {
      const shared = mine.filter((w) => w.postgres === postgres && !w.own);
      if (shared.length > 0) jobs.push({ files: shared.map((w) => w.file).sort(), postgres, seconds: shared.reduce((n, w) => n + time(w), 0) });
      for (const w of mine.filter((w) => w.postgres === postgres && w.own)) jobs.push({ files: [w.file], postgres, seconds: time(w) });
    }
    return jobs;
  });
}

export const hasCache = () => existsSync(CACHE);
