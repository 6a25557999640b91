import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { drainTasks } from "../../src/jobs/runner.js";
import { AppError } from "../../src/http/errors.js";
import { checkDestination } from "../../src/modules/webhooks/destination.js";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { buildWebhookTestApp, call, chargeData, createEndpoint, fakeDns, record, type WebhookTestApp } from "./harness.js";

// SSRF rules with WEBHOOK_ALLOW_PRIVATE_URLS=false (the production default). This machine has
// no DNS, so names resolve through a fake table; "rebind.example.com" changes its answer
// between save and send, as a DNS-rebinding attacker's name would.
const dns: Record<string, string[]> = {
  "public.example.com": ["93.184.216.34"],
  "private.example.com": ["10.1.2.3"],
  "mixed.example.com": ["93.184.216.34", "127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "v6local.example.com": ["::1"],
  "rebind.example.com": ["93.184.216.34"],
  localhost: ["127.0.0.1"],
};

let t: WebhookTestApp;
let m: SeededMerchant;
let r: Receiver;

before(async () => {
  t = await buildWebhookTestApp({ config: { webhookAllowPrivateUrls: false }, lookup: fakeDns(dns), timeoutMs: 3_000 });
  m = await seedMerchant(t);
  r = await startReceiver();
});
after(async () => {
  await r.close();
  await t.close();
});

describe("on save, production", () => {
  const refused: [string, RegExp][] = [
    ["https://127.0.0.1/hook", /loopback, private/],
    ["https://10.0.0.1/hook", /loopback, private/],
    ["https://172.16.5.4/hook", /loopback, private/],
    ["https://192.168.0.10/hook", /loopback, private/],
    ["https://169.254.169.254/latest/meta-data/", /loopback, private/],
    ["https://[::1]/hook", /loopback, private/],
    ["https://[::ffff:127.0.0.1]/hook", /loopback, private/],
    ["https://[fd00:ec2::254]/", /loopback, private/],
    ["https://localhost/hook", /loopback, private/],
    ["https://metadata.google.internal/computeMetadata/v1/", /loopback, private/],
    ["https://private.example.com/hook", /loopback, private/],
    ["https://mixed.example.com/hook", /loopback, private/],
    ["https://metadata.example.com/hook", /loopback, private/],
    ["https://v6local.example.com/hook", /loopback, private/],
    ["https://nowhere.example.com/hook", /could not be resolved/],
    ["http://public.example.com/hook", /url must use https/],
  ];
  for (const [url, message] of refused) {
    test(`refuses ${url}`, async () => {
      const res = await call(t, m.productionKey, "POST", "/v1/webhook-endpoints", { url }, 422);
      assert.match(res.json().message, message);
      assert.doesNotMatch(res.json().message, /10\.1\.2\.3|127\.0\.0\.1|169\.254/, "the resolved address is not disclosed");
    });
  }

  test("accepts a public https URL, and PATCH applies the same rules", async () => {
    const ep = await createEndpoint(t, m.productionKey, { url: "https://public.example.com/hook" });
    assert.equal(ep.url, "https://public.example.com/hook");
    await call(t, m.productionKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { url: "https://private.example.com/hook" }, 422);
    const got = (await call(t, m.productionKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
    assert.equal(got.url, "https://public.example.com/hook");
    await call(t, m.productionKey, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 200);
  });

  test("checkDestination (used for postbackUrl) names the caller's field", async () => {
    const config = { webhookAllowPrivateUrls: false };
    await assert.rejects(checkDestination("http://public.example.com/", "production", config, "postbackUrl", fakeDns(dns)), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.deepEqual([err.statusCode, err.code, err.message], [422, "validation_failed", "postbackUrl must use https"]);
      return true;
    });
    await assert.rejects(checkDestination("https://10.0.0.1/", "production", config, "postbackUrl"), /postbackUrl must not point to a loopback/);
    assert.equal(await checkDestination(" https://public.example.com/a?b=1 ", "production", config, "postbackUrl", fakeDns(dns)), "https://public.example.com/a?b=1");
    assert.equal(await checkDestination("http://127.0.0.1:9/x", "production", { webhookAllowPrivateUrls: true }, "postbackUrl"), "http://127.0.0.1:9/x");
  });
});

describe("on save, sandbox", () => {
  test("allows http and local addresses, but not link-local or metadata addresses", async () => {
    await createEndpoint(t, m.sandboxKey, { url: `${r.url}/local` });
    await createEndpoint(t, m.sandboxKey, { url: "http://10.0.0.8/lan" });
    await createEndpoint(t, m.sandboxKey, { url: "http://localhost:8080/dev" });
    for (const url of ["http://169.254.169.254/latest/meta-data/", "http://metadata.example.com/", "http://[fe80::1]/"]) {
      const res = await call(t, m.sandboxKey, "POST", "/v1/webhook-endpoints", { url }, 422);
      assert.match(res.json().message, /link-local or cloud metadata/);
    }
  });
});

describe("before each send", () => {
  test("a name that resolves to a private address at send time (DNS rebinding) is not contacted", async () => {
    const merchant = await seedMerchant(t);
    const ep = await createEndpoint(t, merchant.productionKey, { url: `https://rebind.example.com:${new URL(r.url).port}/hook` });
    dns["rebind.example.com"] = ["127.0.0.1"];
    const before = r.requests.length;
    await record(t, { merchantId: merchant.id, environment: "production", type: "charge.paid", objectId: "ch_rb", data: chargeData("ch_rb", "paid") });
    await drainTasks(t.webhooks.tasks);
    assert.equal(r.requests.length, before, "nothing reached the local receiver");
    const [delivery] = (await call(t, merchant.productionKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries`, undefined, 200)).json().data;
    assert.equal(delivery.attempts[0].responseStatus, null);
    assert.match(delivery.attempts[0].error, /^not sent: url must not point to a loopback, private/);
    await call(t, merchant.productionKey, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 200);
  });

  test("a production postback URL to a private address is refused when sent", async () => {
    const merchant = await seedMerchant(t);
    const id = await record(t, {
      merchantId: merchant.id, environment: "production", type: "charge.paid", objectId: "ch_pb",
      data: chargeData("ch_pb", "paid"), postbackUrl: "https://10.0.0.7/pb",
    });
    await drainTasks(t.webhooks.tasks);
    const detail = (await call(t, merchant.productionKey, "GET", `/v1/events/${id}`, undefined, 200)).json();
    assert.match(detail.deliveries[0].attempts[0].error, /not sent: url must not point/);
  });

  test("redirects are not followed: a 3xx is a failed attempt and its Location is never contacted", async () => {
    const target = await startReceiver();
    const redirector = http.createServer((_req, res) => {
      res.writeHead(307, { location: `${target.url}/stolen` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
    try {
      const merchant = await seedMerchant(t);
      const ep = await createEndpoint(t, merchant.sandboxKey, { url: `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/` });
      await record(t, { merchantId: merchant.id, environment: "sandbox", type: "charge.paid", objectId: "ch_rd", data: chargeData("ch_rd", "paid") });
      await drainTasks(t.webhooks.tasks);
      const [delivery] = (await call(t, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}/deliveries`, undefined, 200)).json().data;
      assert.equal(delivery.attempts[0].responseStatus, 307);
      assert.equal(delivery.attempts[0].error, "HTTP 307");
      assert.equal(target.requests.length, 0);
      await call(t, merchant.sandboxKey, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 200);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
      await target.close();
    }
  });
});
