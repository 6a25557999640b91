import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ROOT } from "./process.js";
import { buildsTestApp, skipReason, topologyFiles } from "./topology-files.js";

// The topology run leaves out only the files that build no test app, whatever the route to
// buildTestApp: a direct call, or a helper the file imports, or a helper of that helper.

test("the topology run takes every file that builds a test app, directly or through helpers, and only leaves out the others", () => {
  const { files, repeated } = topologyFiles();
  assert.ok(files.includes("test/charges/exactly-once.test.ts"), "calls buildTestApp itself");
  assert.ok(files.includes("test/webhooks/delivery.test.ts"), "builds its app through test/webhooks/harness.ts");
  assert.ok(files.includes("test/shipping/oauth.test.ts"), "builds its app through test/helpers/shipping.ts");
  assert.ok(repeated.includes("test/lib/money.test.ts"), "a unit test");
  assert.ok(repeated.includes("test/charges/crash-run.test.ts"), "starts its own processes");
  for (const file of [...repeated, ...topologyFiles().skipped]) {
    const text = readFileSync(path.join(ROOT, file), "utf8");
    assert.doesNotMatch(text, /FEIRA_TEST_TOPOLOGY|FEIRA_TEST_POOLER_URL|topologyMode\(/, `${file} reads the topology, so it must run in the topology run`);
  }
});

test("a helper two imports away counts; a comment naming buildTestApp does not", (t) => {
  const dir = mkdtempSync(path.join(ROOT, "test", "tmp-topology-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(path.join(dir, "inner.ts"), `import { buildTestApp } from "../helpers/app.js";\nexport const make = () => buildTestApp();\n`);
  writeFileSync(path.join(dir, "outer.ts"), `export { make } from "./inner.js";\nimport { make } from "./inner.js";\nexport const world = make;\n`);
  writeFileSync(path.join(dir, "a.test.ts"), `import { world } from "./outer.js";\nvoid world;\n`);
  writeFileSync(path.join(dir, "b.test.ts"), `// unlike buildTestApp(), this needs no app\nimport { basicAuth } from "../helpers/process.js";\nvoid basicAuth;\n`);
  assert.equal(buildsTestApp(path.join(dir, "a.test.ts")), true);
  assert.equal(buildsTestApp(path.join(dir, "b.test.ts")), false);
});

test("a file marked out of the topology run builds an app, says why, and is not one that reads the topology", () => {
  const { files, skipped } = topologyFiles();
  assert.ok(skipped.includes("test/foundation/cluster.test.ts"), "every app of it stays in-process");
  for (const file of skipped) {
    assert.ok(!files.includes(file), file);
    assert.ok(buildsTestApp(file), `${file} builds no app: it needs no mark`);
    assert.ok((skipReason(file) ?? "").length >= 20, `${file}: the mark says why`);
  }
});
