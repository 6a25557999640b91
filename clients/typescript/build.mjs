import { execFileSync } from "node:child_process";
import { copyFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

// Builds dist/: JavaScript and declarations from src/index.ts, plus the generated types of
// src/schema.d.ts, which tsc never copies (a .d.ts is an input, not an output). `npm pack` runs
// this first (prepack). TypeScript is found from this folder upwards: the repository's own
// node_modules when built in place.
const here = import.meta.dirname;
const out = path.join(here, "dist");
const tsc = createRequire(path.join(here, "package.json")).resolve("typescript/bin/tsc");
rmSync(out, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", path.join(here, "tsconfig.json")], { stdio: "inherit" });
copyFileSync(path.join(here, "src/schema.d.ts"), path.join(out, "schema.d.ts"));
