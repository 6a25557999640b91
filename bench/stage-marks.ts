// Percentiles of the stage times written by a server built with bench/stage-marks.patch
// (a temporary instrumentation, never committed to src/): each API process writes
// /tmp/stages-<pid>.json every 2 s, pairs of (time ms, value ms) per mark. Only what was marked
// from 6 s (the warm-up) after the first processor answer of at least 250 ms is counted: the
// measured window of a slow-processor round.
//
//   git apply bench/stage-marks.patch && npm run build
//   BENCH_LATENCIES=300 BENCH_CONNECTIONS=1024 BENCH_DURATION=15 BENCH_HOLD=0 DATABASE_URL=... npx tsx bench/slow-processor.ts
//   npx tsx bench/stage-marks.ts; git apply -R bench/stage-marks.patch
import { readdirSync, readFileSync, statSync } from "node:fs";
import { percentile } from "./harness.js";

const files = readdirSync("/tmp").filter((f) => /^stages-\d+\.json$/.test(f)).map((f) => `/tmp/${f}`);
const file = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
if (!file) throw new Error("no /tmp/stages-<pid>.json: build with bench/stage-marks.patch and run a round first");
const marks = JSON.parse(readFileSync(file, "utf8")) as Record<string, number[]>;
const pairs = (arr: number[]) => Array.from({ length: arr.length / 2 }, (_, i) => [arr[2 * i]!, arr[2 * i + 1]!] as const);
const slow = pairs(marks.auth ?? []).filter(([, v]) => v >= 250).map(([t]) => t);
if (slow.length === 0) throw new Error(`${file} has no processor answer of 250 ms or more: run a round with BENCH_LATENCIES=300`);
const start = Math.min(...slow) + 6000;
for (const k of ["inside", "total", "authdone", "limitdone", "pre", "cust", "auth", "insert", "handler"]) {
  const vs = pairs(marks[k] ?? []).filter(([t]) => t > start).map(([, v]) => v).sort((a, b) => a - b);
  if (vs.length === 0) continue;
  const q = (p: number) => percentile(vs, p);
  console.log(`${k.padEnd(9)} n=${String(vs.length).padStart(5)} p10=${q(0.1)} p50=${q(0.5)} p90=${q(0.9)} p99=${q(0.99)} max=${vs.at(-1)}`);
}
