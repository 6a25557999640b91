import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { LightMyRequestResponse } from "fastify";
import type { Config } from "../../src/config.js";
import { queryRows, sql, type Database } from "../../src/db/client.js";
import type { RateLimitPolicies } from "../../src/http/rate-limit.js";
import { CONFIG_CHANGED_CHANNEL } from "../../src/db/config-changes.js";
import { appsOn, basic, expectStatus, seedMerchant, testConfig, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { freshDatabase } from "../helpers/db.js";
// run-suite: postgres: counters shared by two API processes live in PostgreSQL

// Per-key limits, login lockouts and failed-authentication lockouts, through HTTP. Small limits
// keep it fast. On PostgreSQL all apps of this file share one database and so one set of
// counters: every test uses its own client addresses and merchants.

const PER_KEY = 3;
// Locks last a minute, so a test's assertions that a lock holds never race its end on a busy
// machine; the tests that watch a lock end and grow have apps of their own with LOCKS_END.
const SMALL: RateLimitPolicies = {
  loginPair: { lockAfter: 3, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
  loginAccount: { lockAfter: 10, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
  loginAddress: { lockAfter: 6, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
  failedAuthAddress: { lockAfter: 4, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
};
/** Locks of 2 s that double up to 8 s: long enough to assert, short enough to wait out. */
const LOCKS_END: RateLimitPolicies = {
  loginPair: { ...SMALL.loginPair, firstLockSeconds: 2, maxLockSeconds: 8 },
  loginAccount: { ...SMALL.loginAccount, firstLockSeconds: 2, maxLockSeconds: 8 },
  loginAddress: { ...SMALL.loginAddress, firstLockSeconds: 2, maxLockSeconds: 8 },
  failedAuthAddress: { ...SMALL.failedAuthAddress, firstLockSeconds: 2, maxLockSeconds: 8 },
};
const onPostgres = Boolean(process.env.DATABASE_URL);

let database: Database & { url?: string };
let base: Config;
let apps: ReturnType<typeof appsOn>;
let limited: TestApp; // RATE_LIMIT_PER_KEY=3
let unlimited: TestApp; // RATE_LIMIT_PER_KEY=0

/** Another API process: an app of its own on the same database (and so, on PostgreSQL, the same counters). */
const startApp = (overrides: Partial<Config>, policies: Partial<RateLimitPolicies> = SMALL) => apps.start({ ...base, ...overrides }, policies);

before(async () => {
  database = await freshDatabase();
  apps = appsOn(database);
  // The counters go to PostgreSQL when the configuration names it, as in production.
  base = testConfig({ databaseUrl: database.url });
  limited = await startApp({ rateLimitPerKey: PER_KEY });
  unlimited = await startApp({ rateLimitPerKey: 0 });
});
after(async () => {
  await apps.close();
  await database.close();
});

let address = 0;
/** A client address no other test uses. */
const newAddress = () => `198.51.100.${++address}`;

const customers = (t: TestApp, key: string, remoteAddress = "127.0.0.1", headers: Record<string, string> = {}) =>
  t.app.inject({ url: "/v1/customers", headers: { authorization: basic(key), ...headers }, remoteAddress });
/** A key of the right shape that no merchant has. */
const badKey = (c = "x") => "sk_test_" + c.repeat(32);

const login = (t: TestApp, body: { email: string; password: string }, remoteAddress: string) =>
  t.app.inject({ method: "POST", url: "/v1/auth/login", payload: body, remoteAddress });

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function assert429(res: LightMyRequestResponse, message: RegExp): number {
  expectStatus(res, 429);
  const body = res.json();
  assert.deepEqual({ ...body, message: undefined }, { statusCode: 429, message: undefined, error: "Too Many Requests", code: "rate_limited" });
  assert.match(body.message, message);
  const retryAfter = Number(res.headers["retry-after"]);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After is whole seconds >= 1: ${res.headers["retry-after"]}`);
  return retryAfter;
}

/**
 * The most requests one key may pass between `started` and `ended`: n per second plus a burst of
 * 2n per 5 s. Both windows are fixed and aligned to the epoch, so each second the loop crossed
 * into adds n, and each burst window it crossed into adds 2n.
 */
function mostPassed(started: number, ended: number): number {
  const crossed = (ms: number) => Math.floor(ended / ms) - Math.floor(started / ms);
  return 3 * PER_KEY + PER_KEY * crossed(1000) + 2 * PER_KEY * crossed(5000);
}

/** Sends requests until one is refused; returns how many passed first. */
async function exhaust(send: (i: number) => Promise<LightMyRequestResponse>, max = 100) {
  for (let i = 0; i < max; i++) {
    const res = await send(i);
    if (res.statusCode === 429) return { passed: i, refused: res };
    expectStatus(res, 200);
  }
  throw new Error(`no 429 after ${max} requests`);
}

test("a key over its limit gets 429 with Retry-After, the error body and RateLimit headers; it recovers", async () => {
  const m = await seedMerchant(limited);
  const started = Date.now();
  const first = await customers(limited, m.sandboxKey);
  expectStatus(first, 200);
  assert.equal(first.headers["ratelimit-limit"], String(PER_KEY));
  assert.equal(first.headers["ratelimit-remaining"], String(PER_KEY - 1));
  assert.ok(Number(first.headers["ratelimit-reset"]) >= 1);

  const { passed, refused } = await exhaust(() => customers(limited, m.sandboxKey));
  const ended = Date.now();
  // n per second plus a burst of 2n per 5 s. Both windows are fixed and aligned to the epoch, so
  // more passed only if the loop crossed into a new second (n more) or a new burst window (2n more).
  assert.ok(passed + 1 >= 3 * PER_KEY, `passed ${passed + 1}`);
  const most = mostPassed(started, ended);
  assert.ok(passed + 1 <= most, `passed ${passed + 1}, at most ${most}`);
  assert429(refused, /API key/);
  assert.equal(refused.headers["ratelimit-remaining"], "0");
  assert.equal(refused.headers["ratelimit-limit"], String(PER_KEY));

  // The other key of the same merchant (production) and another merchant's key are not affected.
  const other = await seedMerchant(limited);
  expectStatus(await customers(limited, other.sandboxKey), 200);
  expectStatus(await customers(limited, m.productionKey), 200);

  // The per-second bucket refills: after Retry-After the key works again.
  await waitFor("the key to recover", async () => ((await customers(limited, m.sandboxKey)).statusCode === 200 ? true : undefined));
});

test("RATE_LIMIT_PER_KEY=0 never limits and sends no RateLimit headers", async () => {
  const m = await seedMerchant(unlimited);
  const responses = await Promise.all(Array.from({ length: 40 }, () => customers(unlimited, m.sandboxKey)));
  for (const res of responses) {
    expectStatus(res, 200);
    assert.equal(res.headers["ratelimit-limit"], undefined);
  }
});

test("public routes are not limited per key", async () => {
  for (let i = 0; i < 4 * PER_KEY; i++) {
    const res = await limited.app.inject({ url: "/health" });
    expectStatus(res, 200);
    assert.equal(res.headers["ratelimit-limit"], undefined);
  }
});

test("the OpenAPI document lists 429 on routes with credentials and on login", async () => {
  const doc = (await limited.app.inject({ url: "/openapi.json" })).json();
  assert.ok(doc.paths["/v1/customers"].get.responses["429"]);
  assert.ok(doc.paths["/v1/auth/login"].post.responses["429"]);
  // No 429 on a route without credentials (422: the input guard refuses a NUL in its query; 408
  // and 431: the HTTP parser refuses headers not received in time or over 16 KiB).
  assert.deepEqual(Object.keys(doc.paths["/health"].get.responses).sort(), ["200", "408", "422", "431", "503"]);
});

test("login: the lockout grows, is per account and address, and clears on success", async () => {
  const limited = await startApp({ rateLimitPerKey: PER_KEY }, LOCKS_END);
  const m = await seedMerchant(limited);
  const ip = newAddress();
  const wrong = { email: m.email, password: "wrong password" };
  for (let i = 0; i < SMALL.loginPair.lockAfter; i++) expectStatus(await login(limited, wrong, ip), 401);
  assert.ok([1, 2].includes(assert429(await login(limited, wrong, ip), /login/)), "the first lock: 2 s");
  // Per account from that address, however the e-mail is spelled.
  assert429(await login(limited, { ...wrong, email: m.email.toUpperCase() }, ip), /login/);
  // Another account from the same address is not locked.
  expectStatus(await login(limited, { email: "someone-else@example.com", password: "x" }, ip), 401);

  // Once the 2 s lock ends one more attempt runs; failing, it locks for 4 s.
  const next = await waitFor("the first lock to end", async () => {
    const res = await login(limited, wrong, ip);
    return res.statusCode === 429 ? undefined : res;
  });
  expectStatus(next, 401);
  assert.ok([3, 4].includes(assert429(await login(limited, wrong, ip), /login/)), "the second lock is twice the first");

  // The right password after the lock: 200, and the consecutive count starts again.
  const ok = await waitFor("the second lock to end", async () => {
    const res = await login(limited, { email: m.email, password: m.password }, ip);
    return res.statusCode === 429 ? undefined : res;
  });
  expectStatus(ok, 200);
  const elsewhere = newAddress(); // this address has used most of its own budget
  for (let i = 0; i < SMALL.loginPair.lockAfter - 1; i++) expectStatus(await login(limited, wrong, elsewhere), 401);
});

test("login: a locked account is refused without checking the password", async () => {
  const m = await seedMerchant(limited);
  const ip = newAddress();
  const service = limited.services.merchants;
  const original = service.login;
  let checked = 0;
  service.login = async (...args) => {
    checked++;
    return original(...args);
  };
  try {
    for (let i = 0; i < SMALL.loginPair.lockAfter; i++) expectStatus(await login(limited, { email: m.email, password: "nope" }, ip), 401);
    assert.equal(checked, SMALL.loginPair.lockAfter);
    for (const password of ["nope", m.password]) assert429(await login(limited, { email: m.email, password }, ip), /login/);
    assert.equal(checked, SMALL.loginPair.lockAfter, "no password was checked while locked");
  } finally {
    service.login = original;
  }
});

test("login: guesses sent all at once are not checked past the lockout", async () => {
  const m = await seedMerchant(limited);
  const ip = newAddress();
  const responses = await Promise.all(Array.from({ length: 20 }, () => login(limited, { email: m.email, password: "nope" }, ip)));
  const checked = responses.filter((r) => r.statusCode === 401).length;
  assert.ok(responses.every((r) => r.statusCode === 401 || r.statusCode === 429), responses.map((r) => r.statusCode).join());
  assert.ok(checked <= SMALL.loginPair.lockAfter, `${checked} passwords checked`);
});

test("login: an address is locked out after failures across accounts, separately from the accounts", async () => {
  const m = await seedMerchant(limited);
  const ip = newAddress();
  for (let i = 0; i < SMALL.loginAddress.lockAfter; i++) {
    expectStatus(await login(limited, { email: `nobody-${i}@example.com`, password: "guess" }, ip), 401);
  }
  assert429(await login(limited, { email: "nobody-else@example.com", password: "guess" }, ip), /login/);
  assert429(await login(limited, { email: m.email, password: m.password }, ip), /login/);
  // The accounts are not locked: from another address they answer as usual.
  expectStatus(await login(limited, { email: m.email, password: m.password }, newAddress()), 200);
  expectStatus(await login(limited, { email: "nobody-0@example.com", password: "guess" }, newAddress()), 401);
});

test("failed authentication is counted per address: bad keys, bad tokens and bad admin keys lock it out", async () => {
  const limited = await startApp({ rateLimitPerKey: PER_KEY }, LOCKS_END);
  const m = await seedMerchant(limited);
  const ip = newAddress();
  const attempts = [
    () => customers(limited, "sk_test_" + "x".repeat(32), ip),
    () => limited.app.inject({ url: "/v1/customers", headers: { authorization: "Bearer not.a.jwt" }, remoteAddress: ip }),
    () => limited.app.inject({ method: "POST", url: "/v1/admin/merchants", headers: { authorization: basic("adm_wrong_" + "y".repeat(30)) }, payload: {}, remoteAddress: ip }),
    () => customers(limited, m.sandboxKey.slice(0, -1), ip),
  ];
  assert.equal(attempts.length, SMALL.failedAuthAddress.lockAfter);
  for (const attempt of attempts) expectStatus(await attempt(), 401);
  assert429(await customers(limited, badKey("z"), ip), /failed authentications/);
  assert429(await limited.app.inject({ url: "/v1/customers", headers: { authorization: "Bearer not.a.jwt" }, remoteAddress: ip }), /failed authentications/);
  expectStatus(await customers(limited, badKey("z"), newAddress()), 401);
  await waitFor("the address lock to end", async () => ((await customers(limited, badKey("z"), ip)).statusCode === 401 ? true : undefined));
});

test("a valid key from a locked-out address is served, limited by its own per-key limit only", async () => {
  // Behind one NAT, a noisy client's bad keys must not deny service to everyone else there.
  // The address's lock (SMALL's minute) must outlast a login and a key's whole limit.
  const m = await seedMerchant(limited);
  const nat = newAddress();
  for (let i = 0; i < SMALL.failedAuthAddress.lockAfter; i++) expectStatus(await customers(limited, badKey(), nat), 401);
  assert429(await customers(limited, badKey(), nat), /failed authentications/);

  const served = await customers(limited, m.sandboxKey, nat);
  expectStatus(served, 200);
  assert.equal(served.headers["ratelimit-limit"], String(PER_KEY));
  const login = await limited.app.inject({ method: "POST", url: "/v1/auth/login", payload: { email: m.email, password: m.password }, remoteAddress: newAddress() });
  expectStatus(login, 200);
  const token = `Bearer ${login.json().accessToken as string}`;
  expectStatus(await limited.app.inject({ url: "/v1/payment-links", headers: { authorization: token }, remoteAddress: nat }), 200);
  const admin = { method: "PATCH" as const, url: `/v1/admin/merchants/${m.id}`, payload: { status: "active" }, headers: { authorization: basic(limited.admin) }, remoteAddress: nat };
  expectStatus(await limited.app.inject(admin), 200);

  // Its refusal is its own per-key limit, and the address stays locked for bad keys meanwhile.
  const { refused } = await exhaust(() => customers(limited, m.sandboxKey, nat));
  assert429(refused, /API key/);
  assert429(await customers(limited, badKey(), nat), /failed authentications/);
});

test("TRUST_PROXY_HOPS=1: the address X-Forwarded-For's last entry names is the one counted; the entries a client writes before it are not", async () => {
  const behindProxy = await startApp({ rateLimitPerKey: 0, trustProxyHops: 1 });
  const m = await seedMerchant(behindProxy);
  const proxy = newAddress();
  const [noisy, neighbour] = [newAddress(), newAddress()];
  const via = (client: string, key: string, forwarded = client) => customers(behindProxy, key, proxy, { "x-forwarded-for": forwarded });
  for (let i = 0; i < SMALL.failedAuthAddress.lockAfter; i++) expectStatus(await via(noisy, badKey()), 401);
  assert429(await via(noisy, badKey()), /failed authentications/);
  // A client cannot step out of its lock by writing other addresses in front of its own.
  assert429(await via(noisy, badKey(), `203.0.113.9, ${noisy}`), /failed authentications/);
  // Another client behind the same proxy, and the proxy's own address, are not locked.
  expectStatus(await via(neighbour, badKey()), 401);
  expectStatus(await customers(behindProxy, badKey(), proxy), 401);
  expectStatus(await via(noisy, m.sandboxKey), 200);
});

test("TRUST_PROXY_HOPS=0 (the default): X-Forwarded-For is ignored, the socket's address is counted", async () => {
  const direct = await startApp({ rateLimitPerKey: 0, trustProxyHops: 0 });
  const client = newAddress();
  for (let i = 0; i < SMALL.failedAuthAddress.lockAfter; i++) {
    expectStatus(await customers(direct, badKey(), client, { "x-forwarded-for": newAddress() }), 401);
  }
  assert429(await customers(direct, badKey(), client, { "x-forwarded-for": newAddress() }), /failed authentications/);
});

test("an IPv6 client is counted by its /64", async () => {
  const m = await seedMerchant(limited);
  for (let i = 1; i <= SMALL.failedAuthAddress.lockAfter; i++) {
    expectStatus(await customers(limited, "sk_test_" + "x".repeat(32), `2001:db8:1:2::${i}`), 401);
  }
  assert429(await customers(limited, badKey(), "2001:db8:1:2:ffff::9"), /failed authentications/);
  expectStatus(await customers(limited, badKey(), "2001:db8:1:3::1"), 401);
  expectStatus(await customers(limited, m.sandboxKey, "2001:db8:1:2:ffff::9"), 200);
});

test("PostgreSQL: two API processes share the counters", { skip: !onPostgres && "the embedded database has one process" }, async () => {
  const shared: Partial<RateLimitPolicies> = {
    loginPair: { lockAfter: 2, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
    loginAccount: { lockAfter: 3, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
    failedAuthAddress: { lockAfter: 2, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600 },
  };
  const [a, b] = [await startApp({ rateLimitPerKey: PER_KEY }, shared), await startApp({ rateLimitPerKey: PER_KEY }, shared)];
  const m: SeededMerchant = await seedMerchant(a);

  // Alternating between the two, the key gets one budget (3n), not one per process (6n).
  const started = Date.now();
  const { passed } = await exhaust((i) => customers(i % 2 === 0 ? a : b, m.sandboxKey));
  const most = mostPassed(started, Date.now());
  assert.ok(passed <= most, `passed ${passed}, at most ${most} (one budget per process would allow ${2 * most})`);

  // A login lockout earned on one process holds on the other: the account from that address,
  // then, with one failure more from elsewhere, the account from everywhere.
  const ip = newAddress();
  for (let i = 0; i < 2; i++) expectStatus(await login(a, { email: m.email, password: "wrong" }, ip), 401);
  assert429(await login(b, { email: m.email, password: m.password }, ip), /login/);
  expectStatus(await login(b, { email: m.email, password: "wrong" }, newAddress()), 401);
  assert429(await login(a, { email: m.email, password: m.password }, newAddress()), /login/);

  // So does an address lockout for failed authentication.
  const scanner = newAddress();
  for (let i = 0; i < 2; i++) expectStatus(await customers(a, "sk_test_" + "q".repeat(32), scanner), 401);
  assert429(await customers(b, badKey("r"), scanner), /failed authentications/);

  const rows = await queryRows<{ n: number }>(database.db, sql`select count(*)::int as n from rate_limits`);
  assert.ok(rows[0]!.n > 0);
});

test("PostgreSQL: an address lock taken by one process reaches another that had read the address as unlocked", { skip: !onPostgres && "the embedded database has one process" }, async () => {
  // b would keep "no lock" for 10 minutes: only the announcement can make it read again in time.
  const policy: Partial<RateLimitPolicies> = {
    failedAuthAddress: { lockAfter: 2, firstLockSeconds: 60, maxLockSeconds: 60, windowSeconds: 3600, rememberSeconds: 600 },
  };
  const [a, b] = [await startApp({ rateLimitPerKey: 0 }, policy), await startApp({ rateLimitPerKey: 0 }, policy)];
  // As main.ts does in every API process: a notification on the channel makes b forget.
  const unlisten = await database.listen(CONFIG_CHANGED_CHANNEL, () => b.services.configChanges.forget());
  try {
    const m = await seedMerchant(a);
    const scanner = newAddress();
    // b reads the address's lock (none) on a first failure, and keeps what it read.
    expectStatus(await customers(b, badKey("w"), scanner), 401);
    expectStatus(await customers(a, badKey("w"), scanner), 401); // the second failure: locked
    // a knows its own lock at once; b as soon as the announcement arrives.
    assert429(await customers(a, badKey("w"), scanner), /failed authentications/);
    const refused = await waitFor("b to hear of the lock", async () => {
      const res = await customers(b, badKey("w"), scanner);
      return res.statusCode === 429 ? res : undefined;
    });
    assert429(refused, /failed authentications/);
    expectStatus(await customers(b, m.sandboxKey, scanner), 200);
  } finally {
    await unlisten();
  }
});

test("PostgreSQL: a broken counter store lets key requests through and makes login answer 503", { skip: !onPostgres && "the memory store cannot fail" }, async () => {
  const m = await seedMerchant(limited);
  await database.db.execute(sql`alter table rate_limits rename to rate_limits_away`);
  try {
    for (let i = 0; i < 4 * PER_KEY; i++) expectStatus(await customers(limited, m.sandboxKey, newAddress()), 200);
    const res = await login(limited, { email: m.email, password: m.password }, newAddress());
    expectStatus(res, 503);
    assert.equal(res.json().code, "unavailable");
  } finally {
    await database.db.execute(sql`alter table rate_limits_away rename to rate_limits`);
  }
  expectStatus(await login(limited, { email: m.email, password: m.password }, newAddress()), 200);
});
