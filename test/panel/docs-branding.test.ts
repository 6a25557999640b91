import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildTestApp, type TestApp } from "../helpers/app.js";

// The API reference at /docs is titled and branded feira, and the Authorize dialog lists the
// secret-key scheme (sandbox keys) first.

let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => t?.close());

test("/docs is titled feira and shows the feira wordmark", async () => {
  const page = await t.app.inject({ method: "GET", url: "/docs" });
  assert.equal(page.statusCode, 200);
  assert.match(page.body, /<title>feira API reference<\/title>/);
  const init = await t.app.inject({ method: "GET", url: "/docs/static/swagger-initializer.js" });
  // The wordmark is inlined as a data URL in the initializer, in place of the fastify logo.
  const logo = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body)?.[1] ?? "";
  assert.match(Buffer.from(logo, "base64").toString(), />feira<\/text>/);
  const doc = (await t.app.inject({ method: "GET", url: "/openapi.json" })).json();
  assert.equal(Object.keys(doc.components.securitySchemes)[0], "secretKey");
});
