import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import type { LightMyRequestResponse } from "fastify";
import { sql } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge } from "../helpers/charges.js";

// Every error, the framework's own included, is {statusCode, message,
// error}; a 500 shows nothing of its cause to the client and is logged with the request id.

const SECRET_DETAIL = "db password hunter2 at /srv/feira/src/secret.ts:42";
const logs: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    for (const line of chunk.toString().split("\n")) if (line.trim()) logs.push(JSON.parse(line));
    done();
  },
});

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp({}, {
    logger: { level: "info", stream: logStream },
    // Test-only routes that fail the ways production code can: a thrown Error, a database
    // error (whose text names tables), a thrown non-Error.
    beforeReady: (app, database) => {
      const opts = { config: { auth: "public" as const }, schema: { hide: true } };
      app.get("/test/boom", opts, async () => { throw new Error(SECRET_DETAIL); });
      app.get("/test/db-boom", opts, async () => database.db.execute(sql`select secret_column from no_such_table`));
      app.get("/test/throw-string", opts, async () => { throw "a string, not an Error"; });
      app.post("/test/boom", opts, async () => { throw new Error(SECRET_DETAIL); });
    },
  });
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const auth = () => ({ authorization: basic(m.sandboxKey) });
const validCustomer = { name: "Ana", email: "ana@example.com", documentId: "52998224725", documentType: "cpf" };

/** The error body {statusCode, message, error, code}, with the status's reason phrase. */
function expectError(res: LightMyRequestResponse, status: number, message?: RegExp): void {
  expectStatus(res, status);
  assert.match(String(res.headers["content-type"]), /^application\/json/);
  const body = res.json();
  assert.equal(body.statusCode, status);
  assert.equal(typeof body.message, "string");
  assert.ok(body.message.length > 0);
  assert.equal(typeof body.error, "string");
  assert.equal(body.error, ({
    400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
    409: "Conflict", 413: "Payload Too Large", 415: "Unsupported Media Type", 422: "Unprocessable Entity",
    500: "Internal Server Error",
  } as Record<number, string>)[status]);
  if (message) assert.match(body.message, message);
  assert.ok(res.headers["x-request-id"], "every answer carries x-request-id");
}

test("malformed JSON is 400", async () => {
  const res = await t.app.inject({
    method: "POST", url: "/v1/customers", headers: { ...auth(), "content-type": "application/json" }, payload: '{"name": "Ana",',
  });
  expectError(res, 400, /Malformed JSON/);
});

test("an empty body sent as JSON is a missing body: 422 saying what to send", async () => {
  const res = await t.app.inject({ method: "POST", url: "/v1/customers", headers: { ...auth(), "content-type": "application/json" }, payload: "" });
  expectError(res, 422, /^body is missing: this route takes a JSON object, sent with Content-Type: application\/json/);
});

test("a JSON body with __proto__ is refused as malformed (400)", async () => {
  const res = await t.app.inject({
    method: "POST", url: "/v1/customers", headers: { ...auth(), "content-type": "application/json" },
    payload: '{"name": "Ana", "__proto__": {"isAdmin": true}}',
  });
  expectError(res, 400);
});

test("an unsupported content type is 415, text/plain included", async () => {
  for (const type of ["application/xml", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
    const res = await t.app.inject({ method: "POST", url: "/v1/customers", headers: { ...auth(), "content-type": type }, payload: "name=Ana" });
    expectError(res, 415, /send the body as application\/json/);
  }
});

test("a body over the 1 MiB limit is 413", async () => {
  const res = await t.app.inject({
    method: "POST", url: "/v1/customers", headers: { ...auth(), "content-type": "application/json" },
    payload: JSON.stringify({ ...validCustomer, name: "x".repeat(1024 * 1024) }),
  });
  expectError(res, 413);
});

test("an unknown route is 404, before any authentication", async () => {
  expectError(await t.app.inject({ url: "/v1/nothing-here" }), 404, /Route GET \/v1\/nothing-here not found/);
  expectError(await t.app.inject({ url: "/v1/nothing-here", headers: auth() }), 404);
  expectError(await t.app.inject({ method: "POST", url: "/nope", headers: { "content-type": "application/json" }, payload: "{bad" }), 400);
});

test("a known path with another method is 405 with Allow", async () => {
  const res = await t.app.inject({ method: "DELETE", url: "/v1/customers" });
  expectError(res, 405, /Method DELETE not allowed on \/v1\/customers/);
  assert.deepEqual(String(res.headers.allow).split(", ").sort(), ["GET", "HEAD", "POST"]);
  const one = await t.app.inject({ method: "PUT", url: "/v1/customers/cus_123", headers: auth() });
  expectError(one, 405);
  assert.match(String(one.headers.allow), /GET/);
});

test("401, 403, 404, 409 and 422 from the application share the shape", async () => {
  expectError(await t.app.inject({ url: "/v1/customers" }), 401, /^Unauthorized: no Authorization header; /);
  expectError(await t.app.inject({ url: "/v1/customers/cus_doesnotexist", headers: auth() }), 404, /Customer cus_doesnotexist not found/);
  expectError(await t.app.inject({
    method: "POST", url: "/v1/customers", headers: auth(), payload: { ...validCustomer, email: "not-an-email" },
  }), 422, /^email /);
  expectError(await t.app.inject({
    method: "POST", url: "/v1/admin/merchants", headers: { authorization: basic(t.admin) },
    payload: { name: "Dup", email: m.email, password: "long enough password" },
  }), 409, /already exists/);

  const other = await seedMerchant(t);
  expectStatus(await t.app.inject({
    method: "PATCH", url: `/v1/admin/merchants/${other.id}`, headers: { authorization: basic(t.admin) }, payload: { status: "blocked" },
  }), 200);
  expectError(await t.app.inject({ url: "/v1/customers", headers: { authorization: basic(other.sandboxKey) } }), 403, /not active/);
});

test("a 500 shows no internals, and is logged with the request id and the cause", async () => {
  for (const [method, url] of [["GET", "/test/boom"], ["GET", "/test/db-boom"], ["GET", "/test/throw-string"], ["POST", "/test/boom"]] as const) {
    const requestId = `boom-${method}-${url.length}`;
    const res = await t.app.inject({ method, url, headers: { "x-request-id": requestId }, ...(method === "POST" ? { payload: {} } : {}) });
    expectError(res, 500);
    assert.deepEqual(res.json(), { statusCode: 500, message: "Internal server error", error: "Internal Server Error", code: "internal" });
    assert.doesNotMatch(res.body, /hunter2|secret|no_such_table|stack|\.ts/);
    assert.equal(res.headers["x-request-id"], requestId);

    const logged = logs.find((l) => l.level === 50 && l.requestId === requestId);
    assert.ok(logged, `an error line with requestId ${requestId}; logged: ${JSON.stringify(logs.filter((l) => l.level === 50))}`);
    assert.equal(logged.reqId, requestId);
    assert.equal(logged.msg, "request failed");
    if (url === "/test/boom") assert.match(JSON.stringify(logged.err), /hunter2/, "the operator sees the cause");
    if (url === "/test/db-boom") assert.match(JSON.stringify(logged.err), /no_such_table/);
  }
});

test("X-Request-Id: a plain one is kept, anything else is replaced, and each answer has one", async () => {
  const kept = await t.app.inject({ url: "/health", headers: { "x-request-id": "client-req.42_A" } });
  assert.equal(kept.headers["x-request-id"], "client-req.42_A");

  for (const bad of ["has spaces", "x".repeat(65), "semi;colon", "ünïcode"]) {
    const res = await t.app.inject({ url: "/health", headers: { "x-request-id": bad } });
    assert.match(String(res.headers["x-request-id"]), /^req_[A-Za-z0-9]{20}$/, `replaced: ${JSON.stringify(bad)}`);
  }
  const a = await t.app.inject({ url: "/health" });
  const b = await t.app.inject({ url: "/health" });
  assert.match(String(a.headers["x-request-id"]), /^req_[A-Za-z0-9]{20}$/);
  assert.notEqual(a.headers["x-request-id"], b.headers["x-request-id"]);

  const unauthorized = await t.app.inject({ url: "/v1/customers", headers: { "x-request-id": "trace-401" } });
  expectStatus(unauthorized, 401);
  assert.equal(unauthorized.headers["x-request-id"], "trace-401");
  const notFound = await t.app.inject({ url: "/nowhere", headers: { "x-request-id": "trace-404" } });
  expectStatus(notFound, 404);
  assert.equal(notFound.headers["x-request-id"], "trace-404");
  assert.ok(logs.some((l) => l.reqId === "trace-401"), "the request id is on the request's log lines");
});

test("a failed request changes nothing", async () => {
  const fresh = await seedMerchant(t);
  const h = { authorization: basic(fresh.sandboxKey) };
  expectError(await t.app.inject({ method: "POST", url: "/v1/customers", headers: h, payload: { ...validCustomer, documentId: "52998224724" } }), 422, /documentId/);
  expectError(await t.app.inject({ method: "POST", url: "/v1/customers", headers: h, payload: { ...validCustomer, extra: true } }), 422, /extra/);
  expectError(await t.app.inject({
    method: "POST", url: "/v1/customers", headers: { ...h, "content-type": "application/json" }, payload: JSON.stringify(validCustomer).slice(0, -1),
  }), 400);
  const list = await t.app.inject({ url: "/v1/customers", headers: h });
  expectStatus(list, 200);
  assert.deepEqual(list.json().data, []);
});

// Errors that teach: what a newcomer sends by mistake is answered with what to send instead.

function expectMessage(res: LightMyRequestResponse, status: number, message: string): void {
  expectStatus(res, status);
  assert.deepEqual(res.json(), { statusCode: status, message, error: res.json().error, code: res.json().code }, res.body);
  assert.equal(res.json().message, message);
}

test("a route whose body is optional takes a missing body as {}: the refund of everything left", async () => {
  const charge = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  // No body and no Content-Type, as `curl -X POST` sends it.
  const res = await t.app.inject({ method: "POST", url: `/v1/charges/${charge.id}/refund`, headers: auth() });
  expectStatus(res, 201);
  assert.equal(res.json().amount, 100);
  assert.equal(res.json().chargeStatus, "refunded");

  // With Content-Type: application/json and an empty body, the same.
  const other = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  const typed = await t.app.inject({
    method: "POST", url: `/v1/charges/${other.id}/refund`, headers: { ...auth(), "content-type": "application/json" }, payload: "",
  });
  expectStatus(typed, 201);
  assert.equal(typed.json().chargeStatus, "refunded");
});

test("a body that is literally null is still refused where the body is optional", async () => {
  const charge = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  const res = await t.app.inject({
    method: "POST", url: `/v1/charges/${charge.id}/refund`, headers: { ...auth(), "content-type": "application/json" }, payload: "null",
  });
  expectMessage(res, 422, "body must be object");
});

test("a route that needs a body, called without one, says what to send", async () => {
  const expected = "body is missing: this route takes a JSON object, sent with Content-Type: application/json; " +
    "it requires amount, currency, customer and paymentMethod (the fields are in /docs)";
  expectMessage(await t.app.inject({ method: "POST", url: "/v1/charges", headers: auth() }), 422, expected);
  expectMessage(await t.app.inject({
    method: "POST", url: "/v1/charges", headers: { ...auth(), "content-type": "application/json" }, payload: "",
  }), 422, expected);
  // A change of nothing: a PATCH needs at least one field.
  const plan = await t.app.inject({
    method: "POST", url: "/v1/plans", headers: auth(), payload: { name: "Pro", price: 29.9, currency: "BRL", interval: "month" },
  });
  expectStatus(plan, 201);
  expectMessage(await t.app.inject({ method: "PATCH", url: `/v1/plans/${plan.json().id}`, headers: auth() }), 422,
    "body is missing: this route takes a JSON object, sent with Content-Type: application/json; it needs at least one of its fields (the fields are in /docs)");
});

test("an amount sent as a string says it is a number in currency units", async () => {
  const res = await t.app.inject({ method: "POST", url: "/v1/charges", headers: auth(), payload: { ...cardCharge(CARDS.visa), amount: "10.00" } });
  expectMessage(res, 422, "amount must be a number in currency units (e.g. 10.5), not a string");
  const charge = await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  expectMessage(await t.app.inject({ method: "POST", url: `/v1/charges/${charge.id}/refund`, headers: auth(), payload: { amount: "10" } }), 422,
    "amount must be a number in currency units (e.g. 10.5), not a string");
  expectMessage(await t.app.inject({
    method: "POST", url: "/v1/plans", headers: auth(), payload: { name: "Pro", price: null, currency: "BRL", interval: "month" },
  }), 422, "price must be a number in currency units (e.g. 10.5), not null");
  // A field in cents says so; a number that is not money says only its type.
  expectMessage(await t.app.inject({
    method: "PUT", url: `/v1/admin/merchants/${m.id}/fees`, headers: { authorization: basic(t.admin) },
    payload: { fees: [{ feeType: "payout", paymentMethod: "pix", currencyCode: "BRL", brand: null, definition: { fixed: "200", percentages: [] } }] },
  }), 422, "fees.0.definition.fixed must be an integer number of cents (e.g. 1050), not a string");
  expectMessage(await t.app.inject({
    method: "POST", url: "/v1/charges", headers: auth(), payload: cardCharge(CARDS.visa, {}, { installments: "3" }),
  }), 422, "paymentMethod.installments must be an integer, not a string");
});

test("the admin key on a merchant route says it is the admin key, and which key the route takes", async () => {
  for (const url of ["/v1/customers", "/v1/charges"]) {
    const res = await t.app.inject({ url, headers: { authorization: basic(t.admin) } });
    expectMessage(res, 401, "Unauthorized: this is the admin key, which only the /v1/admin routes take; " +
      "send your secret key (sk_test_... or sk_live_...) as the HTTP Basic username with an empty password, e.g. curl -u sk_test_...:");
  }
  // An unknown key still says only that it is unknown.
  const unknown = await t.app.inject({ url: "/v1/customers", headers: { authorization: basic("sk_test_nope") } });
  expectStatus(unknown, 401);
  assert.match(unknown.json().message, /^Unauthorized: the key is unknown or revoked; /);
});
