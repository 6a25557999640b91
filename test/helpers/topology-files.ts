import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./process.js";

// Which test files `npm run test:topology` runs: those that build a test app. A file that builds
// none runs exactly as in the plain PostgreSQL run, so the topology run does not repeat it. Nor
// does it run a file marked `// topology: skip: <why>`: one whose every app stays in-process
// (the processes would never see a request of it), or whose subject is not the server's
// behaviour across processes (a browser's rendering of pages whose HTTP tests run on the
// processes, a package, a document). Each such file says why on its mark.

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

const SKIP = /^\/\/ topology: skip: (.+)$/m;

/** Why a file's mark keeps it out of the topology run, if it has one. */
export function skipReason(file: string): string | undefined {
  return SKIP.exec(readFileSync(path.resolve(ROOT, file), "utf8"))?.[1];
}

/**
 * The suite's test files (paths from the project root, sorted), split by whether they build a
 * test app; `skipped` are those that do but are marked out of the topology run.
 */
export function topologyFiles(): { files: string[]; repeated: string[]; skipped: string[] } {
  const all = testFiles(path.join(ROOT, "test")).map((f) => path.relative(ROOT, f)).sort();
  const building = all.filter((f) => buildsTestApp(f));
  const skipped = building.filter((f) => skipReason(f) !== undefined);
  return { files: building.filter((f) => !skipped.includes(f)), repeated: all.filter((f) => !building.includes(f)), skipped };
}
