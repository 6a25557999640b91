import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { after, before, test } from "node:test";
import { createFeiraClient, idempotencyKey } from "../../clients/typescript/src/index.js";
import { generateSchema, openApiDocument, SCHEMA_FILE } from "../../clients/typescript/generate.js";
import { buildTestApp, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS } from "../helpers/charges.js";
import { tempDir } from "../helpers/temp-dirs.js";

const run = promisify(execFile);
const CLIENT = path.resolve(import.meta.dirname, "../../clients/typescript");

let t: TestApp;
let baseUrl: string;
let m: SeededMerchant;

before(async () => {
  t = await buildTestApp();
  baseUrl = await t.app.listen({ port: 0, host: "127.0.0.1" });
  m = await seedMerchant(t);
});
after(() => t.close());

test("the checked-in client types match the server's OpenAPI document", async () => {
  const fresh = await generateSchema(await openApiDocument());
  const checkedIn = readFileSync(SCHEMA_FILE, "utf8");
  if (fresh === checkedIn) return;
  const a = checkedIn.split("\n");
  const b = fresh.split("\n");
  const line = a.findIndex((l, i) => l !== b[i]);
  assert.fail(`clients/typescript/src/schema.d.ts is stale: run \`npm run client:generate\` and commit it. First difference at line ${line + 1}:\n- ${a[line]}\n+ ${b[line]}`);
});

test("the committed dist/ is what build.mjs makes from src/ (a folder install uses it as it is)", async () => {
  const fresh = tempDir("feira-client-build-");
  try {
    await run(process.execPath, [path.join(CLIENT, "build.mjs"), fresh], { timeout: 120_000 });
    const committed = path.join(CLIENT, "dist");
    assert.deepEqual(readdirSync(committed).sort(), readdirSync(fresh).sort(), "clients/typescript/dist has the built files");
    for (const file of readdirSync(fresh)) {
      assert.equal(readFileSync(path.join(committed, file), "utf8"), readFileSync(path.join(fresh, file), "utf8"),
        `clients/typescript/dist/${file} is stale: run \`npm run client:generate\` (or \`npm run build\` in clients/typescript) and commit it`);
    }
  } finally {
    rmSync(fresh, { recursive: true, force: true });
  }
});

test("the typed client creates a customer and a charge against a running server", async () => {
  const feira = createFeiraClient({ baseUrl, apiKey: m.sandboxKey });
  const customer = await feira.POST("/v1/customers", {
    body: { name: "Ana Souza", email: "ana@example.com", documentType: "cpf", documentId: "52998224725" },
  });
  assert.equal(customer.response.status, 201, JSON.stringify(customer.error));
  const customerId = customer.data!.id;
  assert.match(customerId, /^cus_/);

  const charge = await feira.POST("/v1/charges", {
    params: { header: { "idempotency-key": idempotencyKey() } },
    body: {
      amount: 49.9, currency: "BRL", customer: { id: customerId },
      paymentMethod: { type: "credit_card", number: CARDS.visa, holderName: "ANA SOUZA", expirationMonth: "12", expirationYear: "2030", cvv: "123", installments: 1 },
    },
  });
  assert.equal(charge.response.status, 201, JSON.stringify(charge.error));
  assert.equal(charge.data!.status, "paid");

  const fetched = await feira.GET("/v1/charges/{id}", { params: { path: { id: charge.data!.id } } });
  assert.equal(fetched.data?.id, charge.data!.id);
  assert.equal(fetched.data?.customerId, customerId);

  // Errors are typed too, and a wrong key is refused.
  const refused = await createFeiraClient({ baseUrl, apiKey: "sk_test_wrong" }).GET("/v1/customers", {});
  assert.equal(refused.response.status, 401);
  assert.equal(refused.error?.statusCode, 401);
});
