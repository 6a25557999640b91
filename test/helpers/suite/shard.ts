import { register } from "node:module";
import { describe } from "node:test";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { startRecording, stopRecording } from "./node-test.js";

// One process of the suite's runner (run-suite.ts): it imports many test files, each one's
// tests and hooks in a describe named after the file, so a file's top-level before/after hooks
// stay the file's own (they run around its tests, not around the whole process) and a failure
// names its file. Every `node:test` import but this file's and node-test.ts's own goes to
// node-test.ts, which records a file's top-level calls while it loads; the files load one after
// another, all before the first test runs, and each describe replays its file's calls.

const SHIM = pathToFileURL(path.join(import.meta.dirname, "node-test.ts")).href;
const hook = `export async function resolve(specifier, context, next) {
  if (specifier === "node:test" && context.parentURL?.startsWith("file:") && context.parentURL !== ${JSON.stringify(SHIM)}
    && !context.parentURL.includes("/node_modules/")) return { url: ${JSON.stringify(SHIM)}, shortCircuit: true };
  return next(specifier, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const root = path.resolve(import.meta.dirname, "../../..");
const loaded: { file: string; calls: (() => void)[]; error?: unknown }[] = [];
for (const file of process.argv.slice(2)) {
  startRecording();
  try {
    await import(pathToFileURL(path.resolve(root, file)).href);
    loaded.push({ file, calls: stopRecording() });
  } catch (error) {
    loaded.push({ file, calls: stopRecording(), error });
  }
}
// Each describe is made when the one before it has finished, as a process per file would: its
// body (and its files' describe bodies, which may read the clock) runs just before its tests.
for (const { file, calls, error } of loaded) {
  await describe(file, () => {
    if (error) throw error;
    for (const call of calls) call();
  });
}
