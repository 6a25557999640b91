import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// The layers' rules (docs/architecture.md, "Layout"), read from the source so that a new import
// cannot quietly undo them:
// - the kernel (src/core: errors, request context, amounts) is where services, repos and jobs
//   find what every layer shares; src/http is Fastify's, and only routes and wire schemas use it;
// - a module reaches another module only through its index.ts (or, for the composition in
//   services.ts, its module file);
// - every app-wide hook is added in src/http/hooks.ts, in the order a request meets them.

const ROOT = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === "migrations" ? [] : sourceFiles(full);
    return e.name.endsWith(".ts") ? [full] : [];
  });
}

const rel = (file: string) => path.relative(ROOT, file).split(path.sep).join("/");
const FILES = sourceFiles(path.join(ROOT, "src")).map((file) => ({ file: rel(file), text: readFileSync(file, "utf8") }));

/** Every relative import or re-export of a file, resolved to a repository path (.ts). */
function importsOf(file: string, text: string): string[] {
  const specs = [...text.matchAll(/^(?:import|export)\s[^;]*?from\s+"(\.[^"]+)"/gm)].map((m) => m[1]!);
  return specs.map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)).replace(/\.js$/, ".ts"));
}

// Reviewed exceptions, each with its reason; an exception that no longer applies fails the test.
const HTTP_EXCEPTIONS: Record<string, string> = {
  "src/modules/merchants/merchants.module.ts": "hands the login throttle (which answers with a FastifyReply) to its routes",
};

test("services, repos, jobs and processors import nothing from src/http (routes and wire schemas may)", () => {
  const layered = /^src\/(modules|db|jobs|processors|lib|core)\//;
  const httpFacing = /\.(routes|schemas)\.ts$/;
  const found = FILES.filter(({ file, text }) =>
    layered.test(file) && !httpFacing.test(file) && importsOf(file, text).some((t) => t.startsWith("src/http/")));
  const unexpected = found.map((f) => f.file).filter((f) => !HTTP_EXCEPTIONS[f]);
  assert.deepEqual(unexpected, [], "import the kernel from src/core (errors, context, amounts) or src/db (pagination)");
  const stale = Object.keys(HTTP_EXCEPTIONS).filter((f) => !found.some((x) => x.file === f));
  assert.deepEqual(stale, [], "exceptions that no longer apply");
});

test("a module imports another module only through its index.ts", () => {
  const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1];
  const crossings = FILES.flatMap(({ file, text }) => {
    const from = moduleOf(file);
    if (!from) return [];
    return importsOf(file, text)
      .filter((target) => moduleOf(target) && moduleOf(target) !== from && !target.endsWith("/index.ts"))
      .map((target) => `${file} -> ${target}`);
  });
  assert.deepEqual(crossings, []);
});

// Hooks a plugin adds for its own routes only (Fastify scopes them to the plugin).
const SCOPED_HOOKS: Record<string, string> = {
  "src/web/panel/panel.routes.ts": "the panel's multipart body reader and session/CSRF check, for /panel routes",
  "src/modules/webhooks/event-stream.routes.ts": "ends the open event streams when the app closes",
};

test("app-wide hooks are added in src/http/hooks.ts only", () => {
  const adding = FILES.filter(({ file, text }) => file !== "src/http/hooks.ts" && /\.addHook\(/.test(text)).map((f) => f.file);
  assert.deepEqual(adding.filter((f) => !SCOPED_HOOKS[f]), [], "add the hook in src/http/hooks.ts, in its place in the request's life");
  assert.deepEqual(Object.keys(SCOPED_HOOKS).filter((f) => !adding.includes(f)), [], "exceptions that no longer apply");
});

test("the rules see what they forbid (the checks themselves can fail)", () => {
  assert.deepEqual(importsOf("src/modules/charges/charges.service.ts", 'import { AppError } from "../../http/errors.js";\n'), ["src/http/errors.ts"]);
  assert.deepEqual(importsOf("src/modules/a/x.ts", 'export { y } from "../b/y.js";\n'), ["src/modules/b/y.ts"]);
});
