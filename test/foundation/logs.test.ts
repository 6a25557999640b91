import assert from "node:assert/strict";
import { PassThrough, Writable } from "node:stream";
import { after, before, test } from "node:test";
import pino from "pino";
import { drainTasks } from "../../src/jobs/runner.js";
import { logStream } from "../../src/lib/log-stream.js";
import { deliveryLogTask } from "../../src/modules/webhooks/delivery-log.js";
import { basic, buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { buildWebhookTestApp, createEndpoint, paidEvent, record, type WebhookTestApp } from "../webhooks/harness.js";

// What an operator reads: one line per request (none for /docs assets and health checks at
// info), readable lines on a terminal, and the worker's word on failed deliveries.
function capture() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split("\n")) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
}

const requestLog = capture();
let t: TestApp;
before(async () => {
  t = await buildTestApp({}, { logger: { level: "info", stream: requestLog.stream } });
});
after(() => t.close());

test("one info line per request with method, path, status, duration and request id; none for /docs and /health", async () => {
  const m = await seedMerchant(t);
  requestLog.lines.length = 0;
  await t.app.inject({ url: "/health" });
  await t.app.inject({ url: "/docs/static/index.html" });
  await t.app.inject({ url: "/docs" });
  const res = await t.app.inject({ url: "/v1/customers?email=a%40b.com", headers: { authorization: basic(m.sandboxKey), "x-request-id": "req-logs-1" } });
  assert.equal(res.statusCode, 200, res.body);

  const lines = requestLog.lines.filter((l) => l.path !== undefined);
  assert.equal(lines.length, 1, JSON.stringify(requestLog.lines));
  const line = lines[0]!;
  assert.equal(line.method, "GET");
  assert.equal(line.path, "/v1/customers", "no query string");
  assert.equal(line.status, 200);
  assert.equal(typeof line.durationMs, "number");
  assert.equal(line.reqId, "req-logs-1");
  assert.match(String(line.msg), /^GET \/v1\/customers 200 [\d.]+ms$/);
  assert.equal(requestLog.lines.filter((l) => /incoming request|request completed/.test(String(l.msg))).length, 0, "Fastify's own pair of lines is off");

  requestLog.lines.length = 0;
  await t.app.inject({ url: "/v1/nowhere" });
  assert.deepEqual(requestLog.lines.map((l) => l.msg), [requestLog.lines[0]?.msg], "an unknown route is one line too");
  assert.match(String(requestLog.lines[0]?.msg), /^GET \/v1\/nowhere 404 /);
});

test("a terminal gets readable lines, anything else JSON", () => {
  const tty = Object.assign(new PassThrough(), { isTTY: true }) as unknown as NodeJS.WriteStream;
  let printed = "";
  (tty as unknown as PassThrough).on("data", (c: Buffer) => { printed += c.toString(); });
  pino({ level: "info" }, logStream(tty)).info({ method: "GET", path: "/v1/charges", status: 201, durationMs: 3.2, reqId: "req_x" }, "GET /v1/charges 201 3.2ms");
  assert.match(printed, /INFO.*GET \/v1\/charges 201 3\.2ms/);
  assert.doesNotMatch(printed, /^\{/, "not JSON");
  assert.match(printed, /req_x/, "the request id stays");
});

let w: WebhookTestApp;
let receiver: Receiver;
test("the worker logs each failed delivery and a summary of counts", async (ctx) => {
  // It is the worker: it steps the delivery task and reads the log lines it writes.
  w = await buildWebhookTestApp({ noWorkerProcesses: "steps the delivery task and reads the worker's own log lines" });
  receiver = await startReceiver({ respond: (_req, i) => ({ status: i === 0 ? 500 : 200 }) });
  ctx.after(async () => {
    await receiver.close();
    await w.close();
  });
  const workerLog = capture();
  const summary = deliveryLogTask(w.webhooks.delivery, pino({ level: "info" }, workerLog.stream));
  const m = await seedMerchant(w);
  await createEndpoint(w, m.sandboxKey, { url: `${receiver.url}/hook?token=s3cret`, events: ["charge.paid"] });
  await record(w, paidEvent(m.id, "ch_logs1"));

  const deadline = Date.now() + 10_000;
  while (receiver.requests.length < 2 && Date.now() < deadline) await drainTasks(w.webhooks.tasks);
  assert.equal(receiver.requests.length, 2, "a failed attempt, then a delivered retry");

  const failed = workerLog.lines.filter((l) => l.level === 40);
  assert.equal(failed.length, 1, JSON.stringify(workerLog.lines));
  assert.match(String(failed[0]!.msg), /webhook charge\.paid to http:\/\/127\.0\.0\.1:\d+\/hook failed \(HTTP 500\); attempt 2 in \d+s/);
  assert.equal(failed[0]!.responseStatus, 500);
  assert.doesNotMatch(JSON.stringify(workerLog.lines), /s3cret/, "the endpoint's query string stays out of the log");

  await summary.run();
  const line = workerLog.lines.find((l) => /webhooks in the last 60s/.test(String(l.msg)));
  assert.deepEqual(line?.webhooks, { delivered: 1, failed: 0, retried: 1, skipped: 0 });
  const before = workerLog.lines.length;
  await summary.run();
  assert.equal(workerLog.lines.length, before, "a quiet minute logs nothing");
});
