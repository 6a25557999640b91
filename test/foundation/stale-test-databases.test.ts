import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { sweepStaleDatabases } from "../helpers/db.js";
// run-suite: postgres: the sweep of stale test databases is PostgreSQL's

// A test runner killed before its files closed leaves their databases on the server; the next
// run drops those whose name says they are older than any test file lives, and nothing else.

test("stale test databases are dropped, recent ones and other databases are kept", { skip: !process.env.DATABASE_URL && "PostgreSQL only" }, async () => {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const hex = () => randomBytes(6).toString("hex");
  const now = Math.floor(Date.now() / 1000);
  const old = `feira_t_${now - 7 * 3600}_${hex()}`;
  const recent = `feira_t_${now - 60}_${hex()}`;
  const other = `feira_keep_${hex()}`;
  try {
    for (const name of [old, recent, other]) await admin.query(`create database ${name}`);
    const dropped = await sweepStaleDatabases(admin);
    assert.ok(dropped.includes(old), `dropped: ${dropped.join(", ")}`);
    const { rows } = await admin.query<{ datname: string }>("select datname from pg_database where datname = any($1)", [[old, recent, other]]);
    assert.deepEqual(rows.map((r) => r.datname).sort(), [other, recent].sort());
  } finally {
    for (const name of [old, recent, other]) await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});
