import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Writable } from "node:stream";
import type { LightMyRequestResponse } from "fastify";
import { queryRows, sql } from "../../src/db/client.js";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { holdsCardNumber } from "../../src/lib/card-text.js";
import { CARDS, cardCharge, customer, methodCharge } from "../helpers/charges.js";

// The 500s a fuzzing session found, each reproduced, and the rules that came out of it: every
// string of a request is checked (NUL, lone surrogates), metadata is flat and bounded, nesting
// is limited, nothing is written and the processor is not called for a request that ends 4xx,
// and no log line or error message shows a query string or a card number.

const logs: string[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _enc, done) {
    logs.push(...chunk.toString().split("\n").filter((l) => l.trim()));
    done();
  },
});

let t: TestApp;
let m: SeededMerchant;
before(async () => {
  t = await buildTestApp({}, {
    // At debug, Fastify's "incoming request" line (with the request) is written too.
    logger: { level: "debug", stream: logStream },
    beforeReady: (app) => {
      app.get("/test/boom", { config: { auth: "public" }, schema: { hide: true } }, async () => {
        throw new Error(`card ${CARDS.visa} in an error`);
      });
    },
  });
  m = await seedMerchant(t);
});
after(async () => { await t.close(); });

const auth = () => ({ authorization: basic(m.sandboxKey) });

/** POSTs a body as raw JSON text: `"\ud800"` and 1e400 survive, as they would on the wire. */
function postRaw(url: string, text: string, headers: Record<string, string> = {}) {
  return t.app.inject({ method: "POST", url, headers: { ...auth(), "content-type": "application/json", ...headers }, payload: text });
}
const post = (url: string, body: unknown, headers: Record<string, string> = {}) => postRaw(url, JSON.stringify(body), headers);

type Counts = Record<"charges" | "customers" | "processor_records" | "events" | "ledger_entries", number>;
async function rowCounts(): Promise<Counts> {
  const [row] = await queryRows<Counts>(t.database.db, sql`
    select (select count(*)::int from charges) as charges, (select count(*)::int from customers) as customers,
           (select count(*)::int from sandbox_processor_records) as processor_records, (select count(*)::int from events) as events,
           (select count(*)::int from ledger_entries) as ledger_entries`);
  return row!;
}

function expect422(res: LightMyRequestResponse, message: RegExp | string): void {
  expectStatus(res, 422);
  const body = res.json();
  assert.deepEqual(Object.keys(body).sort(), ["code", "error", "message", "statusCode"]);
  assert.equal(body.code, "validation_failed");
  if (typeof message === "string") assert.equal(body.message, message);
  else assert.match(body.message, message);
}

/** Runs the requests and checks that none of them wrote a row or reached the processor. */
async function changesNothing(fn: () => Promise<void>): Promise<void> {
  const before = await rowCounts();
  await fn();
  assert.deepEqual(await rowCounts(), before);
}

test("paymentMethod that is a string, an array, a number or null is a 422, not a TypeError", async () => {
  await changesNothing(async () => {
    for (const paymentMethod of ["credit_card", [], [{ type: "pix" }], 5, null, true]) {
      expect422(await post("/v1/charges", { ...cardCharge(CARDS.visa), paymentMethod }), "paymentMethod must be object");
    }
  });
});

test("NUL characters anywhere in a charge are refused before the processor is called", async () => {
  await changesNothing(async () => {
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { note: "a\u0000b" } })), "metadata.note must not contain NUL characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, {}, { holderName: "MARIA\u0000SILVA" })), "paymentMethod.holderName must not contain NUL characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { customer: { ...customer, name: "Maria\u0000" } })), "customer.name must not contain NUL characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { items: [{ title: "\u0000", unit_price: 1, quantity: 1 }] })), "items.0.title must not contain NUL characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { "k\u0000": "v" } })), "metadata has a field name with NUL characters");
    expect422(await post("/v1/charges", methodCharge({ type: "boleto", instructions: "pay\u0000" })), "paymentMethod.instructions must not contain NUL characters");
  });
});

test("lone UTF-16 surrogates are refused in bodies, and well-formed pairs are not", async () => {
  await changesNothing(async () => {
    const body = JSON.stringify(cardCharge(CARDS.visa, { metadata: { note: "LONE" } })).replace("LONE", "\\ud800");
    expect422(await postRaw("/v1/charges", body), "metadata.note must not contain invalid Unicode (a lone UTF-16 surrogate)");
    const reversed = JSON.stringify({ name: "X", email: "x@example.com", documentId: "52998224725", documentType: "cpf" }).replace('"X"', '"\\udc00\\ud800"');
    expect422(await postRaw("/v1/customers", reversed), /^name must not contain invalid Unicode/);
  });
  const emoji = await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { note: "ok 😀 ção" } }));
  expectStatus(emoji, 201);
});

test("query strings, path params and headers are checked too, before authentication", async () => {
  await changesNothing(async () => {
    expect422(await t.app.inject({ url: "/v1/customers?email=a%00b@example.com", headers: auth() }), "querystring.email must not contain NUL characters");
    expect422(await t.app.inject({ url: "/v1/charges/ch_%00", headers: auth() }), "params.id must not contain NUL characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa), { "idempotency-key": "k\u0000" }), "headers.idempotency-key must not contain NUL characters");
    // Before authentication: a bad key with a bad header is refused for the header.
    expect422(await t.app.inject({ url: "/v1/customers?email=%00", headers: { authorization: basic("sk_test_nope") } }), /querystring\.email/);
  });
});

test("nesting deeper than 32 levels is refused without recursion, even 100,000 levels deep", async () => {
  await changesNothing(async () => {
    const deep = (n: number) => `{"a":${"[".repeat(n)}${"]".repeat(n)}}`;
    const body = (nested: string) => JSON.stringify(cardCharge(CARDS.visa, { customer: { ...customer, address: { country: "BR", x: "NESTED" } } })).replace('"NESTED"', nested);
    expect422(await postRaw("/v1/charges", body(deep(100_000))), "customer nests deeper than 32 levels");
    expect422(await postRaw("/v1/charges", body(deep(40))), "customer nests deeper than 32 levels");
    const raw = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
    expect422(await postRaw("/v1/customers", raw), "body nests deeper than 32 levels");
  });
});

test("metadata: at most 50 keys of 1 to 40 characters, flat values, strings of at most 500 characters", async () => {
  await changesNothing(async () => {
    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: keys(51) })), "metadata must NOT have more than 50 properties");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { ["k".repeat(41)]: 1 } })), "metadata keys must NOT have more than 40 characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { "": 1 } })), "metadata keys must NOT have fewer than 1 characters");
    expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { k: "v".repeat(501) } })), "metadata.k must NOT have more than 500 characters");
    for (const nested of [{ a: 1 }, [1], []]) {
      expect422(await post("/v1/charges", cardCharge(CARDS.visa, { metadata: { k: nested } })), "metadata.k must be string,number,boolean,null");
    }
    expect422(await postRaw("/v1/charges", JSON.stringify(cardCharge(CARDS.visa, { metadata: { k: 0 } })).replace('"k":0', '"k":1e400')), /^metadata\.k must be/);
  });
  // At the limits: 47 strings of 500 characters under 40-character keys, a number, a boolean, null.
  const full: Record<string, string | number | boolean | null> = { n: 1.5, b: false, z: null };
  for (let i = 0; i < 47; i++) full[`${i}`.padEnd(40, "k")] = "v".repeat(500);
  const res = await post("/v1/charges", cardCharge(CARDS.visa, { metadata: full }));
  expectStatus(res, 201);
  const stored = await t.app.inject({ url: `/v1/charges/${res.json().id}`, headers: auth() });
  assert.deepEqual(stored.json().metadata, full);
});

test("numbers must be finite: 1e400 parses as Infinity and is refused", async () => {
  await changesNothing(async () => {
    expect422(await postRaw("/v1/charges", JSON.stringify(cardCharge(CARDS.visa)).replace('"amount":100', '"amount":1e400')), "amount must be number");
    expect422(await t.app.inject({ url: "/v1/charges?limit=1e400", headers: auth() }), "querystring.limit must be <= 100");
  });
});

test("customer.address stays flat and bounded", async () => {
  await changesNothing(async () => {
    const withAddress = (address: unknown) => cardCharge(CARDS.visa, { customer: { ...customer, address } });
    expect422(await post("/v1/charges", withAddress({ country: "BR", street: { a: 1 } })), /^customer\.address\.street must be/);
    expect422(await post("/v1/charges", withAddress({ country: "BR", street: "x".repeat(201) })), /^customer\.address\.street must NOT have more than 200/);
  });
});

test("the sandbox processor is never called for a request that ends 4xx", async () => {
  const processorRecords = async () => (await rowCounts()).processor_records;
  const before = await processorRecords();
  // Each one passes the schema of its own field and would have failed at the insert, after
  // the authorization, before these checks ran.
  for (const body of [
    cardCharge(CARDS.visa, { metadata: { note: "\u0000" } }),
    cardCharge(CARDS.visa, { trackingInfo: { trackingCode: "x\u0000" } }),
    cardCharge(CARDS.visa, { shippingAddress: { postalCode: "01000-000", street: "Rua\u0000", number: "1", city: "SP", state: "SP", country: "BR" } }),
  ]) {
    const res = await post("/v1/charges", body, { "idempotency-key": `k-${Math.random()}` });
    expectStatus(res, 422);
  }
  assert.equal(await processorRecords(), before);
  const ok = await post("/v1/charges", cardCharge(CARDS.visa));
  expectStatus(ok, 201);
  assert.equal(await processorRecords(), before + 1, "a good charge is recorded by the sandbox processor (the counter works)");
});

test("a card number typed as an id is masked in the message and in the logs", async () => {
  logs.length = 0;
  const res = await t.app.inject({ url: `/v1/charges/${CARDS.visa}`, headers: auth() });
  expectStatus(res, 404);
  assert.equal(res.json().message, "Charge 411111******1111 not found");
  const spaced = await t.app.inject({ url: `/v1/customers/${encodeURIComponent("4111 1111 1111 1111")}`, headers: auth() });
  expectStatus(spaced, 404);
  assert.equal(spaced.json().message, "Customer 411111******1111 not found");
  const route = await t.app.inject({ url: `/v1/nothing/${CARDS.mastercard}`, headers: auth() });
  assert.equal(route.json().message, "Route GET /v1/nothing/555555******4444 not found");
  assert.ok(logs.length > 0);
  assert.ok(!logs.some((l) => /4111111111111111|5555555555554444|4111 1111/.test(l)), logs.join("\n"));
  assert.ok(logs.some((l) => l.includes("411111******1111")), "the masked form is logged");
});

// What a reader of the log or of the answer would see: the text, and the text percent-decoded.
const decoded = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};
const showsCard = (text: string) => holdsCardNumber(text) || holdsCardNumber(decoded(text));

test("a card number in a URL path, percent-encoded or with +, is masked in every log line and in the 404", async () => {
  const paths = [
    "/v1/charges/4111%201111%201111%201111", "/v1/x/4111+1111+1111+1111", "/nope/4111111111111111", "/nope/4111%201111%201111%201111",
    "/nope/4111%2D1111%2D1111%2D1111", "/v1/charges/4111%E2%80%8B1111%E2%80%8B1111%E2%80%8B1111", `/v1/customers/${encodeURIComponent("４１１１ １１１１ １１１１ １１１１")}`,
    "/v1/charges/4111%2B1111%2B1111%2B1111/refund",
  ];
  for (const url of paths) {
    logs.length = 0;
    for (const method of ["GET", "POST"] as const) {
      const res = await t.app.inject({ method, url, headers: auth(), ...(method === "POST" ? { payload: {} } : {}) });
      // POST /v1/customers/{id} updates: its empty body is refused (422) before the id is looked up.
      assert.ok([404, 405, 422].includes(res.statusCode), `${method} ${url}: ${res.statusCode} ${res.body}`);
      assert.ok(!showsCard(res.body), `${method} ${url} is echoed: ${res.body}`);
    }
    assert.ok(logs.length > 0);
    for (const line of logs) assert.ok(!showsCard(line), `${url} in a log line: ${line}`);
    assert.ok(logs.some((l) => l.includes("411111******1111")), `the masked form is logged: ${logs.join("\n")}`);
  }
});

test("log lines carry the path without the query string; a 500's line masks card numbers", async () => {
  logs.length = 0;
  const listed = await t.app.inject({ url: "/v1/customers?email=private.person@example.com&documentId=52998224725", headers: auth() });
  expectStatus(listed, 200);
  const boom = await t.app.inject({ url: "/test/boom?email=private.person@example.com", headers: { "x-request-id": CARDS.visa } });
  expectStatus(boom, 500);
  const text = logs.join("\n");
  assert.doesNotMatch(text, /private\.person|52998224725|\?email/);
  assert.doesNotMatch(text, /4111111111111111/, "not in the error, nor in the request id bound to every line");
  const paths = logs.map((l) => JSON.parse(l) as { path?: string; req?: { url: string } }).map((l) => l.path ?? l.req?.url).filter(Boolean);
  assert.deepEqual([...new Set(paths)], ["/v1/customers", "/test/boom"]);
  const failed = logs.map((l) => JSON.parse(l)).find((l) => l.msg === "request failed");
  assert.match(JSON.stringify(failed.err), /card 411111\*\*\*\*\*\*1111 in an error/, "the operator still sees the cause");
});

test("URLs Fastify cannot route are 400s in the error shape, without echoing the path", async () => {
  for (const url of [`/v1/charges/${CARDS.visa}%ZZ`, "/v1/charges/%", "/v1/charges/%ED%A0%80", `/v1/charges/${"x".repeat(150)}`]) {
    const res = await t.app.inject({ url, headers: auth() });
    expectStatus(res, 400);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), ["code", "error", "message", "statusCode"]);
    assert.equal(body.error, "Bad Request");
    assert.doesNotMatch(body.message, /4111|xxxx/);
  }
});

test("a POST to an unknown route with an Idempotency-Key is a 404, not a 500", async () => {
  const res = await post("/v1/nowhere", {}, { "idempotency-key": "k-unknown-route" });
  expectStatus(res, 404);
  assert.equal(res.json().code, "not_found");
});
