import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { basic, buildTestApp, expectStatus, seedMerchant, type TestApp } from "../helpers/app.js";

let t: TestApp;
before(async () => { t = await buildTestApp(); });
after(async () => { await t.close(); });

test("a merchant creates and reads back a customer", async () => {
  const m = await seedMerchant(t);
  const created = await t.app.inject({
    method: "POST", url: "/v1/customers", headers: { authorization: basic(m.sandboxKey) },
    payload: { name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf" },
  });
  expectStatus(created, 201);
  const got = await t.app.inject({ url: `/v1/customers/${created.json().id}`, headers: { authorization: basic(m.sandboxKey) } });
  expectStatus(got, 200);
  assert.equal(got.json().documentId, "52998224725");
});
