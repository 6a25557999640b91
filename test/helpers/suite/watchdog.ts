import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { withDescendants } from "../proc-sockets.js";

// The runners' watchdog (topology-run.ts, run-suite.ts): a test process that prints nothing and
// does not exit for a long while is stalled, not slow. Once, in CI, a topology file's `node
// --test` process spun at 100 % of a core for 10 minutes after the file's own child had exited,
// printing nothing, until the stage's time ran out; the per-test and per-file timeouts live in the
// processes that stall, so they cannot end it. The watchdog kills the process, its process group
// and every process below it (the feira processes a test starts run in groups of their own).

/**
 * Minutes of silence after which a test process is stalled: FEIRA_TEST_WATCHDOG_MS, else 5 min
 * (the topology run prints each test as it ends, and its slowest test takes under 20 s; the suite's
 * runner gives its processes more, see run-suite.ts).
 */
export const WATCHDOG_MS = Number(process.env.FEIRA_TEST_WATCHDOG_MS) || 5 * 60_000;

export interface Watched {
  child: ChildProcess;
  /** Resolves when the process has exited (or was killed as stalled). */
  ended: Promise<{ code: number | null; signal: NodeJS.Signals | null; stalled: boolean }>;
}

/**
 * Spawns `args` under node in a process group of its own, stdout and stderr piped; `onOutput`
 * gets every chunk. After `silenceMs` without output or exit, `onStall` is told and the process,
 * its group and its descendants get SIGKILL.
 */
export function spawnWatched(args: string[], opts: SpawnOptions & { silenceMs: number; onOutput(chunk: string, stream: "stdout" | "stderr"): void; onStall?(): void }): Watched {
  const { silenceMs, onOutput, onStall, ...options } = opts;
  const child = spawn(process.execPath, args, { ...options, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  type End = { code: number | null; signal: NodeJS.Signals | null; stalled: boolean };
  let stalled = false;
  let exit: Omit<End, "stalled"> | undefined;
  let end: (e: End) => void = () => undefined;
  const ended = new Promise<End>((resolve) => { end = resolve; });
  // A stalled process ends at its exit, not at the pipes' close: a process that left the tree
  // (its parent gone) may hold them open.
  const endStalled = () => {
    child.stdout!.destroy();
    child.stderr!.destroy();
    end({ ...exit!, stalled: true });
  };
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stalled = true;
      onStall?.();
      killTree(child.pid!);
      if (exit) endStalled();
    }, silenceMs);
  };
  arm();
  for (const stream of ["stdout", "stderr"] as const) {
    child[stream]!.setEncoding("utf8");
    child[stream]!.on("data", (chunk: string) => { arm(); onOutput(chunk, stream); });
  }
  child.once("exit", (code, signal) => {
    exit = { code, signal };
    if (stalled) endStalled();
  });
  // "close": once the pipes are shut too, so the last output has been passed on.
  child.once("close", (code, signal) => { clearTimeout(timer); end({ code, signal, stalled }); });
  return { child, ended };
}

/** SIGKILL to `pid`, every process below it, and its process group; those already gone are skipped. */
export function killTree(pid: number): void {
  let pids: number[] = [pid];
  try { pids = withDescendants(pid); } catch { /* no /proc: the group alone */ }
  for (const p of pids.reverse()) {
    try { process.kill(p, "SIGKILL"); } catch { /* gone */ }
  }
  try { process.kill(-pid, "SIGKILL"); } catch { /* gone */ }
}
