import { setTimeout as sleep } from "node:timers/promises";
import type { FastifyBaseLogger } from "fastify";

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
}

export interface Worker {
  stop(): Promise<void>;
  /** Runs every task once, until each reports no work (tests and sandbox endpoints). */
  drain(): Promise<void>;
  /** Ends the idle wait of a task now (e.g. on a NOTIFY that new deliveries are queued). */
  wake(name: string): void;
}

export function startWorker(tasks: Task[], log: FastifyBaseLogger): Worker {
  const abort = new AbortController();
  const wakers = new Map<string, () => void>();
  // A wake that comes while the task runs is kept, so the next idle wait ends at once.
  const woken = new Set<string>();
  const idle = async (task: Task) => {
    if (woken.delete(task.name)) return;
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
      try {
        done = await task.run();
      } catch (err) {
        log.error({ err, task: task.name }, "worker task failed");
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
    wake: (name) => {
      const waker = wakers.get(name);
      if (waker) waker();
      else woken.add(name);
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
