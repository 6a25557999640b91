import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { drainTasks } from "../../src/jobs/runner.js";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { buildWebhookTestApp, call, chargeData, createEndpoint, fakeDns, record, type WebhookTestApp } from "./harness.js";

// The worker keeps connections alive per (origin, checked address). These tests pin down both
// halves: a connection is reused, and it is never reused for an address that was not checked,
// however the destination's name resolves from one delivery to the next.

interface CountingServer { host: string; port: number; hooks: string[]; connections: number; close(): Promise<void> }

async function countingServer(host: string, port = 0): Promise<CountingServer> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      counting.hooks.push(String(req.headers["webhook-id"]));
      res.writeHead(200).end("ok");
    });
  });
  server.on("connection", () => { counting.connections++; });
  // Idle connections are kept a minute (Node's default is 5 s), so that a slow machine between
  // two deliveries does not decide whether the connection is reused.
  server.keepAliveTimeout = 60_000;
  server.listen(port, host);
  await once(server, "listening");
  const counting: CountingServer = {
    host, port: (server.address() as AddressInfo).port, hooks: [], connections: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return counting;
}

const dns: Record<string, string[]> = {};
let t: WebhookTestApp;
let m: SeededMerchant;
const servers: CountingServer[] = [];

before(async () => {
  // Retries at their real pace (5 s first), so a refused attempt is not retried during a test.
  t = await buildWebhookTestApp({ config: { webhookAllowPrivateUrls: false, webhookRetryScale: 1 }, lookup: fakeDns(dns), timeoutMs: 3_000 });
  m = await seedMerchant(t);
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await t.close();
});

async function deliverOne(m: SeededMerchant, objectId: string): Promise<string> {
  const id = await record(t, { merchantId: m.id, environment: "sandbox", type: "charge.paid", objectId, data: chargeData(objectId, "paid") });
  await drainTasks(t.webhooks.tasks);
  return id;
}

test("deliveries to one receiver reuse kept-alive connections", async () => {
  const m = await seedMerchant(t);
  const server = await countingServer("127.0.0.1");
  servers.push(server);
  await createEndpoint(t, m.sandboxKey, { url: `http://127.0.0.1:${server.port}/hook` });
  const sent: string[] = [];
  for (const n of [1, 2, 3, 4]) sent.push(await deliverOne(m, `ch_ka${n}`));
  assert.deepEqual(server.hooks, sent);
  // undici may open a second connection before it sees the first one free again; never one each.
  assert.ok(server.connections < sent.length, `${server.connections} connections for ${sent.length} deliveries in a row`);
});

test("a kept-alive connection is never used for an address that was not checked", async (ctx) => {
  const m = await seedMerchant(t);
  const first = await countingServer("127.0.0.1");
  servers.push(first);
  // Another address on the same port: a pool reused across addresses would reach `first`.
  let second: CountingServer;
  try {
    second = await countingServer("127.0.0.2", first.port);
  } catch (err) {
    ctx.skip(`127.0.0.2 cannot be bound here: ${String(err)}`);
    return;
  }
  servers.push(second);
  dns["switch.example.com"] = ["127.0.0.1"];
  await createEndpoint(t, m.sandboxKey, { url: `http://switch.example.com:${first.port}/hook` });

  const a = await deliverOne(m, "ch_sw1");
  assert.deepEqual([first.hooks, second.hooks], [[a], []]);

  // The name moves to another (allowed) address: checked, then sent there, not over the old connection.
  dns["switch.example.com"] = ["127.0.0.2"];
  const b = await deliverOne(m, "ch_sw2");
  assert.deepEqual([first.hooks, second.hooks], [[a], [b]]);

  // The name now also answers a metadata address: refused, and nothing goes out on any kept connection.
  dns["switch.example.com"] = ["127.0.0.1", "169.254.169.254"];
  const c = await deliverOne(m, "ch_sw3");
  assert.deepEqual([first.hooks, second.hooks], [[a], [b]]);
  const detail = (await call(t, m.sandboxKey, "GET", `/v1/events/${c}`, undefined, 200)).json();
  assert.equal(detail.deliveries[0].attempts[0].error, "not sent: url must not point to a link-local or cloud metadata address");

  // Back to the first address, checked again: its kept connection serves it.
  dns["switch.example.com"] = ["127.0.0.1"];
  const d = await deliverOne(m, "ch_sw4");
  assert.deepEqual([first.hooks, second.hooks], [[a, d], [b]]);
});
