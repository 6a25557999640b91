import { describe } from "node:test";
import path from "node:path";
import { pathToFileURL } from "node:url";

// One process of the suite's runner (run-suite.ts): it imports many test files, each inside a
// describe named after the file, so a file's top-level before/after hooks stay the file's own
// (they run around its tests, not around the whole process) and a failure names its file.
// The files load in the given order; node:test runs the describes one after another.
// Importing inside the describe's callback keeps the file's test() calls in that describe:
// node:test finds the parent through the async context, which the dynamic import carries.

const root = path.resolve(import.meta.dirname, "../../..");
for (const file of process.argv.slice(2)) {
  describe(file, async () => {
    await import(pathToFileURL(path.resolve(root, file)).href);
  });
}
