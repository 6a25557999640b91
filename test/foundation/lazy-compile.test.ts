import assert from "node:assert/strict";
import { test } from "node:test";
import { Ajv, type ValidateFunction } from "ajv";
import { compiledOnFirstUse } from "../../src/http/lazy-compile.js";
import { basic, buildTestApp, expectStatus, seedMerchant } from "../helpers/app.js";

// A process compiles the validators and serializers of the routes it serves, on their first
// request, instead of every route's at start (src/http/lazy-compile.ts). The last test compiles
// every route of the app, so that a schema error shows here and not on a production request.

test("a validator is compiled on its first call, once, and hands on the compiled one's errors", () => {
  const ajv = new Ajv();
  const compilers = compiledOnFirstUse();
  let compiles = 0;
  const validate = compilers.validator((): ValidateFunction => {
    compiles++;
    return ajv.compile({ type: "object", properties: { amount: { type: "number" } }, required: ["amount"] });
  });
  const errors = () => validate.errors; // read afresh: each call replaces them
  assert.equal(compiles, 0, "nothing compiled before the first call");
  assert.equal(validate({ amount: "10" }), false);
  assert.equal(errors()?.[0]?.instancePath, "/amount");
  assert.equal(validate({ amount: 10 }), true);
  assert.equal(errors(), null, "a pass clears the last failure's errors");
  assert.equal(validate({}), false);
  assert.deepEqual(errors()?.map((e) => e.params), [{ missingProperty: "amount" }]);
  assert.equal(compiles, 1);
  assert.equal(compilers.compileEveryRoute(), 0, "nothing left pending once compiled");
});

test("a serializer is built on its first response, with the shared schemas, and kept", () => {
  const shared = { "money.json": { $id: "money.json", type: "object", properties: { amount: { type: "integer" } } } };
  const compilers = compiledOnFirstUse();
  const compiler = compilers.serializers.buildSerializer(shared, {});
  // A broken schema shows only when its serializer first runs: nothing was built before.
  const broken = compiler({ method: "GET", url: "/x", httpStatus: "200", schema: { $ref: "missing.json#" } });
  assert.throws(() => broken({}), /missing\.json/);
  assert.throws(() => compilers.compileEveryRoute(), /missing\.json/, "compiling all finds it too");
  const serialize = compiler({
    method: "GET", url: "/y", httpStatus: "200",
    schema: { type: "object", properties: { id: { type: "string" }, money: { $ref: "money.json#" } } },
  });
  assert.equal(serialize({ id: "ch_1", money: { amount: 1050, secret: "x" }, other: 1 }), '{"id":"ch_1","money":{"amount":1050}}');
  assert.equal(serialize({ id: "ch_2", money: { amount: 1 } }), '{"id":"ch_2","money":{"amount":1}}');
});

test("every route of the app compiles: no validator or serializer fails where a request would first meet it", async () => {
  const t = await buildTestApp({}, { inProcessOnly: "compileEveryRoute is a method of this process's app" });
  try {
    const compiled = t.app.compileEveryRoute();
    assert.ok(compiled > 300, `validators and serializers compiled: ${compiled}`);
    assert.equal(t.app.compileEveryRoute(), 0, "each compiled once");
  } finally {
    await t.close();
  }
});

test("through the app: a route validates, coerces and serializes on its first request as it did when compiled at start", async () => {
  const t = await buildTestApp();
  try {
    const m = await seedMerchant(t);
    const auth = { authorization: basic(m.sandboxKey) };
    const bad = await t.app.inject({ method: "POST", url: "/v1/customers", headers: auth, payload: { name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf", phoneNumber: "+5511912345678", unknown_field: 1 } });
    expectStatus(bad, 422);
    assert.match(bad.json().message, /unknown_field/);
    const badQuery = await t.app.inject({ method: "GET", url: "/v1/customers?limit=abc", headers: auth });
    expectStatus(badQuery, 422);
    const list = await t.app.inject({ method: "GET", url: "/v1/customers?limit=2", headers: auth });
    expectStatus(list, 200);
    assert.ok(Array.isArray(list.json().data));
  } finally {
    await t.close();
  }
});
