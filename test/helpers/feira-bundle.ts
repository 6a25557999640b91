import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

// What the tests' child processes of feira run (startFeira and nodeMain: the crash, process and
// CLI tests, the topology's API and worker processes; the CLI of test/cli): the program and its
// packages as one JavaScript file per entry, built once per version of src/ and shared by every
// test file and process of a run.

const ROOT = path.resolve(import.meta.dirname, "../..");
const BUNDLES = path.join(ROOT, "node_modules/.cache/feira-topology");

// What a bundle runs: a module of the repository, or the source of an entry of its own.
type Spec = { entry: string } | { name: string; source: string };
// bin/feira.mjs without its tsx registration: the CLI.
const CLI: Spec = { name: "cli", source: `import { main } from "./src/cli/main.ts";\nawait main();\n` };

const bundles = new Map<string, Promise<string>>();

/**
 * The node arguments that start feira's server. A start costs about 0.4 s of CPU this way
 * against 2 s through tsx (no loader thread, no resolution of hundreds of modules), which matters
 * with four processes per test app, or a crash test's dozen restarts, on two cores. Production
 * runs compiled JavaScript too (`node dist/main.js`). Each source file's `import.meta.url` stays
 * its own, so the migrations and page assets are read from where they are.
 * FEIRA_TOPOLOGY_ENTRY=tsx runs `--import tsx src/main.ts` instead.
 */
export async function feiraEntry(): Promise<string[]> {
  if (process.env.FEIRA_TOPOLOGY_ENTRY === "tsx") return ["--import", "tsx", "src/main.ts"];
  // Under the suite's runner (run-suite.ts sets FEIRA_TEST_LIFTOFF_ONLY=1), V8 compiles PGlite's
  // WebAssembly (PostgreSQL) with its baseline compiler only, never optimising it again on other
  // threads: a start takes about 1.2 s of CPU, not 2, and the tests' processes live seconds to
  // minutes, too short for the optimised code to pay for itself. Benchmarks keep V8's default.
  const liftoff = process.env.FEIRA_TEST_LIFTOFF_ONLY === "1" ? ["--liftoff-only"] : [];
  return [...liftoff, await bundled({ entry: "src/main.ts" })];
}

/** The node arguments that run the `feira` CLI (bin/feira.mjs's program); FEIRA_TOPOLOGY_ENTRY=tsx: bin/feira.mjs itself. */
export async function cliEntry(): Promise<string[]> {
  if (process.env.FEIRA_TOPOLOGY_ENTRY === "tsx") return [path.join(ROOT, "bin/feira.mjs")];
  return [await bundled(CLI)];
}

/**
 * A module of the repository (`src/db/lock.ts`) as one ESM file with its packages, for a child
 * that needs a piece of feira without tsx's start (`node -e 'import(url)...'`): its file URL.
 */
export async function bundledModule(entry: string): Promise<string> {
  return pathToFileURL(await bundled({ entry })).href;
}

function bundled(spec: Spec): Promise<string> {
  const key = "entry" in spec ? spec.entry : spec.name;
  let made = bundles.get(key);
  if (!made) bundles.set(key, (made = build1(spec)));
  return made;
}

async function build1(spec: Spec): Promise<string> {
  // Named after the entry: main-<hash>.mjs (src/main.ts), db_lock-<hash>.mjs, cli-<hash>.mjs.
  const program = "entry" in spec ? spec.entry.replace(/^src\//, "").replace(/\.ts$/, "").replaceAll("/", "_") : spec.name;
  // The name tells the programs apart; the hash is of the sources (and of an entry's own source),
  // so that a worktree beside this one with the same src/ shares, and never removes, its bundles.
  const hash = createHash("sha256").update("source" in spec ? spec.source : "");
  for (const f of listSources(path.join(ROOT, "src"))) hash.update(f).update(readFileSync(f));
  const out = path.join(BUNDLES, `${program}-${hash.digest("hex").slice(0, 16)}.mjs`);
  if (existsSync(out)) return out;
  mkdirSync(BUNDLES, { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  await build({
    ...("entry" in spec ? { entryPoints: [path.join(ROOT, spec.entry)] } : { stdin: { contents: spec.source, resolveDir: ROOT, sourcefile: `${program}.ts`, loader: "ts" } }),
    bundle: true, platform: "node", format: "esm", target: "node20",
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
  // This program's bundles of older sources go, once no test file of a run that began before can
  // still start one (another program's bundle of these sources may be older, and in use).
  for (const f of readdirSync(BUNDLES).filter((f) => f.startsWith(`${program}-`))) {
    const old = path.join(BUNDLES, f);
    if (old !== out && Date.now() - statSync(old).mtimeMs > 3_600_000) rmSync(old, { force: true });
  }
  return out;
}

function listSources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name)).flatMap((e) =>
    e.isDirectory() ? listSources(path.join(dir, e.name)) : [path.join(dir, e.name)]);
}
