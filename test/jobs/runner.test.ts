import { test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { startWorker, type Task } from "../../src/jobs/runner.js";

// The runner's wake-up, with tasks that block on promises the test controls; the interval is an
// hour, so a second run can only come from the wake.
const HOUR = 60 * 60 * 1000;
const log = pino({ level: "silent" });
/** Without the behaviour under test a run would wait the hour: fail instead of hanging. */
const GUARD = { timeout: 30_000 };

/** A promise with its resolve function. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}

test("a wake that comes while a task runs is kept: a run that found nothing runs again at once", GUARD, async () => {
  const started = [signal(), signal()];
  const finishFirst = signal<number>();
  let runs = 0;
  const task: Task = {
    name: "t",
    intervalMs: HOUR,
    run: () => {
      started[runs]?.resolve();
      runs += 1;
      // The first run read the queue before the work the wake announces: it found nothing.
      return runs === 1 ? finishFirst.promise : Promise.resolve(0);
    },
  };
  const worker = startWorker([task], log);
  try {
    await started[0]!.promise;
    worker.wake("t");
    finishFirst.resolve(0);
    await started[1]!.promise; // without the kept wake: an hour from now
    assert.equal(runs >= 2, true);
  } finally {
    await worker.stop();
  }
});

test("a wake while a task runs reaches the task itself, so a run waiting on its own work can end", async () => {
  const running = signal();
  const woken = signal<number>();
  let wakes = 0;
  const task: Task = {
    name: "t",
    intervalMs: HOUR,
    run: async () => {
      running.resolve();
      return wakes === 0 ? woken.promise : 0;
    },
    wake: () => {
      wakes += 1;
      woken.resolve(1);
    },
  };
  const worker = startWorker([task], log);
  try {
    await running.promise;
    worker.wake("t");
    assert.equal(wakes, 1);
  } finally {
    await worker.stop();
  }
});

test("a stop that comes while a task runs ends the worker when the run returns, not after the task's interval", GUARD, async () => {
  const running = signal();
  const finish = signal<number>();
  const task: Task = {
    name: "t",
    intervalMs: HOUR,
    run: () => {
      running.resolve();
      return finish.promise;
    },
  };
  const worker = startWorker([task], log);
  await running.promise;
  const stopped = worker.stop();
  finish.resolve(0); // found nothing: before the fix, the idle wait that follows lasted an hour
  await stopped;
});

test("a worker with more than ten idle tasks starts without Node's listener-leak warning", GUARD, async (t) => {
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on("warning", onWarning);
  t.after(() => process.off("warning", onWarning));
  const ran = Array.from({ length: 12 }, () => signal());
  const tasks: Task[] = ran.map((r, i) => ({ name: `t${i}`, intervalMs: HOUR, run: async () => { r.resolve(); return 0; } }));
  const worker = startWorker(tasks, log);
  await Promise.all(ran.map((r) => r.promise));
  // Each loop goes idle (adds its stop listener) in the microtasks after its run; the warning
  // would be emitted on the next tick, before this immediate.
  await new Promise((resolve) => setImmediate(resolve));
  await worker.stop();
  assert.deepEqual(warnings.filter((w) => /MaxListeners/.test(w)), []);
});

test("running() names the tasks inside a run, which a slow stop logs as what it waits for", GUARD, async () => {
  const running = signal();
  const finish = signal<number>();
  const slow: Task = { name: "slow", intervalMs: HOUR, run: () => { running.resolve(); return finish.promise; } };
  const idle: Task = { name: "idle", intervalMs: HOUR, run: async () => 0 };
  const worker = startWorker([slow, idle], log);
  await running.promise;
  await new Promise((r) => setImmediate(r)); // the idle task's run returns
  assert.deepEqual(worker.running(), ["slow"]);
  const stopped = worker.stop();
  assert.deepEqual(worker.running(), ["slow"], "a stop waits for the run in flight");
  finish.resolve(0);
  await stopped;
  assert.deepEqual(worker.running(), []);
});
