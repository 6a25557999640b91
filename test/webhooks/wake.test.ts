import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { startWorker } from "../../src/jobs/runner.js";
import { seedMerchant } from "../helpers/app.js";
import { buildWebhookTestApp, createEndpoint, paidEvent, receiverPool, record, type WebhookTestApp } from "./harness.js";

// The worker as main.ts runs it: the delivery task in the runner, woken by the outbox's NOTIFY.
// No test here waits for a time to pass; each waits for an event, with a generous guard.
let t: WebhookTestApp;
const receivers = receiverPool();

before(async () => {
  t = await buildWebhookTestApp({
    timeoutMs: 3_000,
    noWorkerProcesses: "the test needs the one delivery worker it runs itself, woken by NOTIFY",
  });
});
after(async () => {
  await receivers.close();
  await t.close();
});

/** A receiver that reads each request and answers only when the test releases it. */
async function silentReceiver() {
  const held: http.ServerResponse[] = [];
  let arrived!: () => void;
  const first = new Promise<void>((resolve) => { arrived = resolve; });
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => { held.push(res); arrived(); });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    first,
    release: () => { for (const res of held.splice(0)) res.writeHead(200).end("ok"); },
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test("a delivery queued while another waits on a silent receiver is sent at once, not after that receiver answers", async () => {
  const slowMerchant = await seedMerchant(t);
  const fastMerchant = await seedMerchant(t);
  const silent = await silentReceiver();
  const fast = await receivers.start();
  await createEndpoint(t, slowMerchant.sandboxKey, { url: silent.url });
  await createEndpoint(t, fastMerchant.sandboxKey, { url: fast.url });
  const recorded: string[] = [];
  t.webhooks.delivery.observe((d) => recorded.push(d.event.id));

  const deliver = t.webhooks.tasks.filter((task) => task.name === "webhooks.deliver");
  const worker = startWorker(deliver, pino({ level: "silent" }));
  const unlisten = await t.database.listen("feira_outbox", () => worker.wake("webhooks.deliver"));
  try {
    const slowEvent = await record(t, paidEvent(slowMerchant.id, "ch_slow"));
    await silent.first; // in flight; its receiver says nothing until released
    await record(t, paidEvent(fastMerchant.id, "ch_fast"));
    // Before the fix the worker waited for a delivery in flight to finish before it claimed
    // again: here, until the silent receiver's attempt timed out (3 s) and was recorded.
    await fast.waitFor(1, 30_000);
    assert.ok(!recorded.includes(slowEvent), `the new delivery waited for the attempt in flight: recorded ${JSON.stringify(recorded)}`);
  } finally {
    silent.release();
    await unlisten();
    await worker.stop();
    await silent.close();
  }
});
