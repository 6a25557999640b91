import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { basic, buildTestApp, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { tempDir } from "../helpers/temp-dirs.js";
// topology: skip: the client's package as npm packs and installs it: nothing of it depends on the server's processes

// The client as a user gets it, both ways the README gives: `npm install ./clients/typescript`
// (a link to the folder, with its committed dist/ and openapi-fetch from the clone's
// node_modules), and `npm pack` of it (its prepack builds dist/) installed from the tarball into
// a project of its own; imported from a plain .mjs file and from a type-checked .mts file,
// calling a running feira. The packing happens on a copy in a temp dir, so the source tree gets
// nothing to clean. openapi-fetch, for the tarball, comes from the npm cache or the registry.
const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
const CLIENT = path.join(ROOT, "clients/typescript");

let t: TestApp;
let baseUrl: string;
let m: SeededMerchant;
let dir: string;
before(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  m = await seedMerchant(t);
  dir = tempDir("feira-client-");
});
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await t.close();
});

const npm = (args: string[], cwd: string) =>
  run("npm", [...args, "--no-audit", "--no-fund", "--loglevel=error"], { cwd, env: { ...process.env, npm_config_update_notifier: "false" }, timeout: 180_000 });

const USE_MJS = `import { createFeiraClient, idempotencyKey } from "@feira/client";

const feira = createFeiraClient({ baseUrl: process.env.FEIRA_URL, apiKey: process.env.FEIRA_KEY });
const customer = await feira.POST("/v1/customers", {
  body: { name: "Ana Souza", email: "ana@example.com", documentType: "cpf", documentId: "52998224725" },
});
if (customer.error) throw new Error(JSON.stringify(customer.error));
const charge = await feira.POST("/v1/charges", {
  params: { header: { "idempotency-key": idempotencyKey() } },
  body: { amount: 10, currency: "BRL", customer: { id: customer.data.id }, paymentMethod: { type: "pix" } },
});
if (charge.error) throw new Error(JSON.stringify(charge.error));
const refused = await createFeiraClient({ baseUrl: process.env.FEIRA_URL, apiKey: "sk_test_wrong" }).GET("/v1/charges", {});
console.log(JSON.stringify({ customer: customer.data.id, charge: charge.data, refused: refused.error }));
`;

// Types reach a TypeScript consumer through the exports map: a wrong path is a compile error.
const USE_MTS = `import { createFeiraClient, type components } from "@feira/client";

const feira = createFeiraClient({ baseUrl: "http://localhost:3000", apiKey: "sk_test_x" });
export async function latest(): Promise<components["schemas"]["ErrorBody"] | string | undefined> {
  const { data, error } = await feira.GET("/v1/charges", { params: { query: { limit: 1 } } });
  // @ts-expect-error: no such route
  await feira.GET("/v1/nowhere", {});
  return error ?? data?.data[0]?.id;
}
`;

/** Runs USE_MJS in `app` against the server; the charge it made is really there. */
async function callsTheServer(app: string): Promise<void> {
  writeFileSync(path.join(app, "use.mjs"), USE_MJS);
  const { stdout } = await run(process.execPath, ["use.mjs"], { cwd: app, env: { ...process.env, FEIRA_URL: baseUrl, FEIRA_KEY: m.sandboxKey }, timeout: 60_000 });
  const out = JSON.parse(stdout) as { customer: string; charge: { id: string; status: string }; refused: { statusCode: number; code: string } };
  assert.match(out.customer, /^cus_/, stdout);
  assert.match(out.charge.id, /^ch_/, stdout);
  assert.equal(out.charge.status, "pending", stdout);
  assert.equal(out.refused.statusCode, 401);
  assert.equal(out.refused.code, "unauthorized");
  const stored = await t.app.inject({ url: `/v1/charges/${out.charge.id}`, headers: { authorization: basic(m.sandboxKey) } });
  assert.equal(stored.statusCode, 200, stored.body);
  assert.equal(stored.json().customerId, out.customer);
}

function project(name: string): string {
  const app = path.join(dir, name);
  mkdirSync(app);
  writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "shop", private: true, type: "module" }));
  return app;
}

test("npm install ./clients/typescript (the folder) works from plain Node, offline, and builds nothing", { timeout: 300_000 }, async () => {
  const app = project("from-folder");
  await npm(["install", "--offline", CLIENT], app);
  await callsTheServer(app);
  assert.equal(existsSync(path.join(CLIENT, "node_modules")), false, "nothing was installed into the clone's folder");
});

test("the client packs, installs from its tarball and works from plain Node against a running server", { timeout: 300_000 }, async () => {
  // A copy of the package beside the repository's node_modules (TypeScript for the build,
  // openapi-fetch's types), so the build writes into the temp dir only.
  const pkg = path.join(dir, "pkg");
  mkdirSync(pkg);
  for (const f of ["package.json", "README.md", "tsconfig.json", "build.mjs", "src"]) cpSync(path.join(CLIENT, f), path.join(pkg, f), { recursive: true });
  symlinkSync(path.join(ROOT, "node_modules"), path.join(pkg, "node_modules"), "dir");

  const { stdout: packed } = await npm(["pack", "--json", "--pack-destination", dir], pkg);
  const [info] = JSON.parse(packed) as { filename: string; files: { path: string }[] }[];
  const files = info!.files.map((f) => f.path).sort();
  assert.deepEqual(files, ["README.md", "dist/index.d.ts", "dist/index.js", "dist/schema.d.ts", "package.json", "src/schema.d.ts"], "the tarball holds the built package only");

  const app = project("from-tarball");
  await npm(["install", "--prefer-offline", path.join(dir, info!.filename)], app);
  const installed = JSON.parse(readFileSync(path.join(app, "node_modules/@feira/client/package.json"), "utf8")) as { exports: unknown };
  assert.ok(installed.exports, "the installed package has an exports map");
  await callsTheServer(app);

  writeFileSync(path.join(app, "use.mts"), USE_MTS);
  writeFileSync(path.join(app, "tsconfig.json"), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] },
    files: ["use.mts"],
  }));
  const tsc = path.join(ROOT, "node_modules/typescript/bin/tsc");
  await run(process.execPath, [tsc, "-p", "tsconfig.json"], { cwd: app, timeout: 120_000 })
    .catch((err: { stdout?: string }) => assert.fail(`a TypeScript consumer does not compile:\n${err.stdout}`));
});
