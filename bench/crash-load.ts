// The load of the crash runs (bench/crash.ts, bench/crash-live.ts): clients that send charges
// with Idempotency-Keys and retry until they get an answer, and a killer that SIGKILLs a
// process at seeded random moments of the load and starts it again.
import { randomUUID } from "node:crypto";
import { sleep, type Answer } from "../test/helpers/feira-process.js";

/** mulberry32: a small seeded PRNG, so a run's kill moments can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface LoadOptions {
  charges: number;
  kills: number;
  clients: number;
  random: () => number;
  /** One attempt of charge number i under its key: the answer, or null when the connection broke. */
  send(i: number, key: string): Promise<Answer | null>;
  /** Kills a process (kill -9), starts it again and says which one it was. */
  kill(): Promise<string>;
  log(line: string): void;
}

export interface LoadResult {
  /** Idempotency-Key -> the charge it was acknowledged with, and the number of the charge. */
  acked: Map<string, { id: string; i: number }>;
  retries: number;
  /** Kills per process label. */
  kills: Record<string, number>;
  /** Answers that were neither a 201 nor worth a retry (a 4xx other than 409). */
  failures: string[];
}

export async function driveLoad(opts: LoadOptions): Promise<LoadResult> {
  const { random } = opts;
  const acked = new Map<string, { id: string; i: number }>();
  // Kill k falls when the k-th slice of the load is reached (at a random point of it). Clients
  // may run only a little ahead of the next kill, so every kill lands while charges are in
  // flight, however long the restarts take.
  const thresholds = Array.from({ length: opts.kills }, (_, k) => Math.floor(((k + random()) / opts.kills) * opts.charges * 0.85));
  let killsDone = 0;
  const gate = () => (killsDone >= opts.kills ? Infinity : thresholds[killsDone]! + opts.clients * 4);
  let next = 0;
  let retries = 0;
  const failures: string[] = [];
  const client = async () => {
    for (;;) {
      while (next >= gate() && next < opts.charges) await sleep(5);
      const i = next++;
      if (i >= opts.charges) return;
      const key = randomUUID();
      for (let attempt = 0; ; attempt++) {
        const answer = await opts.send(i, key);
        if (answer && answer.status === 201) {
          acked.set(key, { id: String(answer.body.id), i });
          break;
        }
        if (answer && answer.status !== 409 && answer.status < 500) {
          failures.push(`${answer.status} ${JSON.stringify(answer.body)}`);
          break;
        }
        retries++;
        await sleep(Math.min(50 * 2 ** Math.min(attempt, 5), 1000));
      }
    }
  };

  const kills: Record<string, number> = {};
  let stopKilling = false;
  const killer = (async () => {
    for (let k = 0; k < opts.kills && !stopKilling; k++) {
      while (acked.size < thresholds[k]! && !stopKilling) await sleep(5);
      await sleep(random() * 50);
      if (stopKilling) break;
      const target = await opts.kill();
      kills[target] = (kills[target] ?? 0) + 1;
      killsDone++;
      opts.log(`kill ${killsDone}: ${target}; ${acked.size}/${opts.charges} acknowledged`);
    }
  })();
  await Promise.all(Array.from({ length: opts.clients }, client));
  // A kill planned after the load ended would prove nothing; the callers report it.
  stopKilling = true;
  await killer;
  return { acked, retries, kills, failures };
}
