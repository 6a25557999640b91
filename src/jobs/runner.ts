import { setMaxListeners } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";
import { isDatabaseUnavailable } from "../db/unavailable.js";

// The worker role: a set of periodic tasks over the database. A task returns how much work it
// did; a busy task runs again at once, an idle one waits its interval. Tasks claim their rows
// with FOR UPDATE SKIP LOCKED and leases, so any number of workers can run against one
// PostgreSQL, and a worker that dies loses nothing (its leases expire).
export interface Task {
  name: string;
  intervalMs: number;
  run(): Promise<number>;
  /** Lets work in flight finish (e.g. deliveries being sent) when the worker stops. */
  stop?(): Promise<void>;
  /**
   * Ends a wait inside run(), for a task whose run waits on its own work (the delivery task
   * waits for a delivery in flight to finish): new work must not queue behind a slow receiver.
   */
  wake?(): void;
}

/**
 * What a module declares for the worker: its `tasks`, or, when some need the worker's logger,
 * `workerTasks(log)`. There is no central list: the worker takes every module's.
 */
export interface TaskOwner {
  tasks: readonly Task[];
  workerTasks?(log: FastifyBaseLogger): Task[];
}

export function collectTasks(owners: Iterable<TaskOwner>, log: FastifyBaseLogger): Task[] {
  return [...owners].flatMap((owner) => owner.workerTasks?.(log) ?? owner.tasks);
}

/** A module with no background work says so (`tasks: NO_TASKS`), so none is forgotten. */
export const NO_TASKS: readonly Task[] = [];

export interface Worker {
  stop(): Promise<void>;
  /** Runs every task once, until each reports no work (tests and sandbox endpoints). */
  drain(): Promise<void>;
  /** Ends the wait of a task now, idle or inside its run (e.g. on a NOTIFY that new deliveries are queued). */
  wake(name: string): void;
  /** The tasks inside a run now (a slow stop names what it waits for). */
  running(): string[];
}

export function startWorker(tasks: Task[], log: FastifyBaseLogger): Worker {
  const abort = new AbortController();
  // Each idle task listens for the stop: one listener per task, not a leak (Node warns past 10).
  setMaxListeners(Math.max(10, tasks.length), abort.signal);
  const wakers = new Map<string, () => void>();
  // A wake that comes while the task runs is kept, so the next idle wait ends at once: the run
  // may have read the queue before the work the wake announces was committed.
  const woken = new Set<string>();
  const byName = new Map(tasks.map((t) => [t.name, t]));
  const inRun = new Set<string>();
  const idle = async (task: Task) => {
    // A stop during the run has already fired its abort event: no nap would hear it.
    if (woken.delete(task.name) || abort.signal.aborted) return;
    const nap = new AbortController();
    const stop = () => nap.abort();
    wakers.set(task.name, () => { woken.delete(task.name); stop(); });
    abort.signal.addEventListener("abort", stop, { once: true });
    return sleep(task.intervalMs, undefined, { signal: nap.signal })
      .catch(() => undefined)
      .finally(() => {
        wakers.delete(task.name);
        abort.signal.removeEventListener("abort", stop);
      });
  };
  const loops = tasks.map(async (task) => {
    while (!abort.signal.aborted) {
      let done = 0;
      inRun.add(task.name);
      try {
        done = await task.run();
      } catch (err) {
        // A lost database (a failover) fails every task's run once: expected, the next run goes
        // to the new primary, and leases of the cut run expire as after a crash.
        if (isDatabaseUnavailable(err)) log.warn({ task: task.name, err: (err as Error).message }, "worker task cut: database unavailable");
        else log.error({ err, task: task.name }, "worker task failed");
      } finally {
        inRun.delete(task.name);
      }
      if (done === 0) await idle(task);
    }
  });
  return {
    async stop() {
      abort.abort();
      await Promise.all(loops);
      await Promise.all(tasks.map((t) => t.stop?.()));
    },
    drain: () => drainTasks(tasks),
    running: () => [...inRun],
    wake: (name) => {
      const waker = wakers.get(name);
      if (waker) return waker();
      woken.add(name);
      byName.get(name)?.wake?.();
    },
  };
}

export async function drainTasks(tasks: Task[], maxRounds = 100): Promise<void> {
  for (let round = 0; round < maxRounds; round++) {
    let done = 0;
    for (const task of tasks) done += await task.run();
    if (done === 0) return;
  }
}
