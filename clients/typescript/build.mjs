import { execFileSync } from "node:child_process";
import { rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// Builds dist/: JavaScript and declarations from src/index.ts, plus dist/schema.d.ts, which
// tsc never writes (src/schema.d.ts is an input, not an output): one line that re-exports the
// generated types from src/schema.d.ts, shipped beside dist/ ("files"), rather than a second
// copy of them to keep in step. dist/ is
// committed: `npm install ./clients/typescript` links this folder without building it (and
// package managers that block dependencies' scripts would not build it either), so the built
// package must already be here. `npm run client:generate` rebuilds it, `npm pack` too
// (prepack), and test/client/client.test.ts fails when it differs from a fresh build.
// `node build.mjs <dir>` builds into another directory instead (the test's fresh build).
// TypeScript is found from this folder upwards: the repository's own node_modules.
const here = import.meta.dirname;
const out = process.argv[2] ? path.resolve(process.argv[2]) : path.join(here, "dist");
const tsc = createRequire(path.join(here, "package.json")).resolve("typescript/bin/tsc");
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json"), "--outDir", out], { stdio: "inherit" });
writeFileSync(path.join(out, "schema.d.ts"), `export * from "../src/schema.js";\n`);
