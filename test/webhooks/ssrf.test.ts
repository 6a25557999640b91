import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { drainTasks } from "../../src/jobs/runner.js";
import { AppError } from "../../src/core/errors.js";
import { checkDestination } from "../../src/modules/webhooks/destination.js";
import { seedMerchant, type SeededMerchant } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { buildWebhookTestApp, call, chargeData, createEndpoint, fakeDns, record, type WebhookTestApp } from "./harness.js";

// SSRF rules over HTTP, on three servers: a development one (NODE_ENV unset) with
// WEBHOOK_ALLOW_PRIVATE_URLS=false, a NODE_ENV=production one, and a NODE_ENV=production one
// with WEBHOOK_ALLOW_PRIVATE_URLS=true. This machine has no DNS, so names resolve through a
// fake table; "rebind*" names change their answer between save and send, as a DNS-rebinding
// attacker's name would. test/lib/url-guard.test.ts has the full table of spellings.
const dns: Record<string, string[]> = {
  "public.example.com": ["93.184.216.34"],
  "private.example.com": ["10.1.2.3"],
  "mixed.example.com": ["93.184.216.34", "127.0.0.1"],
  "metadata.example.com": ["169.254.169.254"],
  "metadata6.example.com": ["::ffff:a9fe:a9fe"],
  "v6local.example.com": ["::1"],
  "rebind.example.com": ["93.184.216.34"],
  localhost: ["127.0.0.1"],
};

const PRIVATE = /must not point to a loopback, private/;
const NEVER = /must not point to a link-local or cloud metadata address/;

// Each is refused with a sandbox key, on a development server and whatever
// WEBHOOK_ALLOW_PRIVATE_URLS says: link-local and cloud metadata in the spellings that got
// through before (the first five), and the others that mean the same machines.
const METADATA_URLS = [
  "http://[::ffff:169.254.169.254]/", "http://[::ffff:a9fe:a9fe]/", "http://[::a9fe:a9fe]/", "http://[64:ff9b::a9fe:a9fe]/",
  "http://[::ffff:100.100.100.200]/", "http://169.254.169.254/latest/meta-data/", "http://2852039166/",
  "http://0xa9.0xfe.0xa9.0xfe/", "http://0251.0376.0251.0376/", "http://169.254.43518/", "http://169.254.169.254./",
  "http://169.254.169.254../", "http://[::FFFF:A9FE:A9FE]/", "http://[::ffff:0:a9fe:a9fe]/", "http://[64:ff9b:1::a9fe:a9fe]/",
  "http://[2002:a9fe:a9fe::]/", "http://[2001:0:4136:e378:8000:63bf:5601:5601]/", "http://100.100.100.200/",
  "http://168.63.129.16/", "http://[fe80::1]/", "http://[fd00:ec2::254]/", "http://metadata.google.internal/computeMetadata/v1/",
  "http://METADATA.GOOGLE.INTERNAL./", "http://metadata/", "http://metadata.example.com/", "http://metadata6.example.com/",
];

let t: WebhookTestApp; // development server, private URLs not allowed
let prodServer: WebhookTestApp; // NODE_ENV=production
let lifted: WebhookTestApp; // NODE_ENV=production, WEBHOOK_ALLOW_PRIVATE_URLS=true
let m: SeededMerchant;
let r: Receiver;

before(async () => {
  const lookup = fakeDns(dns);
  t = await buildWebhookTestApp({ config: { webhookAllowPrivateUrls: false }, lookup, timeoutMs: 3_000 });
  prodServer = await buildWebhookTestApp({ config: { production: true, webhookAllowPrivateUrls: false }, lookup, timeoutMs: 3_000 });
  lifted = await buildWebhookTestApp({ config: { production: true, webhookAllowPrivateUrls: true }, lookup, timeoutMs: 3_000 });
  m = await seedMerchant(t);
  r = await startReceiver();
});
after(async () => {
  await r.close();
  await Promise.all([t.close(), prodServer.close(), lifted.close()]);
});

/**
 * POSTs an endpoint and a charge with this URL as postbackUrl; both must be 422 with `message`.
 * Charges resolve names through the system resolver, not the fake table, so the table's
 * names (*.example.com) are tried as endpoints only.
 */
async function refusedOnSave(app: WebhookTestApp, key: string, url: string, message: RegExp) {
  const ep = (await call(app, key, "POST", "/v1/webhook-endpoints", { url }, 422)).json().message;
  assert.match(ep, new RegExp(`^url ${message.source}`));
  let pb = "";
  if (!new URL(url).hostname.endsWith(".example.com")) {
    pb = (await call(app, key, "POST", "/v1/charges", cardCharge(CARDS.visa, { postbackUrl: url }), 422)).json().message;
    assert.match(pb, new RegExp(`^postbackUrl ${message.source}`));
  }
  // The resolved address is never disclosed.
  assert.doesNotMatch(`${ep} ${pb}`, /10\.1\.2\.3|127\.0\.0\.1|169\.254|a9fe/);
}

/** A charge with this postback URL, by a merchant with no endpoints (its events go nowhere slow). */
async function chargeWithPostback(app: WebhookTestApp, environment: "sandbox" | "production", postbackUrl: string) {
  const merchant = await seedMerchant(app);
  const key = environment === "sandbox" ? merchant.sandboxKey : merchant.productionKey;
  return call(app, key, "POST", "/v1/charges", cardCharge(CARDS.visa, { postbackUrl }));
}

describe("on save, production", () => {
  const refused: [string, RegExp][] = [
    ["https://127.0.0.1/hook", PRIVATE], ["https://10.0.0.1/hook", PRIVATE], ["https://172.16.5.4/hook", PRIVATE],
    ["https://192.168.0.10/hook", PRIVATE], ["https://[::1]/hook", PRIVATE], ["https://[::ffff:127.0.0.1]/hook", PRIVATE],
    ["https://[::ffff:7f00:1]/hook", PRIVATE], ["https://0x7f.1/hook", PRIVATE], ["https://2130706433/hook", PRIVATE],
    ["https://127.0.0.1./hook", PRIVATE], ["https://[64:ff9b::a00:1]/hook", PRIVATE], ["https://[2002:a00:1::]/hook", PRIVATE],
    ["https://[fc00::1]/hook", PRIVATE], ["https://localhost/hook", PRIVATE], ["https://LOCALHOST./hook", PRIVATE],
    ["https://private.example.com/hook", PRIVATE], ["https://mixed.example.com/hook", PRIVATE],
    ["https://v6local.example.com/hook", PRIVATE], ["https://169.254.169.254/latest/meta-data/", NEVER],
    ["https://[fd00:ec2::254]/", NEVER], ["https://metadata.google.internal/computeMetadata/v1/", NEVER],
    ["https://metadata.example.com/hook", NEVER], ["https://nowhere.example.com/hook", /host could not be resolved/],
    ["http://public.example.com/hook", /must use https/],
  ];
  for (const [url, message] of refused) {
    test(`refuses ${url}`, async () => refusedOnSave(t, m.productionKey, url, message));
  }

  test("accepts a public https URL, and PATCH applies the same rules", async () => {
    const ep = await createEndpoint(t, m.productionKey, { url: "https://public.example.com/hook" });
    assert.equal(ep.url, "https://public.example.com/hook");
    await call(t, m.productionKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { url: "https://private.example.com/hook" }, 422);
    await call(t, m.productionKey, "PATCH", `/v1/webhook-endpoints/${ep.id}`, { url: "https://[::ffff:a9fe:a9fe]/" }, 422);
    const got = (await call(t, m.productionKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).json();
    assert.equal(got.url, "https://public.example.com/hook");
    await call(t, m.productionKey, "DELETE", `/v1/webhook-endpoints/${ep.id}`, undefined, 200);
  });

  test("checkDestination names the caller's field", async () => {
    const config = { webhookAllowPrivateUrls: false, production: false };
    await assert.rejects(checkDestination("http://public.example.com/", "production", config, "postbackUrl", fakeDns(dns)), (err: unknown) => {
      assert.ok(err instanceof AppError);
      assert.deepEqual([err.statusCode, err.code, err.message], [422, "validation_failed", "postbackUrl must use https"]);
      return true;
    });
    assert.equal(await checkDestination(" https://public.example.com/a?b=1 ", "production", config, "postbackUrl", fakeDns(dns)), "https://public.example.com/a?b=1");
    assert.equal(await checkDestination("http://127.0.0.1:9/x", "production", { ...config, webhookAllowPrivateUrls: true }, "postbackUrl"), "http://127.0.0.1:9/x");
  });
});

describe("on save, sandbox", () => {
  test("allows http and local addresses on a development server", async () => {
    await createEndpoint(t, m.sandboxKey, { url: `${r.url}/local` });
    await createEndpoint(t, m.sandboxKey, { url: "http://10.0.0.8/lan" });
    await createEndpoint(t, m.sandboxKey, { url: "http://localhost:8080/dev" });
    assert.equal((await chargeWithPostback(t, "sandbox", "http://[::ffff:7f00:1]:9/pb")).statusCode, 201);
  });

  for (const url of METADATA_URLS) {
    test(`refuses ${url} everywhere`, async () => {
      await refusedOnSave(t, m.sandboxKey, url, NEVER);
      const other = await seedMerchant(lifted);
      await refusedOnSave(lifted, other.sandboxKey, url, NEVER);
      await refusedOnSave(lifted, other.productionKey, url, NEVER);
    });
  }

  test("a zone id is not a URL anywhere", async () => {
    const res = await call(t, m.sandboxKey, "POST", "/v1/webhook-endpoints", { url: "http://[fe80::1%25eth0]/" }, 422);
    assert.equal(res.json().message, "url is not a valid URL");
  });
});

describe("on save, NODE_ENV=production", () => {
  test("sandbox URLs may be http but face the private-address rules", async () => {
    const p = await seedMerchant(prodServer);
    for (const url of [`${r.url}/local`, "http://10.0.0.8/lan", "http://localhost:8080/dev", "http://0x7f.1/", "http://[::ffff:7f00:1]/",
      "http://private.example.com/", "http://mixed.example.com/"]) {
      await refusedOnSave(prodServer, p.sandboxKey, url, PRIVATE);
    }
    await refusedOnSave(prodServer, p.sandboxKey, "http://[::ffff:a9fe:a9fe]/", NEVER);
    const ep = await createEndpoint(prodServer, p.sandboxKey, { url: "http://public.example.com/hook" });
    assert.equal(ep.url, "http://public.example.com/hook");
  });

  test("WEBHOOK_ALLOW_PRIVATE_URLS=true lifts the private rules for both keys, and https for production", async () => {
    const p = await seedMerchant(lifted);
    await createEndpoint(lifted, p.sandboxKey, { url: "http://10.0.0.8/lan" });
    await createEndpoint(lifted, p.productionKey, { url: "http://127.0.0.1:9/x" });
    assert.equal((await chargeWithPostback(lifted, "sandbox", "http://127.0.0.1:9/pb")).statusCode, 201);
  });
});

/** Runs the worker and returns the first attempt of the endpoint's only delivery. */
async function firstAttempt(app: WebhookTestApp, key: string, endpointId: string) {
  await drainTasks(app.webhooks.tasks);
  const [delivery] = (await call(app, key, "GET", `/v1/webhook-endpoints/${endpointId}/deliveries`, undefined, 200)).json().data;
  return delivery.attempts[0] as { responseStatus: number | null; error: string | null };
}

describe("before each send", () => {
  test("a name that resolves to a private address at send time (DNS rebinding) is not contacted", async () => {
    const merchant = await seedMerchant(t);
    const ep = await createEndpoint(t, merchant.productionKey, { url: `https://rebind.example.com:${new URL(r.url).port}/hook` });
    dns["rebind.example.com"] = ["127.0.0.1"];
    const before = r.requests.length;
    await record(t, { merchantId: merchant.id, environment: "production", type: "charge.paid", objectId: "ch_rb", data: chargeData("ch_rb", "paid") });
    const attempt = await firstAttempt(t, merchant.productionKey, ep.id);
    assert.equal(r.requests.length, before, "nothing reached the local receiver");
    assert.equal(attempt.responseStatus, null);
    assert.match(attempt.error ?? "", /^not sent: url must not point to a loopback, private/);
  });

  for (const [name, app, environment] of [["sandbox", () => t, "sandbox"], ["production with private URLs allowed", () => lifted, "production"]] as const) {
    test(`${name}: a local name that turns into a metadata address at send time is not contacted`, async () => {
      const host = `rebind-${environment}.example.com`;
      dns[host] = ["127.0.0.1"];
      const merchant = await seedMerchant(app());
      const key = environment === "sandbox" ? merchant.sandboxKey : merchant.productionKey;
      const ep = await createEndpoint(app(), key, { url: `http://${host}:${new URL(r.url).port}/hook` });
      dns[host] = ["127.0.0.1", "169.254.169.254"];
      const before = r.requests.length;
      await record(app(), { merchantId: merchant.id, environment, type: "charge.paid", objectId: "ch_md", data: chargeData("ch_md", "paid") });
      const attempt = await firstAttempt(app(), key, ep.id);
      assert.equal(r.requests.length, before, "nothing reached the receiver");
      assert.equal(attempt.error, "not sent: url must not point to a link-local or cloud metadata address");
    });
  }

  test("a postback URL is checked again when sent: private in production, metadata anywhere", async () => {
    const merchant = await seedMerchant(t);
    // Stored as if saved before these rules: the worker's check is what stops them.
    const cases = [["production", "https://10.0.0.7/pb", PRIVATE], ["sandbox", "http://[::ffff:a9fe:a9fe]/pb", NEVER]] as const;
    for (const [environment, postbackUrl, message] of cases) {
      const id = await record(t, {
        merchantId: merchant.id, environment, type: "charge.paid", objectId: `ch_pb_${environment}`,
        data: chargeData(`ch_pb_${environment}`, "paid"), postbackUrl,
      });
      await drainTasks(t.webhooks.tasks);
      const key = environment === "sandbox" ? merchant.sandboxKey : merchant.productionKey;
      const detail = (await call(t, key, "GET", `/v1/events/${id}`, undefined, 200)).json();
      assert.match(detail.deliveries[0].attempts[0].error, new RegExp(`^not sent: url ${message.source}`));
    }
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
      const attempt = await firstAttempt(t, merchant.sandboxKey, ep.id);
      assert.deepEqual([attempt.responseStatus, attempt.error], [307, "HTTP 307"]);
      assert.equal(target.requests.length, 0);
    } finally {
      redirector.closeAllConnections();
      await new Promise<void>((resolve) => redirector.close(() => resolve()));
      await target.close();
    }
  });
});
