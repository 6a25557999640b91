import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

// A reader of src/ has this repository and nothing else. A comment that cites "spec 2.7",
// "CONTRACT section 3" or a file under ../shared/ sends them to a document they do not have:
// the comment must state the rule it needs, or name the file of this repository (docs/,
// README.md) that states it. Strings count too (route descriptions reach /openapi.json, error
// messages reach clients); module specifiers of imports do not.

const ROOT = path.resolve(import.meta.dirname, "../..");
const SRC = path.join(ROOT, "src");

/** Citations of documents kept outside the repository. */
const OUTSIDE = [
  /\bspec(ification)?\s*(part|section|§)?\s*\d/i, // "spec 2.7", "Spec 2.8", "spec part 6"
  /\bCONTRACT\b/, // "CONTRACT 7", "CONTRACT section 4", "CONTRACT.md"
  /\bcontract section\b/i,
  /\bshared\//, // "shared/reference/...", "../shared/"
  /interface-spec/i,
  /\breference\/[\w-]+\.md/,
  /\b(payments-conventions|external-apis|model-codebases|subscriptions-links)\b/,
  /\b(ARCHITECTURE|STYLE)\.md\b/,
];

const cites = (text: string) => OUTSIDE.some((re) => re.test(text));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return files(full);
    return /\.(ts|mts|js|mjs|css|sql|html)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [full] : [];
  });
}

/** The comments and string literals of a TypeScript or JavaScript file, with their line. */
function textsOf(file: string, source: string): Array<{ line: number; text: string }> {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true, file.endsWith(".js") ? ts.ScriptKind.JS : ts.ScriptKind.TS);
  const seen = new Set<number>();
  const out: Array<{ line: number; text: string }> = [];
  const add = (pos: number, end: number) => {
    if (seen.has(pos)) return;
    seen.add(pos);
    out.push({ line: sf.getLineAndCharacterOfPosition(pos).line + 1, text: source.slice(pos, end) });
  };
  const visit = (node: ts.Node) => {
    for (const r of ts.getLeadingCommentRanges(source, node.getFullStart()) ?? []) add(r.pos, r.end);
    for (const r of ts.getTrailingCommentRanges(source, node.getEnd()) ?? []) add(r.pos, r.end);
    const specifier = ts.isImportDeclaration(node.parent ?? node) || ts.isExportDeclaration(node.parent ?? node);
    if ((ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) && !specifier) add(node.getStart(sf), node.getEnd());
    // getChildren includes the tokens (a closing brace, the end of the file), whose leading
    // trivia holds the comments written after the last statement of a block.
    for (const child of node.getChildren(sf)) visit(child);
  };
  visit(sf);
  return out;
}

function findings(file: string, source: string): string[] {
  const rel = path.relative(ROOT, file).split(path.sep).join("/");
  const texts = /\.(ts|mts|js|mjs)$/.test(file)
    ? textsOf(file, source)
    : source.split("\n").map((text, i) => ({ line: i + 1, text }));
  return texts.flatMap((t) => {
    const lines = t.text.split("\n");
    const i = lines.findIndex(cites);
    // A citation split across two lines of a comment is still one citation.
    if (i < 0) return cites(t.text) ? [`${rel}:${t.line}: ${lines[0]!.trim()}`] : [];
    return [`${rel}:${t.line + i}: ${lines[i]!.trim()}`];
  });
}

test("no comment or string in src/ cites a document outside the repository", () => {
  const found = files(SRC).flatMap((f) => findings(f, readFileSync(f, "utf8")));
  assert.equal(found.length, 0, `state the rule in the comment, or point to docs/ (add it there if no doc states it):\n${found.join("\n")}`);
});

test("the rule sees a citation in a comment or a string, and nothing else (the check itself can fail)", () => {
  const sample = [
    "import { x } from \"../shared/x.js\";",
    "// Payout fee (spec 2.7): fixed + amount * percent / 100.",
    "/**\n * The built-in simulator (CONTRACT section 4).\n */",
    "const a = 1; // see shared/reference/stack.md",
    "const d = { description: \"Announced by Spec 6.3.\" };",
    "const e = `as the interface-spec says`;",
    "// social_contract is a KYC document; expand, then contract; specs 2 and docs/decisions.md are fine.",
    "const f = /spec 1/.test(\"x\") ? \"social_contract\" : \"docs/guarantees.md\";",
    "function g() {",
    "  f();",
    "  // the end of a block (spec 8)",
    "}",
    "// the end of the file: CONTRACT 2",
  ].join("\n");
  const lines = findings(path.join(SRC, "sample.ts"), sample).map((f) => Number(f.split(":")[1]));
  assert.deepEqual(lines, [2, 4, 6, 7, 8, 13, 15]);
  assert.deepEqual(findings(path.join(SRC, "db/migrations/x.sql"), "-- payouts (spec 2.7)\nselect 1;"), ["src/db/migrations/x.sql:1: -- payouts (spec 2.7)"]);
});
