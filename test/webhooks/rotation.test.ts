import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { queryRows, sql } from "../../src/db/client.js";
import { signWebhook } from "../../src/modules/webhooks/signing.js";
import type { ReceivedRequest } from "../helpers/webhook-receiver.js";
import { seedMerchant } from "../helpers/app.js";
import { buildWebhookTestApp, call, createEndpoint, paidEvent, receiverPool, record, settle, verified, type WebhookTestApp } from "./harness.js";

// Secret rotation with a 24 h overlap (docs/guarantees.md): deliveries carry `v1,<new> v1,<old>`
// until previous_secret_expires_at, and the official standardwebhooks library accepts them
// with either secret. Expiry is simulated by moving that column into the past with SQL.
let t: WebhookTestApp;
const receivers = receiverPool();

before(async () => {
  t = await buildWebhookTestApp({ timeoutMs: 3_000 });
});
after(async () => {
  await receivers.close();
  await t.close();
});

const DAY_MS = 24 * 60 * 60 * 1000;

/** Asserts the header holds exactly these secrets' signatures, in this order. */
function assertSignedWith(req: ReceivedRequest, secrets: string[]): void {
  const id = String(req.headers["webhook-id"]);
  const ts = Number(req.headers["webhook-timestamp"]);
  assert.equal(req.headers["webhook-signature"], secrets.map((s) => signWebhook(s, id, ts, req.body)).join(" "));
}

function assertExpiresInADay(iso: string, before: number): void {
  const at = Date.parse(iso);
  assert.ok(at >= before + DAY_MS && at <= Date.now() + DAY_MS, `previousSecretExpiresAt ${iso}`);
}

describe("endpoint secret", () => {
  test("during the overlap both secrets verify, the new signature first; after expiry only the new one", async () => {
    const merchant = await seedMerchant(t);
    const r = await receivers.start();
    const ep = await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    const before = Date.now();
    const rotated = (await call(t, merchant.sandboxKey, "POST", `/v1/webhook-endpoints/${ep.id}/rotate-secret`, undefined, 200)).json();
    assert.match(rotated.secret, /^whsec_/);
    assert.notEqual(rotated.secret, ep.secret);
    assert.equal(rotated.id, ep.id);
    assertExpiresInADay(rotated.previousSecretExpiresAt, before);

    await record(t, paidEvent(merchant.id, "ch_overlap"));
    await settle(t);
    const during = r.requests[0]!;
    assertSignedWith(during, [rotated.secret, ep.secret]);
    assert.equal(verified(rotated.secret, during).event, "charge.paid");
    assert.equal(verified(ep.secret, during).event, "charge.paid");

    await t.database.db.execute(sql`update webhook_endpoints set previous_secret_expires_at = now() - interval '1 second' where id = ${ep.id}`);
    await record(t, paidEvent(merchant.id, "ch_expired"));
    await settle(t);
    const later = r.requests[1]!;
    assertSignedWith(later, [rotated.secret]);
    verified(rotated.secret, later);
    assert.throws(() => verified(ep.secret, later), /signature/i);
  });

  test("a second rotation within the overlap replaces the previous secret with the current one", async () => {
    const merchant = await seedMerchant(t);
    const r = await receivers.start();
    const ep = await createEndpoint(t, merchant.sandboxKey, { url: r.url });
    const rotate = async () => (await call(t, merchant.sandboxKey, "POST", `/v1/webhook-endpoints/${ep.id}/rotate-secret`, undefined, 200)).json();
    const second = await rotate();
    const before = Date.now();
    const third = await rotate();
    assertExpiresInADay(third.previousSecretExpiresAt, before);

    await record(t, paidEvent(merchant.id, "ch_twice"));
    await settle(t);
    assertSignedWith(r.requests[0]!, [third.secret, second.secret]);
    assert.throws(() => verified(ep.secret, r.requests[0]!), /signature/i, "the first secret ended at the second rotation");
  });

  test("the previous secret stays sealed for its endpoint: moved as it was, never in plain text", async () => {
    const merchant = await seedMerchant(t);
    const ep = await createEndpoint(t, merchant.sandboxKey, { url: "http://127.0.0.1:9/never" });
    const read = async () => (await queryRows<{ secret_sealed: string; previous_secret_sealed: string | null }>(t.database.db,
      sql`select secret_sealed, previous_secret_sealed from webhook_endpoints where id = ${ep.id}`))[0]!;
    const sealed = (await read()).secret_sealed;
    assert.equal((await read()).previous_secret_sealed, null);
    const rotated = (await call(t, merchant.sandboxKey, "POST", `/v1/webhook-endpoints/${ep.id}/rotate-secret`, undefined, 200)).json();
    const row = await read();
    assert.equal(row.previous_secret_sealed, sealed);
    for (const plain of [ep.secret, rotated.secret]) assert.ok(!JSON.stringify(row).includes(plain.slice(6)));
    // Neither read route shows the secrets or the overlap.
    const got = (await call(t, merchant.sandboxKey, "GET", `/v1/webhook-endpoints/${ep.id}`, undefined, 200)).body;
    assert.ok(!got.includes("secret") && !got.includes(rotated.secret), got);
  });

  test("another merchant cannot rotate the endpoint, and nothing changes when it tries", async () => {
    const owner = await seedMerchant(t);
    const other = await seedMerchant(t);
    const ep = await createEndpoint(t, owner.sandboxKey, { url: "http://127.0.0.1:9/never" });
    await call(t, other.sandboxKey, "POST", `/v1/webhook-endpoints/${ep.id}/rotate-secret`, undefined, 404);
    await call(t, owner.productionKey, "POST", `/v1/webhook-endpoints/${ep.id}/rotate-secret`, undefined, 404);
    const [row] = await queryRows<{ previous_secret_sealed: string | null }>(t.database.db,
      sql`select previous_secret_sealed from webhook_endpoints where id = ${ep.id}`);
    assert.equal(row!.previous_secret_sealed, null);
  });
});

describe("postback secret", () => {
  const getSecret = async (key: string) => (await call(t, key, "GET", "/v1/webhook-endpoints/postback-secret", undefined, 200)).json();
  const rotate = async (key: string) => (await call(t, key, "POST", "/v1/webhook-endpoints/postback-secret/rotate", undefined, 200)).json();

  test("postbacks carry both signatures during the overlap and only the new one after it", async () => {
    const merchant = await seedMerchant(t);
    const pb = await receivers.start();
    const old = (await getSecret(merchant.sandboxKey)).secret;
    const before = Date.now();
    const rotated = await rotate(merchant.sandboxKey);
    assertExpiresInADay(rotated.previousSecretExpiresAt, before);
    assert.equal((await getSecret(merchant.sandboxKey)).secret, rotated.secret, "GET shows the current secret");

    await record(t, paidEvent(merchant.id, "ch_pb_overlap", { postbackUrl: pb.url }));
    await settle(t);
    assertSignedWith(pb.requests[0]!, [rotated.secret, old]);
    verified(old, pb.requests[0]!);
    verified(rotated.secret, pb.requests[0]!);

    await t.database.db.execute(sql`update postback_secrets set previous_secret_expires_at = now() - interval '1 second'
      where merchant_id = ${merchant.id} and environment = 'sandbox'`);
    await record(t, paidEvent(merchant.id, "ch_pb_expired", { postbackUrl: pb.url }));
    await settle(t);
    assertSignedWith(pb.requests[1]!, [rotated.secret]);
    assert.throws(() => verified(old, pb.requests[1]!), /signature/i);
  });

  test("rotating before first use creates the secret with nothing to overlap; a second rotation drops the oldest", async () => {
    const merchant = await seedMerchant(t);
    const pb = await receivers.start();
    const first = await rotate(merchant.sandboxKey);
    assert.equal(first.previousSecretExpiresAt, null);
    const second = await rotate(merchant.sandboxKey);
    const third = await rotate(merchant.sandboxKey);
    await record(t, paidEvent(merchant.id, "ch_pb_thrice", { postbackUrl: pb.url }));
    await settle(t);
    assertSignedWith(pb.requests[0]!, [third.secret, second.secret]);
    assert.throws(() => verified(first.secret, pb.requests[0]!), /signature/i);
  });

  test("the rotation is per environment", async () => {
    const merchant = await seedMerchant(t);
    const production = (await getSecret(merchant.productionKey)).secret;
    await rotate(merchant.sandboxKey);
    const [row] = await queryRows<{ previous_secret_sealed: string | null }>(t.database.db, sql`select previous_secret_sealed
      from postback_secrets where merchant_id = ${merchant.id} and environment = 'production'`);
    assert.equal(row!.previous_secret_sealed, null);
    assert.equal((await getSecret(merchant.productionKey)).secret, production);
  });
});
