import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Type } from "typebox";
import { AppError } from "../../src/core/errors.js";
import { errors } from "../../src/http/schemas.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";
// topology: skip: its one app stays in-process: the probe route and its serializer compiler exist in this process's app only

// Error answers are documented per operation but get no serializer of their own: every error
// body is the error handler's four fields, and a serializer per route and status (498 of them,
// nearly all the same ErrorBody) cost 7 MB of heap in every API process. A probe route in a
// context with a counting serializer compiler shows which statuses get compiled.
let t: TestApp;
const compiled: string[] = [];

before(async () => {
  t = await buildTestApp({}, {
    inProcessOnly: "the probe route and its counting serializer compiler exist in this process's app only, and the document that lists the probe is that app's",
    beforeReady: async (app) => {
      await app.register(async (scope) => {
        scope.setSerializerCompiler(({ httpStatus }) => {
          compiled.push(String(httpStatus));
          return (data) => JSON.stringify(data);
        });
        scope.get("/v1/probe-serializers/:id", {
          schema: {
            operationId: "probeSerializers", tags: ["ops"], summary: "A probe", params: Type.Object({ id: Type.String({ maxLength: 64 }) }),
            response: { 200: Type.Object({ id: Type.String() }), ...errors({ 404: "Probe pr_1 not found" }, 409) },
          },
        }, async (req) => {
          const { id } = req.params as { id: string };
          if (id === "missing") throw new AppError("not_found", `Probe ${id} not found`);
          return { id };
        });
      });
    },
  });
});
after(() => t.close());

test("error answers get no serializer per route and status; they still answer the error shape", async () => {
  // HEAD beside GET: the same statuses twice.
  assert.deepEqual(compiled, ["200", "200"], `compiled serializers by status: ${compiled.join(", ")}`);
  const m = await seedMerchant(t);
  const ok = await t.app.inject({ method: "GET", url: "/v1/probe-serializers/pr_1", headers: { authorization: basic(m.sandboxKey) } });
  expectStatus(ok, 200);
  assert.deepEqual(ok.json(), { id: "pr_1" });
  const missing = await t.app.inject({ method: "GET", url: "/v1/probe-serializers/missing", headers: { authorization: basic(m.sandboxKey) } });
  expectStatus(missing, 404);
  assert.deepEqual(Object.keys(missing.json()).sort(), ["code", "error", "message", "statusCode"]);
});

test("the document still lists each error answer of the operation, with its example", async () => {
  const doc = (await t.app.inject("/openapi.json")).json() as {
    paths: Record<string, { get: { responses: Record<string, { content: { "application/json": { example?: unknown } } }> } }>;
  };
  const responses = doc.paths["/v1/probe-serializers/{id}"]!.get.responses;
  for (const status of ["401", "403", "404", "409", "422", "429"]) assert.ok(responses[status], `${status} documented: ${Object.keys(responses).join(", ")}`);
  assert.deepEqual(responses["404"]!.content["application/json"].example,
    { statusCode: 404, message: "Probe pr_1 not found", error: "Not Found", code: "not_found" });
});
