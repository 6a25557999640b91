import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { ROOT } from "./process.js";

// What the tests' feira processes run (startFeira: the crash tests, the CLI's tests, the
// topology's API and worker processes): src/main.ts and its packages as one JavaScript file,
// built once per version of src/ and shared by every test file and process of a run.

const BUNDLES = path.join(ROOT, "node_modules/.cache/feira-topology");
let bundle: Promise<string> | undefined;

/**
 * The node arguments that start feira. A start costs about 0.4 s of CPU this way against 2 s
 * through tsx (no loader thread, no resolution of hundreds of modules), which matters with four
 * processes per test app, or a crash test's dozen restarts, on two cores. Production runs
 * compiled JavaScript too (`node dist/main.js`). Each source file's `import.meta.url` stays its
 * own, so the migrations and page assets are read from where they are.
 * FEIRA_TOPOLOGY_ENTRY=tsx runs `--import tsx src/main.ts` instead.
 */
export async function feiraEntry(): Promise<string[]> {
  if (process.env.FEIRA_TOPOLOGY_ENTRY === "tsx") return ["--import", "tsx", "src/main.ts"];
  return [await feiraBundle()];
}

function feiraBundle(): Promise<string> {
  return (bundle ??= (async () => {
    const files = listSources(path.join(ROOT, "src"));
    const hash = createHash("sha256");
    for (const f of files) hash.update(f).update(readFileSync(f));
    const out = path.join(BUNDLES, `main-${hash.digest("hex").slice(0, 16)}.mjs`);
    if (existsSync(out)) return out;
    mkdirSync(BUNDLES, { recursive: true });
    const tmp = `${out}.${process.pid}.tmp`;
    await build({
      entryPoints: [path.join(ROOT, "src/main.ts")], bundle: true, platform: "node", format: "esm", target: "node20",
      // Packages that read their own files, load native or WASM code, or start threads from
      // their own path stay in node_modules.
      external: ["@fastify/swagger-ui", "@electric-sql/pglite", "@node-rs/argon2", "pino", "pino-pretty", "thread-stream", "pg-native"],
      // CommonJS packages inside an ESM bundle still call require().
      banner: { js: "import { createRequire as __feiraRequire } from 'node:module'; const require = __feiraRequire(import.meta.url);" },
      outfile: tmp, logLevel: "error",
      plugins: [{
        name: "own-import-meta-url",
        setup(b) {
          b.onLoad({ filter: /\/src\/.*\.ts$/ }, async (args) => ({
            contents: (await readFile(args.path, "utf8")).replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href)),
            loader: "ts",
          }));
        },
      }],
    });
    renameSync(tmp, out); // atomic: test files building at once never run half a bundle
    // Bundles of older sources go, once no test file of a run that began before can still start one.
    for (const f of readdirSync(BUNDLES)) {
      const old = path.join(BUNDLES, f);
      if (old !== out && Date.now() - statSync(old).mtimeMs > 3_600_000) rmSync(old, { force: true });
    }
    return out;
  })());
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) =>
    e.isDirectory() ? listSources(path.join(dir, e.name)) : [path.join(dir, e.name)]);
}
