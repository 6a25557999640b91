import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { appsOn, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { until } from "../helpers/wait.js";
import { panelClient } from "../panel/panel-client.js";

// Five wrong passwords from one address must not lock the merchant out from everywhere
// (docs/guarantees.md, "Login"): guessing is stopped per account and address, a correct sign-in
// from an address that has not been failing goes through, and a guesser spread over many
// addresses is slowed per account. The default policies, through the API and the panel's form,
// which share the throttle.

let t: TestApp;
before(async () => {
  t = await buildTestApp();
});
after(async () => t?.close());

let n = 0;
const address = () => `203.0.113.${++n}`;
const login = (app: TestApp, body: { email: string; password: string }, remoteAddress: string) =>
  app.app.inject({ method: "POST", url: "/v1/auth/login", payload: body, remoteAddress });

// The first lock lasts 1 s (then 2, 4, ...): on a loaded machine the next request may come after
// it ended. Such a run proves nothing either way and is made again from a fresh address.
async function lockedOut(m: SeededMerchant) {
  for (let attempt = 0; ; attempt++) {
    const a = address();
    for (let i = 0; i < 5; i++) expectStatus(await login(t, { email: m.email, password: "wrong password" }, a), 401);
    const fifth = Date.now();
    const locked = await login(t, { email: m.email, password: m.password }, a);
    if (locked.statusCode === 429 || Date.now() - fifth < 1_000 || attempt === 2) return { a, locked, fifth };
  }
}

test("API: five wrong passwords lock that address out of the account, even with the right one; another address signs in", async () => {
  const m: SeededMerchant = await seedMerchant(t);
  const { a, locked, fifth } = await lockedOut(m);
  assert.equal(locked.statusCode, 429, locked.body);
  assert.ok(Number(locked.headers["retry-after"]) >= 1);
  expectStatus(await login(t, { email: m.email, password: m.password }, address()), 200);
  // Still locked where the guessing came from (while the first lock's second lasts).
  const again = await login(t, { email: m.email, password: m.password }, a);
  if (Date.now() - fifth < 1_000) assert.equal(again.statusCode, 429);
});

test("panel: the same rule for the sign-in form", async () => {
  const m = await seedMerchant(t);
  const a = panelClient(t, undefined, address());
  await a.get("/panel/login");
  for (let i = 0; i < 5; i++) assert.equal((await a.post("/panel/login", { email: m.email, password: "wrong password" })).statusCode, 401);
  const locked = await a.post("/panel/login", { email: m.email, password: m.password });
  assert.equal(locked.statusCode, 429, locked.body);
  assert.ok(!a.cookies.has("feira_panel"));
  const b = panelClient(t, undefined, address());
  await b.get("/panel/login");
  const res = await b.post("/panel/login", { email: m.email, password: m.password });
  assert.equal(res.statusCode, 303, res.body);
  expectStatus(await b.get("/panel"), 200);
});

test("failures spread over many addresses slow the account down for everyone, briefly", async () => {
  // An app of its own with a small per-account limit (on PGlite its counters are its own).
  const apps = appsOn(t.database);
  try {
    const small = await apps.start(t.config, { loginAccount: { lockAfter: 4, firstLockSeconds: 3, maxLockSeconds: 3, windowSeconds: 3600 } });
    const m = await seedMerchant(small);
    for (let i = 0; i < 4; i++) expectStatus(await login(small, { email: m.email, password: "wrong password" }, address()), 401);
    const fresh = address();
    const slowed = await login(small, { email: m.email, password: m.password }, fresh);
    assert.equal(slowed.statusCode, 429, slowed.body);
    const wait = Number(slowed.headers["retry-after"]);
    assert.ok(wait >= 1 && wait <= 3, `Retry-After ${wait}`);
    // Once the short lock ends, the right password from a fresh address signs in.
    await until("the account's lock to end", async () => (await login(small, { email: m.email, password: m.password }, fresh)).statusCode === 200, 15_000);
  } finally {
    await apps.close();
  }
});
