import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Ajv } from "ajv";
import addFormatsModule from "ajv-formats";
import { basic, buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";

// What a reader of /docs meets: every JSON request body and every success response has a
// hand-written example ("Try it out" starts from it; swagger-ui would show "string" and 0),
// every example anywhere in the document is valid for its own schema, the charge example really makes a
// charge, the page talks to the server it was loaded from, and descriptions carry no
// references to documents a reader does not have.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

interface MediaType { schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, { value: unknown }> }
interface Parameter { name: string; in: string; schema?: Record<string, unknown>; example?: unknown; examples?: Record<string, { value: unknown }> }
interface Operation {
  parameters?: Parameter[];
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

type Schema = Record<string, unknown>;
interface Found { where: string; schema: Schema; example: unknown }

const examplesOf = (m: MediaType): unknown[] =>
  m.example !== undefined ? [m.example] : Object.values(m.examples ?? {}).map((e) => e.value);

/** Every `example` and `examples` entry inside a schema, each with the subschema it belongs to. */
function schemaExamples(schema: unknown, where: string, out: Found[]): void {
  if (!schema || typeof schema !== "object") return;
  if (Array.isArray(schema)) {
    schema.forEach((s, i) => schemaExamples(s, `${where}/${i}`, out));
    return;
  }
  const s = schema as Schema;
  if ("example" in s) out.push({ where: `${where}/example`, schema: s, example: s.example });
  if (Array.isArray(s.examples)) s.examples.forEach((example, i) => out.push({ where: `${where}/examples/${i}`, schema: s, example }));
  for (const key of ["properties", "patternProperties", "$defs"]) {
    for (const [name, sub] of Object.entries((s[key] as Record<string, unknown> | undefined) ?? {})) schemaExamples(sub, `${where}/${key}/${name}`, out);
  }
  for (const key of ["items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames"]) schemaExamples(s[key], `${where}/${key}`, out);
  for (const key of ["anyOf", "oneOf", "allOf", "prefixItems"]) schemaExamples(s[key], `${where}/${key}`, out);
}

/** A media type's examples (`example`, `examples`) and those nested in its schema. */
function mediaExamples(media: MediaType, where: string, out: Found[]): void {
  const schema = media.schema ?? {};
  for (const example of examplesOf(media)) out.push({ where, schema, example });
  schemaExamples(media.schema, `${where} schema`, out);
}

/** Every example of the document: parameters, request bodies, responses and shared components. */
function allExamples(): Found[] {
  const out: Found[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const name = `${method.toUpperCase()} ${path}`;
      for (const p of op.parameters ?? []) {
        if (p.example !== undefined) out.push({ where: `${name} ${p.in} ${p.name}`, schema: p.schema ?? {}, example: p.example });
        for (const [k, e] of Object.entries(p.examples ?? {})) out.push({ where: `${name} ${p.in} ${p.name} ${k}`, schema: p.schema ?? {}, example: e.value });
        schemaExamples(p.schema, `${name} ${p.in} ${p.name}`, out);
      }
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) mediaExamples(media, `${name} request ${type}`, out);
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        for (const [type, media] of Object.entries(response.content ?? {})) mediaExamples(media, `${name} ${status} ${type}`, out);
      }
    }
  }
  for (const [id, schema] of Object.entries((doc.components.schemas ?? {}) as Record<string, unknown>)) schemaExamples(schema, `components/${id}`, out);
  return out;
}

function newAjv(): Ajv {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addFormat("binary", true); // OpenAPI's file content: any string
  return ajv;
}

/** The problems of the examples given; empty when every one is valid for its own schema. */
function invalidExamples(found: Found[]): string[] {
  const ajv = newAjv();
  const problems: string[] = [];
  for (const { where, schema, example } of found) {
    // The schema's $refs point into the document's components: validate with them at hand.
    const validate = ajv.compile({ ...schema, components: doc.components });
    if (!validate(example)) problems.push(`${where}: ${ajv.errorsText(validate.errors)} in ${JSON.stringify(example).slice(0, 300)}`);
  }
  return problems;
}

test("every JSON request body has an example", () => {
  const missing: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) {
        if (examplesOf(media).length === 0) missing.push(`${method.toUpperCase()} ${path} ${type}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test("every success response with a body has a hand-written example (swagger-ui shows placeholders otherwise)", () => {
  const missing: string[] = [];
  let operations = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      operations++;
      const statuses = Object.keys(op.responses ?? {});
      const success = Object.entries(op.responses ?? {}).filter(([status]) => /^2/.test(status));
      // A redirect (the OAuth callback) answers no body to show.
      assert.ok(success.length > 0 || statuses.some((s) => /^3/.test(s)), `${method.toUpperCase()} ${path} documents a success response`);
      for (const [status, response] of success) {
        for (const [type, media] of Object.entries(response.content ?? {})) {
          if (examplesOf(media).length === 0) missing.push(`${method.toUpperCase()} ${path} ${status} ${type}`);
        }
      }
    }
  }
  assert.deepEqual(missing, []);
  assert.ok(operations >= 90, `the whole document is checked (${operations} operations)`);
});

test("every example in the document (parameters, bodies, responses, nested schemas) is valid for its own schema", () => {
  const found = allExamples();
  assert.deepEqual(invalidExamples(found), []);
  assert.ok(found.length >= 130, `examples were found (${found.length})`);
});

// Keys, signing secrets and tokens in examples are visible placeholders (sk_test_EXAMPLE-...),
// never strings that could be, or be mistaken for, real credentials.
const SECRET_SHAPES = [
  /\bsk_(test|live)_[A-Za-z0-9]{16,}/,
  /\bwhsec_[A-Za-z0-9+/]{20,}/,
  /\badm_[A-Za-z0-9]{16,}/,
  /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}/,
];
const secretsIn = (found: Found[]) =>
  found.flatMap(({ where, example }) => SECRET_SHAPES.filter((re) => re.test(JSON.stringify(example))).map((re) => `${where}: ${re}`));

test("no example shows anything that passes for a real key, secret or token", () => {
  assert.deepEqual(secretsIn(allExamples()), []);
  // Probes of each shape, made here rather than written out, so that no literal in the tree
  // passes for a credential.
  const b64url = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  const real = [
    `sk_live_${"a1B2".repeat(8)}`,
    `whsec_${Buffer.alloc(32, 7).toString("base64")}`,
    `adm_${"9f".repeat(20)}`,
    `${b64url({ alg: "HS256" })}.${b64url({ sub: "mer_01" })}.${"x".repeat(43)}`,
  ];
  assert.equal(secretsIn(real.map((example) => ({ where: "probe", schema: {}, example }))).length, real.length, "each shape is recognized");
});

test("the check catches a broken example, a nested one and a parameter's", () => {
  const found = allExamples();
  const charge = found.find((f) => f.where === "POST /v1/charges 201 application/json")!;
  const nested = found.find((f) => f.where.includes(" schema/") && typeof f.example === "object" && f.example !== null && !Array.isArray(f.example))!;
  const param = found.find((f) => / query /.test(f.where))!;
  assert.ok(charge && nested && param, "the document has each kind of example");
  const broken = [
    { ...charge, example: { ...(charge.example as object), status: "teleported" } },
    { ...nested, example: 42 },
    { ...param, example: { not: "a query value" } },
  ];
  assert.equal(invalidExamples(broken).length, 3);
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
