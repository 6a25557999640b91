import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { basic, buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";

// What a reader of /docs meets: every JSON request body has an example ("Try it out" starts
// from it), the example is valid for its own operation, the charge example really makes a
// charge, the page talks to the server it was loaded from, and descriptions carry no
// references to documents a reader does not have.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface MediaType { schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, { value: unknown }> }
interface Operation {
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<string, { content?: Record<string, MediaType> }>;
  description?: string;
  summary?: string;
}
interface Doc { servers?: { url: string }[]; paths: Record<string, Record<string, Operation>>; components: Record<string, unknown> }

let t: TestApp;
let doc: Doc;
before(async () => {
  t = await buildTestApp();
  const res = await t.app.inject({ url: "/openapi.json" });
  expectStatus(res, 200);
  doc = res.json();
});
after(() => t.close());

function jsonBodies(): { name: string; media: MediaType }[] {
  const out: { name: string; media: MediaType }[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const media = op.requestBody?.content?.["application/json"];
      if (media) out.push({ name: `${method.toUpperCase()} ${path}`, media });
    }
  }
  return out;
}

const examplesOf = (m: MediaType): unknown[] =>
  m.example !== undefined ? [m.example] : Object.values(m.examples ?? {}).map((e) => e.value);

test("every JSON request body has an example that its own schema accepts", () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const problems: string[] = [];
  for (const { name, media } of jsonBodies()) {
    const examples = examplesOf(media);
    if (examples.length === 0) {
      problems.push(`${name}: no example`);
      continue;
    }
    // The schema's $refs point into the document's components: validate with them at hand.
    const validate = ajv.compile({ ...media.schema, components: doc.components });
    for (const example of examples) {
      if (!validate(example)) problems.push(`${name}: example ${JSON.stringify(example)} is invalid: ${ajv.errorsText(validate.errors)}`);
    }
  }
  assert.deepEqual(problems, []);
});

test("every response example is valid for its schema", () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const problems: string[] = [];
  let seen = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const media = response.content?.["application/json"];
        if (!media?.schema) continue;
        const validate = ajv.compile({ ...media.schema, components: doc.components });
        for (const example of examplesOf(media)) {
          seen++;
          if (!validate(example)) problems.push(`${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}`);
        }
      }
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(seen > 0, "the charge answer at least has an example");
});

test("the POST /v1/charges example makes a charge with a sandbox key", async () => {
  const m = await seedMerchant(t);
  const media = doc.paths["/v1/charges"]!.post!.requestBody!.content!["application/json"]!;
  const examples = examplesOf(media);
  assert.ok(examples.length > 0, "POST /v1/charges has an example");
  for (const example of examples) {
    const res = await t.app.inject({ method: "POST", url: "/v1/charges", headers: { authorization: basic(m.sandboxKey) }, payload: example as object });
    expectStatus(res, 201);
    // The documented answer has the shape of the real one.
    const documented = examplesOf(doc.paths["/v1/charges"]!.post!.responses!["201"]!.content!["application/json"]!)[0] as Record<string, unknown>;
    assert.deepEqual(Object.keys(res.json()).sort(), Object.keys(documented).sort());
  }
});

test("Try it out calls the server the page came from, with usable auth schemes", () => {
  assert.deepEqual(doc.servers, [{ url: "/" }]);
  const schemes = (doc.components as { securitySchemes: Record<string, { type: string; scheme: string }> }).securitySchemes;
  assert.equal(schemes.secretKey?.scheme, "basic");
  assert.equal(schemes.bearerJwt?.scheme, "bearer");
});

test("descriptions name no internal documents (spec sections, the contract)", () => {
  const internal = /\bspec(ification)?\s+\d|\bCONTRACT\b|contract section|interface-spec/i;
  const found: string[] = [];
  const walk = (value: unknown, where: string) => {
    if (typeof value === "string") {
      if (internal.test(value)) found.push(`${where}: ${value}`);
    } else if (value && typeof value === "object") {
      for (const [k, v] of Object.entries(value)) walk(v, `${where}/${k}`);
    }
  };
  walk(doc, "#");
  assert.deepEqual(found, []);
});

test("the charge operation teaches the sandbox cards, the minimum amount and the currency rules", () => {
  const op = doc.paths["/v1/charges"]!.post!;
  for (const needle of ["4111111111111111", "4000000000000002", "4000000000009995", "4000000000000119", "4000000000000259", "4000000000003220", "4000000000000101", "Luhn", "at least 1", "ISO 4217", "upper-case"]) {
    assert.ok(op.description?.includes(needle), `createCharge description names ${needle}`);
  }
});
