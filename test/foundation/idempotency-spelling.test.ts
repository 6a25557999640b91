import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import http from "node:http";
import { queryRows, sql } from "../../src/db/client.js";
import { basic, buildTestApp, seedMerchant, storedKey, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";

// One Idempotency-Key is one effect however the URL is spelled: the claim is keyed on the route
// that matched and its decoded parameters, not on the path as sent. Requests go over a real
// socket with the path written byte for byte, so no client normalises a spelling away.

let t: TestApp;
let port: number;
before(async () => {
  t = await buildTestApp();
  port = Number(new URL(await t.app.listen({ port: 0, host: "127.0.0.1" })).port);
});
after(async () => { await t.close(); });

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string; json(): Record<string, unknown> }

function send(method: string, path: string, key: string, idempotencyKey: string | undefined, payload?: unknown): Promise<Answer> {
  const body = payload === undefined ? undefined : JSON.stringify(payload);
  const headers: Record<string, string> = {
    authorization: basic(key),
    ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey }),
    ...(body === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) }),
  };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, method, path, headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => { text += chunk; });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

function expect(res: Answer, status: number, what: string): void {
  assert.equal(res.status, status, `${what}: expected ${status}, got ${res.status}: ${res.body}`);
}

/**
 * Sends `payload` under one key to every spelling: the first creates, each other one replays
 * the first answer. Then another body on a later spelling is the usual 422.
 */
async function oneEffect(m: SeededMerchant, spellings: string[], payload: unknown, otherPayload: unknown, created = 201): Promise<Answer> {
  const key = randomUUID();
  const first = await send("POST", spellings[0]!, m.sandboxKey, key, payload);
  expect(first, created, spellings[0]!);
  assert.equal(first.headers["idempotent-replayed"], undefined);
  for (const path of spellings.slice(1)) {
    const again = await send("POST", path, m.sandboxKey, key, payload);
    expect(again, created, path);
    assert.equal(again.headers["idempotent-replayed"], "true", `${path} ran again instead of replaying`);
    assert.equal(again.body, first.body, path);
  }
  for (const path of spellings.slice(1)) {
    const other = await send("POST", path, m.sandboxKey, key, otherPayload);
    expect(other, 422, `${path} with another body`);
    assert.equal(other.json().code, "idempotency_mismatch");
  }
  return first;
}

/**
 * Spellings Fastify does not route with feira's options (case-sensitive paths, doubled slashes
 * kept): each must be a 404 that creates nothing, or, were the router ever to accept it, a replay.
 */
async function unroutedOrReplayed(m: SeededMerchant, spellings: string[], payload: unknown): Promise<void> {
  const key = randomUUID();
  const original = await send("POST", spellings[0]!, m.sandboxKey, key, payload);
  for (const path of spellings.slice(1)) {
    const res = await send("POST", path, m.sandboxKey, key, payload);
    if (res.status === 404) {
      assert.equal(res.json().code, "not_found", path);
    } else {
      expect(res, original.status, path);
      assert.equal(res.headers["idempotent-replayed"], "true", path);
    }
  }
}

async function count(m: SeededMerchant, path: string): Promise<number> {
  const res = await send("GET", `${path}${path.includes("?") ? "&" : "?"}limit=100`, m.sandboxKey, undefined);
  expect(res, 200, path);
  return (res.json().data as unknown[]).length;
}

test("charges: one key makes one charge through a trailing slash, percent-encoded letters and a query string", async () => {
  const m = await seedMerchant(t);
  const spellings = ["/v1/charges", "/v1/charges/", "/v1/charge%73", "/v1/%63harges", "/v1/%63h%61rges/", "/v1/charge%73?from=retry"];
  const first = await oneEffect(m, spellings, cardCharge(CARDS.visa), cardCharge(CARDS.visa, { amount: 101 }));
  assert.equal(first.json().status, "paid");
  assert.equal(await count(m, "/v1/charges"), 1);

  await unroutedOrReplayed(m, ["/v1/charges", "//v1/charges", "/v1//charges", "/v1/charges//", "/V1/charges", "/v1/Charges", "/v1/CHARGES"], cardCharge(CARDS.visa, { amount: 7 }));
  assert.equal(await count(m, "/v1/charges"), 2, "the second key's charge only");
});

test("refunds: one key makes one refund however the path and the charge id are spelled; another charge is another request", async () => {
  const m = await seedMerchant(t);
  const charge = await send("POST", "/v1/charges", m.sandboxKey, undefined, cardCharge(CARDS.visa));
  expect(charge, 201, "charge");
  const id = String(charge.json().id);
  const [prefix, rest] = id.split("_") as [string, string];
  const spellings = [
    `/v1/charges/${id}/refund`,
    `/v1/charges/${id}/refund/`,
    `/v1/charges/${id}/refun%64`,
    `/v1/charges/${prefix}%5F${rest}/refund`, // the id's "_" percent-encoded, upper and lower case hex
    `/v1/charges/${prefix}%5f${rest}/refund/`,
    `/v1/%63harges/${encodeURIComponent(id).replace(/^c/, "%63")}/refun%64`,
  ];
  const first = await oneEffect(m, spellings, { amount: 10 }, { amount: 11 });
  assert.equal(first.json().amount, 10);

  await unroutedOrReplayed(m, [`/v1/charges/${id}/refund`, `/v1/charges//${id}/refund`, `/v1/charges/${id}//refund`, `/v1/charges/${id}/REFUND`], { amount: 5 });

  // 10 and 5 were refunded once each: what is left is 85.
  const restRefund = await send("POST", `/v1/charges/${id}/refund`, m.sandboxKey, randomUUID(), {});
  expect(restRefund, 201, "refund of the rest");
  assert.equal(restRefund.json().amount, 85);

  // The decoded id is part of the request: the same key and body on another charge refunds it.
  const other = await send("POST", "/v1/charges", m.sandboxKey, undefined, cardCharge(CARDS.visa));
  const key = randomUUID();
  expect(await send("POST", `/v1/charges/${id}/refund`, m.sandboxKey, key, {}), 409, "nothing left to refund");
  const second = await send("POST", `/v1/charges/${String(other.json().id)}/refund`, m.sandboxKey, key, {});
  expect(second, 201, "the other charge");
  assert.equal(second.headers["idempotent-replayed"], undefined);
});

test("customers: one key makes one customer whatever the spelling", async () => {
  const m = await seedMerchant(t);
  const customer = (email: string) => ({ name: "Ana Souza", email, documentId: "52998224725", documentType: "cpf" });
  const spellings = ["/v1/customers", "/v1/customers/", "/v1/customer%73", "/v1/%63ustomers/", "/v1/cu%73tomers?x=1"];
  await oneEffect(m, spellings, customer("one@example.com"), customer("two@example.com"));
  assert.equal(await count(m, "/v1/customers?email=one%40example.com"), 1);
  assert.equal(await count(m, "/v1/customers?email=two%40example.com"), 0);
});

test("a claim made under the usual spelling is stored under that very path, as claims were before", async () => {
  // So a retry that crosses a deploy of this rule still finds the claim of its first attempt.
  const m = await seedMerchant(t);
  const charge = await send("POST", "/v1/charges", m.sandboxKey, undefined, cardCharge(CARDS.visa));
  const id = String(charge.json().id);
  const key = randomUUID();
  expect(await send("POST", `/v1/charges/${id}/refun%64/`, m.sandboxKey, key, { amount: 1 }), 201, "refund");
  const rows = await queryRows<{ route: string }>(t.database.db, sql`select route from idempotency_keys where key = ${storedKey(t, key)}`);
  assert.deepEqual(rows.map((r) => r.route), [`POST /v1/charges/${id}/refund`]);
});
