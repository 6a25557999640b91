import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import pino from "pino";
import { ConfigError, loadConfig } from "../../src/config.js";
import { startWorker } from "../../src/jobs/runner.js";
import { seedMerchant } from "../helpers/app.js";
import { tempDir } from "../helpers/process.js";
import { buildWebhookTestApp, createEndpoint, deliveriesOf, paidEvent, record, type WebhookTestApp } from "./harness.js";

// WEBHOOK_CONCURRENCY is the number of deliveries one worker keeps in flight. Against a slow
// receiver the worker fills exactly that many slots and never more, whatever is queued.
const SLOTS = 3;
const EVENTS = 10;

let t: WebhookTestApp;
before(async () => {
  t = await buildWebhookTestApp({
    config: { webhookConcurrency: SLOTS },
    noWorkerProcesses: "the test counts the requests in flight from the one delivery worker it runs itself",
  });
});
after(() => t.close());

/** A receiver that answers each request after `delayMs` and remembers the most it held at once. */
async function slowReceiver(delayMs: number) {
  let open = 0;
  let most = 0;
  let answered = 0;
  let onAnswer: (() => void) | undefined;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      open++;
      most = Math.max(most, open);
      setTimeout(() => {
        open--;
        answered++;
        res.writeHead(200).end("ok");
        onAnswer?.();
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    most: () => most,
    answeredAll: (n: number) => new Promise<void>((resolve) => {
      const check = () => { if (answered >= n) resolve(); };
      onAnswer = check;
      check();
    }),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

test(`WEBHOOK_CONCURRENCY=${SLOTS}: a worker with ${EVENTS} deliveries queued to a slow receiver keeps exactly ${SLOTS} in flight`, async () => {
  const m = await seedMerchant(t);
  const receiver = await slowReceiver(150);
  const endpoint = await createEndpoint(t, m.sandboxKey, { url: receiver.url });
  for (let i = 0; i < EVENTS; i++) await record(t, paidEvent(m.id, `ch_slots_${i}`));

  const worker = startWorker(t.webhooks.tasks.filter((task) => task.name === "webhooks.deliver"), pino({ level: "silent" }));
  try {
    await receiver.answeredAll(EVENTS);
  } finally {
    await worker.stop();
    await receiver.close();
  }
  // With the old fixed 32 slots, all ten were in flight at once.
  assert.equal(receiver.most(), SLOTS, `at most ${SLOTS} requests in flight, and the slots all used`);
  const log = await deliveriesOf(t, m.sandboxKey, endpoint.id);
  assert.deepEqual(log.map((d) => d.status), Array(EVENTS).fill("delivered"), JSON.stringify(log));
});

test("WEBHOOK_CONCURRENCY: 128 by default; whole numbers from 1 to 4096, anything else refused with the name", () => {
  const env = { DATA_DIR: tempDir() };
  assert.equal(loadConfig(env).webhookConcurrency, 128);
  assert.equal(loadConfig({ ...env, WEBHOOK_CONCURRENCY: "7" }).webhookConcurrency, 7);
  for (const bad of ["0", "-1", "4097", "2.5", "many"]) {
    assert.throws(() => loadConfig({ ...env, WEBHOOK_CONCURRENCY: bad }), (err: unknown) =>
      err instanceof ConfigError && err.message.includes("WEBHOOK_CONCURRENCY must be an integer between 1 and 4096"), bad);
  }
});
