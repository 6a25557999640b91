import { test } from "node:test";
import assert from "node:assert/strict";
import { needsLocator, parsePgUrl } from "../../src/db/hosts.js";
import { isDatabaseUnavailable } from "../../src/db/unavailable.js";

// How a DATABASE_URL with several hosts is read (src/db/hosts.ts), as libpq reads it: the hosts in
// order, each with its port (5432 when none), the other parameters kept for node-postgres, and
// target_session_attrs checked. The connections themselves are proved over HTTP in
// test/availability/database-loss.test.ts and failover.test.ts.

test("a host list: every host with its port, credentials and parameters kept per host", () => {
  const u = parsePgUrl("postgres://fe%40ira:p%3Ass@db1:5433,db2,[::1]:6000/feira?target_session_attrs=read-write&sslmode=disable&connect_timeout=3");
  assert.deepEqual(u.hosts, [{ host: "db1", port: 5433 }, { host: "db2", port: 5432 }, { host: "::1", port: 6000 }]);
  assert.equal(u.attrs, "read-write");
  assert.equal(u.connectTimeout, 3);
  // One host's URL, as node-postgres reads it: the credentials as given (still encoded), the
  // other parameters, and no target_session_attrs (node-postgres does not know it).
  assert.equal(u.urlFor(u.hosts[2]!), "postgres://fe%40ira:p%3Ass@[::1]:6000/feira?sslmode=disable&connect_timeout=3");
  assert.equal(new URL(u.urlFor(u.hosts[0]!)).password, "p%3Ass");
});

test("one host without session attributes goes to node-postgres untouched; a list or an attribute does not", () => {
  assert.equal(needsLocator("postgres://u:p@db:5432/feira"), false);
  assert.equal(needsLocator("postgres://u:p@db1:5432,db2:5432/feira"), true);
  assert.equal(needsLocator("postgres://u:p@db:5432/feira?target_session_attrs=primary"), true);
});

test("an unknown target_session_attrs or an empty host is refused", () => {
  assert.throws(() => parsePgUrl("postgres://u:p@db1,db2/feira?target_session_attrs=writable"), /target_session_attrs must be one of/);
  assert.throws(() => parsePgUrl("postgres://u:p@db1,,db2/feira"), /empty/);
});

test("what a lost primary raises is 'unavailable'; a query's own error is not", () => {
  for (const code of ["57P01", "57P02", "57P03", "08006", "08001", "25006", "ECONNRESET", "ECONNREFUSED"]) {
    assert.equal(isDatabaseUnavailable(Object.assign(new Error("x"), { code })), true, code);
  }
  assert.equal(isDatabaseUnavailable(new Error("Connection terminated unexpectedly")), true);
  // drizzle wraps the driver's error; the cause decides.
  assert.equal(isDatabaseUnavailable(new Error("Failed query", { cause: Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }) })), true);
  for (const code of ["23505", "40001", "42P01", "22P02"]) assert.equal(isDatabaseUnavailable(Object.assign(new Error("x"), { code })), false, code);
});
