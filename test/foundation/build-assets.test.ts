import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// `npm run build` compiles the TypeScript and copies the folders of everything else the server
// reads at run time (migrations, the checkout's and the panel's CSS and JS): a file outside
// those folders would be missing from dist/, and `node dist/main.js` (how docs/deploy.md runs
// production) would fail to start. A new asset folder must be added to the build script.

const ROOT = path.resolve(import.meta.dirname, "../..");

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? files(full) : [full];
  });
}

test("every file under src/ that is not TypeScript is in a folder npm run build copies to dist/", () => {
  const build = (JSON.parse(readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.build!;
  const copied = [...build.matchAll(/'([\w/.-]+)'/g)].map((m) => m[1]!).filter((d) => !d.includes(":"));
  assert.ok(copied.includes("db/migrations"), build);
  const assets = files(path.join(ROOT, "src")).filter((f) => !f.endsWith(".ts")).map((f) => path.relative(path.join(ROOT, "src"), f).split(path.sep).join("/"));
  assert.ok(assets.length > 0);
  const missing = assets.filter((f) => !copied.some((d) => f.startsWith(`${d}/`)));
  assert.deepEqual(missing, [], `copy their folders in the build script: ${build}`);
});
