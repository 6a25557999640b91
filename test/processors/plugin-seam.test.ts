import { test, after, before } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { loadConfig, ConfigError } from "../../src/config.js";
import { defineProcessor } from "../../src/processors/definition.js";
import type { LookupResult, PaymentProcessor } from "../../src/processors/processor.js";
import { PROCESSORS } from "../../src/processors/registry.js";
import { basic, buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { cardCharge, CARDS, createCharge, get } from "../helpers/charges.js";
import { ROOT, tempDir } from "../helpers/process.js";

// The processor seam, measured: a throwaway processor defined here, in no file of src/, is
// configured from its own variables, routed by PAYMENT_ROUTES, serves a live charge over HTTP,
// and its notice arrives through the one generic route (with a sub-path the provider appends).
// Nothing in src/ names it. The last test lists the files a real new processor needs: its folder
// and the registry's line; grep proves no other core file names the processors there are.

const payments = new Map<string, LookupResult>();

/** An in-memory acquirer: cards wait in review until the test pays them at the "provider". */
function createAcmeAdapter(apiKey: string): PaymentProcessor {
  assert.match(apiKey, /^ak_/, "the definition's options reach its adapter");
  return {
    name: "acme",
    supports: (method, currency) => method === "credit_card" && currency === "BRL",
    checkInstrument: () => null,
    async authorize(input) {
      const state = { outcome: "in_analysis" as const, pspRefId: `acme_${input.chargeId}` };
      payments.set(input.chargeId, state);
      return state;
    },
    lookup: async ({ chargeId }) => payments.get(chargeId) ?? { outcome: "not_found" },
  };
}

const acme = defineProcessor({
  name: "acme",
  methods: ["credit_card"],
  settings: {
    apiKey: { env: "ACME_API_KEY", required: true },
    noticeSecret: { env: "ACME_NOTICE_SECRET", required: true },
    apiUrl: { env: "ACME_API_URL", url: true, default: "https://api.acme.example" },
  },
  check: (o) => (o.apiKey.startsWith("ak_") ? [] : ["ACME_API_KEY must start with ak_"]),
  create: (o) => createAcmeAdapter(o.apiKey),
  notices: {
    description: "Acme: a `secret` query parameter; the body's `ref` names the charge.",
    read(notice, o) {
      if (notice.query.secret !== o.noticeSecret) return { outcome: "refused", status: 401, message: "secret is wrong" };
      const ref = (notice.body as { ref?: unknown } | undefined)?.ref;
      // A probe (no reference) is accepted and changes nothing, as Efí's registration probe.
      return { outcome: "accepted", payments: typeof ref === "string" && notice.subPath === "pay" ? [ref] : [] };
    },
  },
});

const definitions = [...PROCESSORS, acme];
const ENV = { PAYMENT_ROUTES: "credit_card=acme", ACME_API_KEY: "ak_live_1", ACME_NOTICE_SECRET: "s3cret" };

let t: TestApp;
let key: string;

before(async () => {
  const { live } = loadConfig({ DATA_DIR: tempDir(), ...ENV }, definitions);
  t = await buildTestApp({ live }, { processors: definitions, noWorkerProcesses: "the notice is the only thing that settles the charge" });
  key = (await seedMerchant(t)).productionKey;
});

after(() => t.close());

test("a processor's variables are its definition's: required per route, checked by its own rule, defaults filled in", () => {
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ DATA_DIR: tempDir(), ...env }, definitions);
      return [];
    } catch (err) {
      return err instanceof ConfigError ? err.problems : [String(err)];
    }
  };
  assert.deepEqual(problems({ PAYMENT_ROUTES: "credit_card=acme", ACME_API_KEY: "ak_1" }), ["ACME_NOTICE_SECRET is required by PAYMENT_ROUTES (acme)"]);
  assert.deepEqual(problems({ ...ENV, ACME_API_KEY: "wrong" }), ["ACME_API_KEY must start with ak_"]);
  assert.deepEqual(problems({ ACME_API_URL: "ftp://x" }), ["ACME_API_URL must be an http(s) URL"]);
  assert.match(problems({ PAYMENT_ROUTES: "pix=acme" })[0]!, /acme does not serve pix \(it serves credit_card\)/);
  const { live } = loadConfig({ DATA_DIR: tempDir(), ...ENV }, definitions);
  assert.deepEqual(live.routes, { credit_card: ["acme"] });
  assert.deepEqual(live.processors.acme, { apiKey: "ak_live_1", noticeSecret: "s3cret", apiUrl: "https://api.acme.example" });
});

test("the throwaway processor serves a live charge, and its notice through the generic route settles it", async () => {
  const charge = await createCharge(t, key, cardCharge(CARDS.visa));
  assert.equal(charge.status, "in_analysis");
  const admin = await t.app.inject({ url: "/v1/admin/processors", headers: { authorization: basic(t.admin) } });
  assert.deepEqual(admin.json().processors.map((p: { name: string }) => p.name), ["acme"], admin.body);

  // Paid at the provider; feira learns it from the notice only (no worker runs here).
  payments.set(charge.id, { outcome: "paid", pspRefId: `acme_${charge.id}` });
  const forged = await t.app.inject({ method: "POST", url: "/v1/processors/acme/webhooks/pay?secret=nope", payload: { ref: charge.id } });
  assert.equal(forged.statusCode, 401, forged.body);
  assert.equal(forged.json().error, "Unauthorized");
  const probe = await t.app.inject({ method: "POST", url: "/v1/processors/acme/webhooks?secret=s3cret", payload: {} });
  assert.equal(probe.statusCode, 200, probe.body);
  assert.equal((await get(t, key, `/v1/charges/${charge.id}`)).json().status, "in_analysis", "neither a forged notice nor a probe changes anything");

  const notice = await t.app.inject({ method: "POST", url: "/v1/processors/acme/webhooks/pay?secret=s3cret", payload: { ref: charge.id } });
  assert.equal(notice.statusCode, 200, notice.body);
  assert.deepEqual(notice.json(), { received: true });
  const after = (await get(t, key, `/v1/charges/${charge.id}`)).json();
  assert.equal(after.status, "paid", JSON.stringify(after));
  assert.equal(after.processor, "acme");

  const unknown = await t.app.inject({ method: "POST", url: "/v1/processors/nobody/webhooks", payload: {} });
  assert.equal(unknown.statusCode, 404, unknown.body);
});

/** Every .ts file under a directory, relative to the repository. */
function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

test("a new processor is its folder and one registry line: no other core file names a processor", (ctx) => {
  const names = PROCESSORS.map((d) => d.name);
  const pattern = new RegExp(`\\b(${names.join("|")})\\b`, "i");
  const outside = sources("src").filter((f) => !names.some((n) => f.startsWith(`src/processors/${n}/`)));
  const naming = outside.flatMap((f) => readFileSync(path.join(ROOT, f), "utf8").split("\n").flatMap((line, i) => (pattern.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])));
  const registry = "src/processors/registry.ts";
  assert.deepEqual(naming.filter((l) => !l.startsWith(`${registry}:`)), [], "only the registry names a processor outside its folder");
  // Per processor, the registry's line in the list and the import it needs.
  for (const name of names) assert.equal(naming.filter((l) => new RegExp(`\\b${name}\\b`).test(l)).length, 2, naming.join("\n"));

  // What the processors there are needed: their folder, and that line.
  const files = names.map((n) => `${n}: ${sources(`src/processors/${n}`).join(", ")} + ${registry} (one line, one import)`);
  for (const f of files) ctx.diagnostic(f);
  for (const n of names) assert.ok(sources(`src/processors/${n}`).includes(`src/processors/${n}/${n}.definition.ts`), `${n} exports its definition from ${n}.definition.ts`);
});
