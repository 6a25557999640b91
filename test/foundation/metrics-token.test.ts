import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { buildTestApp, expectStatus, type TestApp } from "../helpers/app.js";

// In production /metrics shows what the process is doing (charges waiting on a processor,
// failing processors, late refunds): it answers only with METRICS_TOKEN as a Bearer token, and
// not at all without one (docs/deploy.md). Local mode keeps it open.

const TOKEN = "metrics-token-0123456789abcdef";
let prod: TestApp;
let off: TestApp;
before(async () => {
  prod = await buildTestApp({ production: true, metricsToken: TOKEN });
  off = await buildTestApp({ production: true });
});
after(async () => {
  await prod?.close();
  await off?.close();
});

const scrape = (t: TestApp, authorization?: string) =>
  t.app.inject({ method: "GET", url: "/metrics", headers: authorization === undefined ? {} : { authorization } });

test("production: /metrics answers with the token as a Bearer token", async () => {
  const res = await scrape(prod, `Bearer ${TOKEN}`);
  expectStatus(res, 200);
  assert.match(res.body, /feira_process_cpu_seconds_total/);
});

test("production: without the token, or with another, /metrics is a 401 in the error shape and shows nothing", async () => {
  for (const authorization of [undefined, "", `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, `Basic ${Buffer.from(`${TOKEN}:`).toString("base64")}`, TOKEN, "Bearer "]) {
    const res = await scrape(prod, authorization);
    assert.equal(res.statusCode, 401, `${authorization}: ${res.body}`);
    assert.deepEqual(Object.keys(res.json()).sort(), ["code", "error", "message", "statusCode"]);
    assert.doesNotMatch(res.body, /feira_/);
  }
});

test("production without METRICS_TOKEN: /metrics is a 404 whatever is sent", async () => {
  for (const authorization of [undefined, `Bearer ${TOKEN}`]) {
    const res = await scrape(off, authorization);
    assert.equal(res.statusCode, 404, res.body);
    assert.equal(res.json().code, "not_found");
  }
});

test("/health stays public in production", async () => {
  expectStatus(await prod.app.inject({ method: "GET", url: "/health" }), 200);
});
