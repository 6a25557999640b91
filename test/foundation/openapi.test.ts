import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";

// The API document is generated from the route schemas: every documented operation must be
// complete enough for a client generator and for a reader of /docs. Also /health and /metrics.

type Operation = {
  operationId?: string;
  tags?: string[];
  summary?: string;
  security?: Record<string, string[]>[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};
type Doc = {
  openapi: string;
  info: { title: string; version: string };
  tags?: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, unknown>; schemas?: Record<string, unknown> };
};

const METHODS = ["get", "put", "post", "patch", "delete", "head", "options"];

let t: TestApp;
let doc: Doc;
before(async () => {
  t = await buildTestApp();
  const res = await t.app.inject({ url: "/openapi.json" });
  expectStatus(res, 200);
  doc = res.json();
});
after(async () => { await t.close(); });

function operations(): [string, Operation][] {
  const out: [string, Operation][] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) if (METHODS.includes(method)) out.push([`${method.toUpperCase()} ${path}`, op]);
  }
  return out;
}

test("/openapi.json is an OpenAPI 3.1 document, public", () => {
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.title, "feira API");
  assert.ok(operations().length >= 8);
  for (const scheme of ["secretKey", "bearerJwt", "adminKey"]) assert.ok(doc.components.securitySchemes[scheme], scheme);
});

test("every documented route has operationId, tags, summary, a success response schema and security", () => {
  const problems: string[] = [];
  const ids = new Map<string, string>();
  const declaredTags = new Set((doc.tags ?? []).map((tag) => tag.name));
  for (const [name, op] of operations()) {
    if (!op.operationId) problems.push(`${name}: no operationId`);
    else if (ids.has(op.operationId)) problems.push(`${name}: operationId ${op.operationId} also used by ${ids.get(op.operationId)}`);
    else ids.set(op.operationId, name);
    if (!op.tags?.length) problems.push(`${name}: no tags`);
    for (const tag of op.tags ?? []) if (!declaredTags.has(tag)) problems.push(`${name}: tag ${tag} is not declared in the document's tags`);
    if (!op.summary) problems.push(`${name}: no summary`);
    if (!Array.isArray(op.security)) problems.push(`${name}: no security entry`);
    for (const requirement of op.security ?? []) {
      for (const scheme of Object.keys(requirement)) if (!doc.components.securitySchemes[scheme]) problems.push(`${name}: unknown security scheme ${scheme}`);
    }
    const success = Object.entries(op.responses ?? {}).filter(([code]) => /^2/.test(code));
    // A redirect is the success of a route a browser is sent to (the OAuth callback).
    const redirects = Object.keys(op.responses ?? {}).some((code) => /^30[1237]$/.test(code));
    if (success.length === 0 && !redirects) problems.push(`${name}: no 2xx response`);
    for (const [code, response] of success) {
      const schemas = Object.values(response.content ?? {}).filter((media) => media.schema);
      if (code !== "204" && schemas.length === 0) problems.push(`${name}: ${code} has no schema`);
    }
  }
  assert.deepEqual(problems, []);
});

test("security follows each route's authentication", () => {
  const security = (method: string, path: string) => doc.paths[path]?.[method]?.security;
  assert.deepEqual(security("post", "/v1/customers"), [{ secretKey: [] }]);
  assert.deepEqual(security("post", "/v1/admin/merchants"), [{ adminKey: [] }]);
  assert.deepEqual(security("post", "/v1/auth/login"), []);
  assert.deepEqual(security("get", "/health"), []);
  assert.deepEqual(security("get", "/ready"), []);
});

test("every $ref resolves inside the document", () => {
  const dangling: string[] = [];
  const resolve = (ref: string) => ref.replace(/^#\//, "").split("/").reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
  const walk = (node: unknown) => {
    if (Array.isArray(node)) return node.forEach(walk);
    if (node && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === "$ref" && typeof v === "string" && resolve(v) === undefined) dangling.push(v);
        else walk(v);
      }
    }
  };
  walk(doc);
  assert.deepEqual(dangling, []);
});

test("hidden routes stay out of the document", () => {
  for (const path of ["/metrics", "/openapi.json", "/docs", "/docs/json"]) assert.equal(doc.paths[path], undefined, path);
});

test("/docs serves the Swagger UI page without credentials", async () => {
  const res = await t.app.inject({ url: "/docs" });
  if (res.statusCode === 302) {
    const next = await t.app.inject({ url: String(res.headers.location) });
    expectStatus(next, 200);
    assert.match(String(next.headers["content-type"]), /^text\/html/);
  } else {
    expectStatus(res, 200);
    assert.match(String(res.headers["content-type"]), /^text\/html/);
    assert.match(res.body, /swagger/i);
  }
  const init = await t.app.inject({ url: "/docs/static/swagger-initializer.js" });
  expectStatus(init, 200);
  const json = await t.app.inject({ url: "/docs/json" });
  expectStatus(json, 200);
  assert.equal(json.json().openapi, "3.1.0");
});

test("/health answers 200 {status: ok}", async () => {
  const res = await t.app.inject({ url: "/health" });
  expectStatus(res, 200);
  assert.deepEqual(res.json(), { status: "ok" });
});

test("/ready answers 200 {status: ok} when the database written to takes writes, and is public", async () => {
  const res = await t.app.inject({ url: "/ready" });
  expectStatus(res, 200);
  assert.deepEqual(res.json(), { status: "ok" });
});

test("/metrics is Prometheus text with the request-duration histogram, labelled by route", async () => {
  const m = await seedMerchant(t);
  expectStatus(await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(m.sandboxKey) } }), 200);
  // Metrics are per process: behind a balancer (the topology mode), the process that served
  // the request above may not be the one asked first, so ask each of them in turn.
  const served = /feira_http_request_duration_seconds_count\{method="GET",route="\/v1\/customers",status_code="200"\} [1-9]/;
  let res = await t.app.inject({ url: "/metrics" });
  for (let i = 0; i < 8 && res.statusCode === 200 && !served.test(res.body); i++) res = await t.app.inject({ url: "/metrics" });
  expectStatus(res, 200);
  assert.match(String(res.headers["content-type"]), /^text\/plain/);
  assert.match(res.body, /# TYPE feira_http_request_duration_seconds histogram/);
  assert.match(res.body, served);
  assert.match(res.body, /feira_process_cpu_user_seconds_total/);
  assert.doesNotMatch(res.body, /sk_test_|cus_/, "no ids or keys in labels");
});
