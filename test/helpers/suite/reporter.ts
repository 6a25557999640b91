import { inspect } from "node:util";

// The concise reporter of the suite's processes: one line per test file (its tests, failures,
// skips and time), every failure in full (file, test path, error), and the counts last as one
// machine-readable line for run-suite.ts. A spec report of 1,400 tests buries the one failure.

interface Event { type: string; data: Record<string, unknown> & { name?: string; nesting?: number; details?: { duration_ms?: number; error?: unknown; type?: string } } }

export default async function* concise(source: AsyncIterable<Event>): AsyncGenerator<string> {
  const names: string[] = [];
  const perFile = { tests: 0, fail: 0, skip: 0 };
  const totals = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0, files: 0 };
  for await (const { type, data } of source) {
    const nesting = data.nesting ?? 0;
    if (type === "test:start") names[nesting] = String(data.name);
    if (type !== "test:pass" && type !== "test:fail") continue;
    names[nesting] = String(data.name);
    const suite = data.details?.type === "suite";
    if (nesting === 0) {
      // A file's describe (or a test outside one, which run-suite never makes).
      totals.files++;
      // A file that registers no test lost them (or never had any): either way a defect.
      const empty = perFile.tests === 0 && perFile.skip === 0 && type === "test:pass";
      if (empty) { perFile.fail++; totals.fail++; }
      const mark = type === "test:fail" || perFile.fail > 0 ? "✖" : "✔";
      const secs = ((data.details?.duration_ms ?? 0) / 1000).toFixed(1);
      yield `${mark} ${data.name} (${perFile.tests} tests${perFile.fail ? `, ${perFile.fail} failed` : ""}${perFile.skip ? `, ${perFile.skip} skipped` : ""}, ${secs} s)\n`;
      // The file's own failure (a hook, its time running out) unless it only says a test failed.
      const own = (data.details?.error as { failureType?: string } | undefined)?.failureType !== "subtestsFailed";
      if (type === "test:fail" && (perFile.fail === 0 || own)) yield failure(names.slice(0, 1), data.details?.error);
      if (empty) yield failure([String(data.name), "(the file)"], new Error("no test ran in this file: none was registered under its describe"));
      Object.assign(perFile, { tests: 0, fail: 0, skip: 0 });
      continue;
    }
    if (suite && data.skip !== undefined) { perFile.skip++; totals.skipped++; }
    if (suite && type === "test:pass") continue;
    const error = data.details?.error as { failureType?: string } | undefined;
    // A suite fails when a test in it failed; that test was already printed.
    if (suite && error?.failureType === "subtestsFailed") continue;
    if (!suite) {
      perFile.tests++;
      totals.tests++;
      if (data.skip !== undefined) { perFile.skip++; totals.skipped++; }
      else if (data.todo !== undefined) totals.todo++;
      else if (type === "test:pass") totals.pass++;
      else if (error?.failureType === "cancelledByParent") totals.cancelled++;
      else totals.fail++;
    }
    if (type === "test:fail") {
      perFile.fail++;
      yield failure(names.slice(0, nesting + 1), error);
    }
  }
  yield `##suite ${JSON.stringify(totals)}\n`;
}

function failure(path: string[], error: unknown): string {
  const text = inspect(error, { depth: 4, colors: false }).replace(/^/gm, "    ");
  return `  ✖ FAILED ${path[0]} › ${path.slice(1).join(" › ")}\n${text}\n`;
}
