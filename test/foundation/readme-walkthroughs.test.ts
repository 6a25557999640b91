import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { ROOT, tempDir } from "../helpers/process.js";

// The README's walk-throughs are pasted into a shell inside a clone: a file they write there
// would be left behind as an untracked file. Example files go to a temporary directory.

const blocks = [...readFileSync(path.join(ROOT, "README.md"), "utf8").matchAll(/```sh\n([\s\S]*?)```/g)].map((b) => b[1]!);

test("no README shell block writes a file outside a temporary directory", () => {
  assert.ok(blocks.length > 10, "the README has its shell blocks");
  // Variables that hold a path made by mktemp, e.g. KYC="$(mktemp -d)/kyc.pdf".
  const temporary = new Set([...blocks.join("\n").matchAll(/^([A-Z_]+)="?\$\(mktemp\b/gm)].map((v) => v[1]!));
  const allowed = (target: string) => target === "/dev/null" || [...temporary].some((v) => new RegExp(`^"?\\$\\{?${v}\\b`).test(target));
  for (const block of blocks) {
    // What is quoted in '...' is text (JSON bodies, node -e programs, printf formats), not redirection.
    const code = block.replace(/'[^']*'/g, "''");
    const targets = [
      ...[...code.matchAll(/(?<![0-9&=-])>>?\s*([^\s|;&)]+)/g)].map((w) => w[1]!),
      ...[...code.matchAll(/(?:^|\s)(?:-o|--output)\s+([^\s|;&)]+)/g)].map((w) => w[1]!),
      ...[...code.matchAll(/\btee\s+(?:-a\s+)?([^\s|;&)]+)/g)].map((w) => w[1]!),
    ];
    for (const target of targets) assert.ok(allowed(target), `README block writes ${target}, outside a temporary directory:\n${block}`);
  }
  assert.ok(temporary.has("KYC"), "the Connect walk-through's example PDF has a temporary path");
});

test("the Connect walk-through's KYC upload, run in an empty directory, leaves it empty and uploads a PDF", (t) => {
  if (spawnSync("sh", ["-c", "command -v bash && command -v mktemp"]).status !== 0) {
    t.diagnostic("bash or mktemp not installed: block not run");
    return;
  }
  const block = blocks.find((b) => /kyc\.pdf/.test(b)) ?? assert.fail("the README has the KYC upload block");
  const cwd = tempDir("feira-walkthrough-cwd-");
  const tmp = tempDir("feira-walkthrough-tmp-");
  // curl stands in for the server here: it prints each file it would upload.
  const run = spawnSync("bash", ["-c", [
    "set -euo pipefail",
    'curl() { for a in "$@"; do case "$a" in *=@*) echo "upload ${a#*=@}";; esac; done; }',
    "KEY=sk_test_x SUB=sm_x",
    block,
  ].join("\n")], { cwd, encoding: "utf8", env: { ...process.env, TMPDIR: tmp } });
  assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  assert.deepEqual(readdirSync(cwd), [], "nothing is written to the working directory");
  const uploads = [...run.stdout.matchAll(/^upload (.+)$/gm)].map((u) => u[1]!);
  assert.equal(uploads.length, 4, run.stdout);
  for (const file of uploads) {
    assert.ok(file.startsWith(tmp + path.sep), `${file} is in the temporary directory ${tmp}`);
    assert.match(readFileSync(file, "utf8"), /^%PDF-1\.4\n/);
  }
});
