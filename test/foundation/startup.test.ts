import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { basicAuth, childDatabaseEnv, childEnv, freePort, nodeMain, npmStart, tempDir, waitForHttp } from "../helpers/process.js";
// run-suite: waits: feira as processes (npm start)

// The README walkthrough, run for real: `npm start` on an empty DATA_DIR prints the admin key
// and the demo merchant once, answers /health, and the printed key creates a customer.
// The child follows the suite's engine: PGlite in DATA_DIR, or, when DATABASE_URL is set, a
// fresh PostgreSQL database of its own.

const databaseEnv = childDatabaseEnv();

test("npm start: first start prints the keys once, /health answers, the printed key works, a restart keeps the data", async (t) => {
  const dataDir = tempDir();
  const port = await freePort();
  const env = childEnv({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: "warn", ...databaseEnv() });
  const base = `http://127.0.0.1:${port}`;

  const first = npmStart(env);
  t.after(() => first.stop());
  const [, sandboxKey] = await first.waitFor(/sandbox key:\s+(sk_test_[A-Za-z0-9]+)/);
  // Piped, as here, the first-start lines go to stderr (stdout is the JSON log).
  const out = first.stderr();
  const adminKey = /Admin key \(shown once, store it\): (adm_[A-Za-z0-9]+)/.exec(out)?.[1];
  const login = /login:\s+(\S+) \/ (\S+)/.exec(out);
  const tryIt = /try it:\s+curl -u (\S+): (\S+)/.exec(out);
  assert.ok(adminKey, `admin key printed:\n${out}`);
  assert.ok(login, `demo login printed:\n${out}`);
  assert.ok(tryIt, `try-it command printed:\n${out}`);
  assert.equal(tryIt[1], sandboxKey);
  assert.equal(tryIt[2], `http://localhost:${port}/v1/customers`);

  await waitForHttp(`${base}/health`);
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
  assert.deepEqual(await health.json(), { status: "ok" });

  // The printed "try it" command, as curl would send it (localhost, Basic with an empty password).
  const listed = await fetch(tryIt[2]!, { headers: { authorization: basicAuth(tryIt[1]!) } });
  assert.equal(listed.status, 200, await listed.clone().text());
  // The first start gave the demo merchant its sandbox history (DEMO_HISTORY, on by default).
  const demoCustomers = (await listed.json()) as { data: { name: string }[] };
  assert.ok(demoCustomers.data.some((c) => c.name === "Mariana Costa"), JSON.stringify(demoCustomers));

  const created = await fetch(`${base}/v1/customers`, {
    method: "POST",
    headers: { authorization: basicAuth(sandboxKey!), "content-type": "application/json" },
    body: JSON.stringify({ name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf" }),
  });
  const createdBody = await created.text();
  assert.equal(created.status, 201, createdBody);
  const customerId = JSON.parse(createdBody).id as string;
  assert.match(customerId, /^cus_/);

  const token = await fetch(`${base}/v1/auth/login`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: login[1], password: login[2] }),
  });
  assert.equal(token.status, 200, await token.clone().text());

  const merchant = await fetch(`${base}/v1/admin/merchants`, {
    method: "POST",
    headers: { authorization: basicAuth(adminKey), "content-type": "application/json" },
    body: JSON.stringify({ name: "Loja Dois", email: "dois@example.com", password: "a long enough password" }),
  });
  assert.equal(merchant.status, 201, await merchant.clone().text());

  await first.stop();
  if (!env.DATABASE_URL) assert.equal(existsSync(path.join(dataDir, "feira.lock")), false, "the lock file is removed on shutdown");

  // Second start on the same data: nothing is printed again, the data and the keys are still there.
  const second = await nodeMain(env);
  t.after(() => second.stop());
  await waitForHttp(`${base}/health`);
  assert.doesNotMatch(second.output(), /Admin key|sandbox key/, "first-start lines are printed only once");
  const got = await fetch(`${base}/v1/customers/${customerId}`, { headers: { authorization: basicAuth(sandboxKey!) } });
  assert.equal(got.status, 200, await got.clone().text());
  assert.equal((await got.json()).documentId, "52998224725");
  assert.equal(await second.stop(), 0);
});
