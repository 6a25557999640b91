import { readFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge, createCharge } from "../helpers/charges.js";
import { createSubmerchant } from "../connect/helpers.js";
import { ROOT } from "../helpers/process.js";

// The README's "Lists" section, checked against the server: every list route of the OpenAPI
// document is named under one envelope, each named route answers that envelope, and each
// example is what its request really answers (the envelope exactly, the fields shown of each
// object with their types), with the data the example says it has.

interface Envelope { routes: string[]; request: string; example: Record<string, unknown> }

function readmeEnvelopes(): Envelope[] {
  const readme = readFileSync(path.join(ROOT, "README.md"), "utf8");
  const section = /\n### Lists\n([\s\S]*?)\n### /.exec(readme)?.[1];
  assert.ok(section, "README has a Lists section");
  const out: Envelope[] = [];
  let text = "";
  for (const part of section.split(/```json\n([\s\S]*?)```/).entries()) {
    const [i, chunk] = part;
    if (i % 2 === 0) { text = chunk; continue; }
    const routes = [...text.matchAll(/`GET (\/v1\/[^`?\s]+)`/g)].map((r) => r[1]!);
    const request = [...text.matchAll(/`GET (\/v1\/[^`\s]+\?[^`\s]+)`/g)].at(-1)?.[1];
    assert.ok(request, `the paragraph before example ${out.length + 1} names its request:\n${text}`);
    out.push({ routes, request, example: JSON.parse(chunk) as Record<string, unknown> });
  }
  assert.equal(out.length, 3, "three envelopes, each with an example");
  return out;
}

let t: TestApp;
let m: SeededMerchant;
const ids: Record<string, string> = {};
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  // What the examples say: two charges, three subscriptions, two submerchants.
  await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa));
  ids["/v1/charges/{id}/refunds"] = (await createCharge(t, m.sandboxKey, cardCharge(CARDS.visa))).id;
  const plan = await send("POST", "/v1/plans", { name: "Pro monthly", price: 29.9, currency: "BRL", interval: "month" });
  for (let i = 0; i < 3; i++) {
    await send("POST", "/v1/subscriptions", {
      planId: plan.id, customer: { name: "Maria Silva", email: "maria@example.com" },
      paymentMethod: { type: "credit_card", number: CARDS.visa, holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030", cvv: "123" },
    });
  }
  await createSubmerchant(t, m.sandboxKey);
  ids["/v1/submerchants/{id}/provider-accounts"] = (await createSubmerchant(t, m.sandboxKey)).id;
  // The objects the lists under a path parameter belong to.
  ids["/v1/customers/{id}/cards"] = (await send("POST", "/v1/customers", { name: "Ana", email: "ana@example.com", documentId: "529.982.247-25", documentType: "cpf" })).id;
  ids["/v1/webhook-endpoints/{id}/deliveries"] = (await send("POST", "/v1/webhook-endpoints", { url: "http://127.0.0.1:9/hooks" })).id;
  ids["/v1/payment-links/{id}/payments"] = (await send("POST", "/v1/payment-links", {
    title: "Caneca", currency: "BRL", freightMode: "free", products: [{ title: "Caneca azul", unitPrice: 59.9, quantity: 1, physical: false }],
  })).id;
});
after(async () => { await t.close(); });

async function send(method: "GET" | "POST", url: string, payload?: unknown): Promise<{ id: string } & Record<string, unknown>> {
  // The operator's lists (/v1/admin/...) take the admin key; every other list the merchant's.
  const key = url.startsWith("/v1/admin/") ? t.admin : m.sandboxKey;
  const res = await t.app.inject({ method, url, headers: { authorization: basic(key) }, payload: payload as never });
  expectStatus(res, method === "GET" ? 200 : 201);
  return res.json();
}

/**
 * Quotes answer `{data}` too, but list no stored object: the installment plans for an amount
 * (GET /v1/installments and the checkout's GET /v1/payment-links/{id}/installments).
 */
const QUOTES = new Set(["/v1/installments", "/v1/payment-links/{id}/installments"]);

/** GET routes whose 200 answer is an object with a `data` array, from the OpenAPI document. */
async function listRoutes(): Promise<string[]> {
  const doc = (await t.app.inject({ url: "/openapi.json" })).json() as {
    paths: Record<string, Record<string, { responses?: Record<string, { content?: Record<string, { schema?: Schema }> }> }>>;
    components: { schemas: Record<string, Schema> };
  };
  type Schema = { $ref?: string; allOf?: Schema[]; properties?: Record<string, { type?: string }> };
  const resolve = (s: Schema | undefined): Schema | undefined =>
    s?.$ref ? doc.components.schemas[s.$ref.split("/").pop()!] : s?.allOf ? resolve(s.allOf[0]) : s;
  return Object.entries(doc.paths)
    .filter(([, ops]) => resolve(ops.get?.responses?.["200"]?.content?.["application/json"]?.schema)?.properties?.data?.type === "array")
    .map(([p]) => p)
    .filter((p) => !QUOTES.has(p));
}

/**
 * The envelope (everything outside `data`) must match exactly, keys and values; inside `data`
 * the example shows some fields of each object, which must exist with the same type.
 */
function assertLike(example: unknown, real: unknown, where: string, inData = false): void {
  if (Array.isArray(example)) {
    assert.ok(Array.isArray(real), `${where} is an array`);
    assert.equal(real.length, example.length, `${where} has ${example.length} objects`);
    example.forEach((e, i) => assertLike(e, real[i], `${where}[${i}]`, inData));
  } else if (example !== null && typeof example === "object") {
    assert.ok(real !== null && typeof real === "object" && !Array.isArray(real), `${where} is an object`);
    const realObject = real as Record<string, unknown>;
    if (!inData) assert.deepEqual(Object.keys(realObject).sort(), Object.keys(example).sort(), `${where} keys`);
    for (const [k, v] of Object.entries(example)) {
      assert.ok(k in realObject, `${where}.${k} exists in the real answer`);
      assertLike(v, realObject[k], `${where}.${k}`, inData || k === "data");
    }
  } else if (inData) {
    assert.equal(typeof real, typeof example, `${where} has the example's type`);
  } else {
    assert.equal(real, example, `${where} is what the README says`);
  }
}

test("README Lists: every list is named under one envelope, and each example is a real answer", async () => {
  const envelopes = readmeEnvelopes();
  const named = envelopes.flatMap((e) => e.routes);
  assert.equal(new Set(named).size, named.length, "no list is named twice");
  assert.deepEqual([...named].sort(), (await listRoutes()).sort(), "the README names every list route of /openapi.json, and only those");

  for (const { routes, request, example } of envelopes) {
    const real = await send("GET", request);
    assertLike(example, real, `GET ${request}`);
    for (const route of routes) {
      const url = route.includes("{id}") ? route.replace("{id}", ids[route] ?? assert.fail(`no id for ${route}`)) : route;
      const answer = await send("GET", url);
      assert.deepEqual(Object.keys(answer).sort(), Object.keys(example).sort(), `GET ${route} answers the envelope of its README paragraph: ${JSON.stringify(answer).slice(0, 300)}`);
      const meta = (example as { meta?: Record<string, unknown> }).meta;
      if (meta) assert.deepEqual(Object.keys(answer.meta as object).sort(), Object.keys(meta).sort(), `GET ${route} meta`);
    }
  }
});
