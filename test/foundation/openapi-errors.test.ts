import assert from "node:assert/strict";
import { STATUS_CODES, createServer, request } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import type { LightMyRequestResponse } from "fastify";
import { codesOf } from "../../src/http/error-docs.js";
import { handleClientError } from "../../src/http/errors.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";

// The errors /docs lists for an operation are the ones it answers, each with an example body as
// that route answers it. For a sample of routes, every listed status is provoked over HTTP and
// the answer compared with the documented example (ids aside); the fuzz test checks the other
// way round, that no operation answers a 4xx it does not list.

type Media = { examples?: Record<string, { value: unknown }>; example?: unknown };
type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, Media> }> }>> };
interface ErrorAnswer { statusCode: number; message: string; error: string; code: string }

let t: TestApp;
let limited: TestApp;
let doc: Doc;
let m: SeededMerchant;
let inactive: SeededMerchant;
before(async () => {
  t = await buildTestApp();
  // Its own app: a per-key limit of 2 a second would trip the other tests' requests.
  limited = await buildTestApp({ rateLimitPerKey: 2 });
  doc = (await t.app.inject({ url: "/openapi.json" })).json();
  m = await seedMerchant(t);
  inactive = await seedMerchant(t);
  expectStatus(await t.app.inject({ method: "PATCH", url: `/v1/admin/merchants/${inactive.id}`, headers: { authorization: basic(t.admin) }, payload: { status: "inactive" } }), 200);
});
after(async () => {
  await t.close();
  await limited.close();
});

const errorStatuses = (method: string, path: string) =>
  Object.keys(doc.paths[path]![method]!.responses).map(Number).filter((s) => s >= 400).sort();

function example(method: string, path: string, status: number): ErrorAnswer {
  const media = doc.paths[path]![method]!.responses[status]?.content?.["application/json"];
  assert.ok(media, `${method.toUpperCase()} ${path} lists ${status}`);
  const value = media.example ?? Object.values(media.examples ?? {})[0]?.value;
  assert.ok(value, `${method.toUpperCase()} ${path} ${status} has an example`);
  return value as ErrorAnswer;
}

// Ids differ between the example and the answer: ch_01jd3m... and ch_01m89a... are both "ch_<id>".
const withoutIds = (e: ErrorAnswer) => ({ ...e, message: e.message.replace(/\b([a-z]{2,4}_)[0-9a-z]{26}\b/g, "$1<id>") });

/** The answer is the documented example of its status on this route, ids aside. */
function matches(res: LightMyRequestResponse, method: string, path: string, status: number): void {
  assert.equal(res.statusCode, status, `${method.toUpperCase()} ${path}: ${res.body}`);
  assert.deepEqual(withoutIds(res.json()), withoutIds(example(method, path, status)), `${method.toUpperCase()} ${path} ${status}`);
}

let address = 0;
/** A request from an address of its own, so that failed authentications never add up to a lockout. */
const send = (app: TestApp, opts: { method?: string; url: string; headers?: Record<string, string>; payload?: string | object }) =>
  app.app.inject({ method: (opts.method ?? "GET") as "GET", url: opts.url, headers: opts.headers, payload: opts.payload, remoteAddress: `10.9.${(++address >> 8) & 255}.${address & 255}` });

const json = { "content-type": "application/json" };
const tooLarge = JSON.stringify({ name: "x".repeat(1024 * 1024 + 10) });

test("every error example of the document has the error shape of its status", () => {
  const problems: string[] = [];
  let checked = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const status of errorStatuses(method, path)) {
        const media = op.responses[status]?.content?.["application/json"];
        const value = (media?.example ?? Object.values(media?.examples ?? {})[0]?.value) as ErrorAnswer | undefined;
        // /health's and /ready's 503 is {status: "unavailable"}, and the sandbox bank's pages answer a payer
        // in HTML: not error bodies.
        if (((path === "/health" || path === "/ready") && status === 503) || typeof value === "string") continue;
        checked++;
        if (!value) problems.push(`${method} ${path} ${status}: no example`);
        else if (value.statusCode !== status || value.error !== STATUS_CODES[status] || !codesOf(status).includes(value.code as never) || !value.message) {
          problems.push(`${method} ${path} ${status}: ${JSON.stringify(value)}`);
        }
      }
      // Every route reads headers through the input guard, so every one may answer 422; the HTTP
      // parser refuses headers over 16 KiB before any route.
      if (!errorStatuses(method, path).includes(422)) problems.push(`${method} ${path}: no 422`);
      if (!errorStatuses(method, path).includes(431)) problems.push(`${method} ${path}: no 431`);
      if (!errorStatuses(method, path).includes(408)) problems.push(`${method} ${path}: no 408`);
    }
  }
  assert.deepEqual(problems, []);
  assert.ok(checked > 500, `examples checked: ${checked}`);
});

test("GET /v1/customers/{id}: each listed error, provoked, answers its example", async () => {
  const [method, path] = ["get", "/v1/customers/{id}"];
  assert.deepEqual(errorStatuses(method, path), [400, 401, 403, 404, 408, 422, 429, 431]);
  const url = (id: string) => `/v1/customers/${id}`;
  const key = { authorization: basic(m.sandboxKey) };
  matches(await send(t, { url: url("x".repeat(101)), headers: key }), method, path, 400);
  matches(await send(t, { url: url("cus_01abc") }), method, path, 401);
  matches(await send(t, { url: url("cus_01abc"), headers: { authorization: basic(inactive.sandboxKey) } }), method, path, 403);
  matches(await send(t, { url: url("cus_01m89a4ev2mjeb2g0fad8yh4ge"), headers: key }), method, path, 404);
  matches(await send(t, { url: url("x".repeat(65)), headers: key }), method, path, 422);
});

test("PATCH /v1/merchant: each listed error, provoked, answers its example", async () => {
  const [method, path, url] = ["patch", "/v1/merchant", "/v1/merchant"];
  assert.deepEqual(errorStatuses(method, path), [400, 401, 403, 408, 413, 415, 422, 429, 431]);
  const headers = { authorization: basic(m.sandboxKey), ...json };
  matches(await send(t, { method: "PATCH", url, headers, payload: "{" }), method, path, 400);
  matches(await send(t, { method: "PATCH", url, headers: json, payload: "{}" }), method, path, 401);
  matches(await send(t, { method: "PATCH", url, headers: { ...headers, authorization: basic(inactive.sandboxKey) }, payload: { name: "x" } }), method, path, 403);
  matches(await send(t, { method: "PATCH", url, headers, payload: tooLarge }), method, path, 413);
  matches(await send(t, { method: "PATCH", url, headers: { ...headers, "content-type": "text/plain" }, payload: "name=x" }), method, path, 415);
  matches(await send(t, { method: "PATCH", url, headers, payload: "{}" }), method, path, 422);
});

test("POST /v1/admin/merchants: each listed error, provoked, answers its example", async () => {
  const [method, path, url] = ["post", "/v1/admin/merchants", "/v1/admin/merchants"];
  assert.deepEqual(errorStatuses(method, path), [400, 401, 408, 409, 413, 415, 422, 429, 431]);
  const headers = { authorization: basic(t.admin), ...json };
  matches(await send(t, { method: "POST", url, headers, payload: "{" }), method, path, 400);
  matches(await send(t, { method: "POST", url, headers: json, payload: "{}" }), method, path, 401);
  expectStatus(await send(t, { method: "POST", url, headers, payload: { name: "Loja Exemplo", email: "dono@loja-exemplo.com.br", password: "correct horse battery" } }), 201);
  matches(await send(t, { method: "POST", url, headers, payload: { name: "Loja Exemplo", email: "dono@loja-exemplo.com.br", password: "correct horse battery" } }), method, path, 409);
  matches(await send(t, { method: "POST", url, headers, payload: tooLarge }), method, path, 413);
  matches(await send(t, { method: "POST", url, headers: { ...headers, "content-type": "text/plain" }, payload: "x" }), method, path, 415);
  matches(await send(t, { method: "POST", url, headers, payload: "{}" }), method, path, 422);
  // 429: the address is locked out after 50 failed authentications in a row.
  const from = "10.200.0.1";
  let res: LightMyRequestResponse | undefined;
  for (let i = 0; i < 60 && res?.statusCode !== 429; i++) {
    res = await t.app.inject({ method: "POST", url, headers: { authorization: basic("adm_wrong"), ...json }, payload: "{}", remoteAddress: from });
  }
  matches(res!, method, path, 429);
});

test("POST /v1/auth/login: each listed error but 503 (the attempt counters down), provoked, answers its example", async () => {
  const [method, path, url] = ["post", "/v1/auth/login", "/v1/auth/login"];
  assert.deepEqual(errorStatuses(method, path), [400, 401, 403, 408, 413, 415, 422, 429, 431, 503]);
  matches(await send(t, { method: "POST", url, headers: json, payload: "{" }), method, path, 400);
  matches(await send(t, { method: "POST", url, payload: { email: m.email, password: "not the password" } }), method, path, 401);
  matches(await send(t, { method: "POST", url, payload: { email: inactive.email, password: inactive.password } }), method, path, 403);
  matches(await send(t, { method: "POST", url, headers: json, payload: tooLarge }), method, path, 413);
  matches(await send(t, { method: "POST", url, headers: { "content-type": "text/plain" }, payload: "x" }), method, path, 415);
  matches(await send(t, { method: "POST", url, headers: json, payload: "{}" }), method, path, 422);
  // 429: the account is locked for an address after 5 failures in a row from it.
  const locked = await seedMerchant(t);
  let res: LightMyRequestResponse | undefined;
  for (let i = 0; i < 10 && res?.statusCode !== 429; i++) {
    res = await t.app.inject({ method: "POST", url, headers: json, payload: { email: locked.email, password: "wrong password" }, remoteAddress: "10.201.0.1" });
  }
  matches(res!, method, path, 429);
});

test("the per-key limit answers the 429 example of a key's routes", async () => {
  const k = await seedMerchant(limited);
  const headers = { authorization: basic(k.sandboxKey) };
  /** The first 429 of a burst of requests at once, over a limit of 2 a second. */
  const refusedOf = async (opts: { method?: "GET" | "PATCH"; url: string; payload?: object }) => {
    const burst = await Promise.all(Array.from({ length: 12 }, () => limited.app.inject({ ...opts, headers })));
    const refused = burst.find((r) => r.statusCode === 429);
    assert.ok(refused, `some of 12 requests at once were refused: ${burst.map((r) => r.statusCode).join(",")}`);
    return refused.json() as ErrorAnswer;
  };
  // The example says the default limit; this app's is 2.
  const at2 = (e: ErrorAnswer) => ({ ...e, message: e.message.replace("limit is 100 per second", "limit is 2 per second") });
  assert.deepEqual(await refusedOf({ method: "PATCH", url: "/v1/merchant", payload: { name: "Burst" } }), at2(example("patch", "/v1/merchant", 429)));
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the next second's budget
  assert.deepEqual(await refusedOf({ url: "/v1/customers/cus_01m89a4ev2mjeb2g0fad8yh4ge" }), at2(example("get", "/v1/customers/{id}", 429)));
});

/** One request over a socket of its own, headers as given: the HTTP parser sees what inject never does. */
function overHttp(origin: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, origin), { headers, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (chunk) => { body += chunk; }).on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject).end();
  });
}

test("headers over 16 KiB: 431 in the error shape, as every operation documents it, and the server goes on", async () => {
  const origin = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const key = { authorization: basic(m.sandboxKey) };
  const huge = { ...key, "x-filler": "x".repeat(17 * 1024) };
  const res = await overHttp(origin, "/v1/customers/cus_01m89a4ev2mjeb2g0fad8yh4ge", huge);
  assert.equal(res.status, 431, res.body);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  assert.deepEqual(JSON.parse(res.body), example("get", "/v1/customers/{id}", 431));
  // A long basic credential and a long query are the same refusal, whatever the route.
  const longQuery = await overHttp(origin, `/v1/submerchants?legalName=${"x".repeat(9000)}`, { authorization: `Basic ${"A".repeat(9000)}` });
  assert.deepEqual(JSON.parse(longQuery.body), example("get", "/v1/submerchants", 431));
  // The next request on a new connection is served as usual.
  const after = await overHttp(origin, "/v1/customers/cus_01m89a4ev2mjeb2g0fad8yh4ge", key);
  assert.equal(after.status, 404, after.body);
});

test("headers that do not arrive in time: 408 in the error shape, as every operation documents it", async (t) => {
  // The app's clientErrorHandler on a Node server whose header timeout is 300 ms instead of the
  // default 60 s (Fastify's server keeps Node's default), so the refusal comes within the test.
  const server = createServer({ headersTimeout: 300, requestTimeout: 300, connectionsCheckingInterval: 50 });
  server.on("clientError", handleClientError);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
  let raw = "";
  socket.on("data", (chunk) => { raw += chunk.toString(); });
  const closed = new Promise<void>((resolve, reject) => { socket.on("close", () => resolve()); socket.on("error", reject); });
  socket.write("GET /v1/customers/cus_01m89a4ev2mjeb2g0fad8yh4ge HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // never ends its headers
  await closed;
  assert.match(raw, /^HTTP\/1\.1 408 Request Timeout\r\n/, raw);
  assert.match(raw, /\r\nContent-Type: application\/json/);
  assert.deepEqual(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)), example("get", "/v1/customers/{id}", 408));
});
