import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import path from "node:path";
import { ROOT } from "../helpers/process.js";

// The docs are a map of the code: a newcomer follows their file paths and names into src/. A
// map that names a file that moved or a function that was renamed sends them nowhere, so every
// path and code name the README and docs/ cite in inline code is checked against the tree.
// Fenced blocks are examples (shell sessions, diagrams) and are not read.

const CODE_DIRS = ["src", "test", "bench", "clients/typescript/src"];

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(full));
    else out.push(full);
  }
  return out;
}

const THIS_FILE = "test/foundation/doc-citations.test.ts"; // names stale names on purpose
const codeFiles = CODE_DIRS.flatMap((d) => filesUnder(path.join(ROOT, d))).map((f) => path.relative(ROOT, f)).filter((f) => f !== THIS_FILE);
/** The code without its comments: a name that lives on only in a comment is as stale as a missing one. */
const codeText = codeFiles
  .filter((f) => /\.(ts|js|sql|css|html)$/.test(f))
  .map((f) => readFileSync(path.join(ROOT, f), "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1"))
  .join("\n");

/** Inline code spans of a Markdown file, outside fenced blocks, with their line numbers. */
function inlineSpans(file: string): { span: string; line: number }[] {
  const spans: { span: string; line: number }[] = [];
  let fenced = false;
  readFileSync(path.join(ROOT, file), "utf8").split("\n").forEach((text, i) => {
    if (/^\s*```/.test(text)) fenced = !fenced;
    else if (!fenced) for (const m of text.matchAll(/`([^`]+)`/g)) spans.push({ span: m[1]!, line: i + 1 });
  });
  return spans;
}

const docFiles = ["README.md", ...readdirSync(path.join(ROOT, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
/** Docs that mostly cite other systems (providers' APIs and SDKs, PGlite's sources): there only
 *  rooted paths (`src/...`) and members of feira's own types are feira's. */
const ABOUT_OTHERS = new Set(["docs/processors.md", "docs/embedded-database.md", "docs/melhor-envio.md"]);

/** A cited path exists: from the root when it starts at a code directory, else as the tail of one. */
function pathExists(cited: string): boolean {
  const clean = cited.replace(/[:#].*$/, "").replace(/\/$/, "");
  if (clean.endsWith(".js") && !/^(src|test|bench)\//.test(clean)) return true; // built output or a library's file
  if (/^(src|test|bench|docs|clients)\//.test(clean)) return existsSync(path.join(ROOT, clean));
  return codeFiles.some((f) => f.endsWith(`/${clean}`) || (statSync(path.join(ROOT, path.dirname(f))).isDirectory() && path.dirname(f).endsWith(`/${clean}`)));
}

const word = (name: string) => new RegExp(`(?<![\\w$])${name.replace(/[.$]/g, "\\$&")}(?![\\w$])`);
const inCode = (name: string) => word(name).test(codeText);

/** A dotted name is a code path (`charges.check`) found as written, or a field path
 *  (`split.N.merchantId`, `AuthorizeInput.customer`) whose last part is a declared key (not a
 *  parameter: `charges.validate` is stale though some function takes a `validate` argument). */
function nameExists(name: string): boolean {
  if (inCode(name)) return true;
  const parts = name.split(".");
  if (parts.length < 2) return false;
  // A key of an object, a type or a schema: at the start of a line or after `{` or `,`.
  return new RegExp(`(?:^\\s*|[{,]\\s*)${parts.at(-1)!}\\??:`, "m").test(codeText);
}

/** What a span cites: paths of code files, and code names (camelCase, PascalCase, dotted members, calls). */
function citations(span: string): { paths: string[]; names: string[] } {
  const paths = [...span.matchAll(/(?:^|[\s(,])((?:src\/|test\/|bench\/)?\w[\w.-]*(?:\/[\w.-]+)*\.(?:ts|js|sql))(?=$|[\s),:])/g)]
    .map((m) => m[1]!)
    .concat([...span.matchAll(/(?:^|\s)((?:src|test|bench)\/[\w/-]+\/?)(?=$|\s)/g)].map((m) => m[1]!));
  const names: string[] = [];
  const call = /^([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\(.*\))?$/.exec(span.trim());
  if (call && !/\.(ts|js|sql|md|json|css|html)$/.test(call[1]!)) {
    const name = call[1]!;
    const camel = /[a-z][A-Z]/.test(name) || /^[A-Z][a-z]+[A-Z]/.test(name);
    if (camel || (name.includes(".") && /\(/.test(span))) names.push(name);
  }
  return { paths, names };
}

test("every src/ path and code name the README and docs cite exists", () => {
  const stale: string[] = [];
  for (const file of docFiles) {
    for (const { span, line } of inlineSpans(file)) {
      if (/[<>*{}]|\.\.\./.test(span)) continue; // a pattern or a placeholder, not a name
      const { paths, names } = citations(span);
      const others = ABOUT_OTHERS.has(file);
      for (const p of paths) {
        if (others && !/^(src|test|bench)\//.test(p)) continue;
        if (!pathExists(p)) stale.push(`${file}:${line} path ${p}`);
      }
      for (const n of names) {
        const head = n.split(".")[0]!;
        if (others && !(n.includes(".") && inCode(head) && !builtinModules.includes(head))) continue;
        if (!nameExists(n)) stale.push(`${file}:${line} name ${n}`);
      }
    }
  }
  assert.deepEqual(stale, [], "cited in the docs but not in the code");
});

test("the check finds a stale citation (a renamed function, a moved file)", () => {
  assert.deepEqual(citations("charges.validate(ctx, cmd)").names, ["charges.validate"]);
  assert.equal(nameExists("charges.validate"), false);
  assert.equal(nameExists("charges.check"), true);
  assert.deepEqual(citations("lib/amount-limits.ts").paths, ["lib/amount-limits.ts"]);
  assert.equal(pathExists("lib/amount-limits.ts"), false);
  assert.equal(pathExists("src/modules/charges/"), true);
  assert.equal(pathExists("lib/ids.ts"), true);
});

test("docs/architecture.md stays a map a newcomer reads in one sitting", () => {
  const lines = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8").split("\n").length;
  assert.ok(lines <= 150, `docs/architecture.md has ${lines} lines: move detail to docs/decisions.md`);
});
