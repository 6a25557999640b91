import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { buildTestApp, expectStatus } from "../helpers/app.js";
import { tempDir } from "../helpers/temp-dirs.js";
// topology: skip: the OpenAPI document's lint: the document is the same whatever serves it

// The document that code generators for other languages read: /openapi.json linted by the
// pinned Redocly CLI with its recommended rules (redocly.yaml) and no exception. 0 errors and 0 warnings: a discriminator
// beside inline schemas, a missing license or an operation without a success answer fails here.

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");

interface Problem { ruleId: string; severity: string; message: string; location: { pointer?: string }[] }

test("redocly lint finds no error and no warning in /openapi.json", { timeout: 180_000 }, async () => {
  const t = await buildTestApp();
  const dir = tempDir("feira-openapi-lint-");
  try {
    const res = await t.app.inject({ url: "/openapi.json" });
    expectStatus(res, 200);
    writeFileSync(path.join(dir, "openapi.json"), res.body);
    copyFileSync(path.join(ROOT, "redocly.yaml"), path.join(dir, "redocly.yaml"));
    // Offline and quiet: no telemetry, no update check.
    const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" };
    const redocly = path.join(ROOT, "node_modules/@redocly/cli/bin/cli.js");
    // A lint with problems exits 1; its report is on stdout all the same.
    const { stdout } = await run(process.execPath, [redocly, "lint", "openapi.json", "--format=json"], { cwd: dir, env, timeout: 150_000, maxBuffer: 64 * 1024 * 1024 })
      .catch((err: { stdout?: string; stderr?: string }) => ({ stdout: err.stdout || assert.fail(`redocly lint did not run:\n${err.stderr}`) }));
    const report = JSON.parse(stdout) as { version: string; totals: { errors: number; warnings: number }; problems: Problem[] };
    const problems = report.problems.map((p) => `${p.severity} ${p.ruleId} at ${p.location.map((l) => l.pointer).join(", ")}: ${p.message}`).join("\n");
    assert.equal(report.version, "2.77.0", "the pinned Redocly CLI");
    assert.deepEqual(report.totals.errors + report.totals.warnings, 0, `redocly lint reports:\n${problems}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  }
});
