import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./process.js";

// Which test files `npm run test:topology` runs: those that build a test app. A file that builds
// none runs exactly as in the plain PostgreSQL run, so the topology run does not repeat it.

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(path.join(dir, e.name)) : e.name.endsWith(".test.ts") ? [path.join(dir, e.name)] : []);
}

/**
 * Whether the file calls buildTestApp, itself or through the test modules it imports (a comment
 * naming it does not count; test/helpers/app.ts, which defines it, is not a call).
 */
export function buildsTestApp(file: string, seen = new Set<string>()): boolean {
  const full = path.resolve(ROOT, file);
  if (seen.has(full) || !existsSync(full) || full === path.join(ROOT, "test/helpers/app.ts")) return false;
  seen.add(full);
  const text = readFileSync(full, "utf8");
  if (/\bbuildTestApp\(/.test(text.replace(/\/\/.*$/gm, ""))) return true;
  const imports = [...text.matchAll(/from "(\.{1,2}\/[^"]+)\.js"/g)].map((m) => path.resolve(path.dirname(full), `${m[1]}.ts`));
  return imports.some((i) => i.startsWith(path.join(ROOT, "test") + path.sep) && buildsTestApp(i, seen));
}

/** The suite's test files (paths from the project root, sorted), split by whether they build a test app. */
export function topologyFiles(): { files: string[]; repeated: string[] } {
  const all = testFiles(path.join(ROOT, "test")).map((f) => path.relative(ROOT, f)).sort();
  const files = all.filter((f) => buildsTestApp(f));
  return { files, repeated: all.filter((f) => !files.includes(f)) };
}
