import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "drizzle-orm";
import { pgTable, text } from "drizzle-orm/pg-core";
import { groupCommitOf, Statement, WriteBatch } from "../../src/db/batch.js";
import { poolOf, queryRows, setGroupCommit } from "../../src/db/client.js";
import { basic, buildTestApp, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { CARDS, cardCharge } from "../helpers/charges.js";
// run-suite: postgres: group commit groups the statements of a node-postgres pool
// topology: skip: its app stays in-process: the test turns group commit on for its own pool and counts its statements

// Group commit (src/db/group-commit.ts): concurrent statements of new rows of one shape, past the
// limit in flight, go together as one statement; each keeps its own rows, and one member's failure
// fails only that member.

const onPostgres = Boolean(process.env.DATABASE_URL);
// runReturning maps rows by a table's columns: the probe table's two.
const PROBE = pgTable("group_commit_probe", { id: text("id").primaryKey(), part: text("part").notNull() });

describe("group commit", { skip: onPostgres ? false : "groups node-postgres statements (run with DATABASE_URL)" }, () => {
  let t: TestApp;
  let m: SeededMerchant;
  before(async () => {
    t = await buildTestApp({}, {
      inProcessOnly: "turns group commit on for this process's pool and counts its statements",
      beforeReady: (_app, database) => setGroupCommit(poolOf(database.db)!, 1),
    });
    m = await seedMerchant(t);
    await t.database.db.execute(sql`create table group_commit_probe (id text primary key, part text not null)`);
  });
  after(() => t?.close());

  // A member: a main insert returning its row, and a second insert, as a charge's statement is.
  const member = (id: string, extraId = `${id}-b`) => {
    const batch = new WriteBatch(t.database.db);
    batch.add(new Statement("probe part", (p) => `insert into group_commit_probe (id, part) values (${p(0)}, 'part')`, [extraId]));
    return batch.runReturning(t.database.db, PROBE, new Statement("probe main", (p) => `insert into group_commit_probe (id, part) values (${p(0)}, 'main') returning id, part`, [id]));
  };

  it("concurrent statements go together, each with its own rows; one member's failure fails only it and writes nothing of it", async () => {
    await t.database.db.execute(sql`insert into group_commit_probe (id, part) values ('taken-b', 'earlier')`);
    const group = groupCommitOf(t.database.db)!;
    const before = { ...group.sent };
    const ids = Array.from({ length: 12 }, (_, i) => `m${i}`);
    const results = await Promise.allSettled([...ids.map((id) => member(id)), member("taken", "taken-b")]);
    results.slice(0, 12).forEach((r, i) => {
      assert.equal(r.status, "fulfilled", String(r.status === "rejected" && r.reason));
      assert.deepEqual(r.status === "fulfilled" && r.value.map((row) => (row as { id: string }).id), [ids[i]]);
    });
    const failed = results[12]!;
    assert.equal(failed.status, "rejected");
    assert.match(String((failed as PromiseRejectedResult).reason), /duplicate key|unique/);
    const rows = await queryRows<{ id: string }>(t.database.db, sql`select id from group_commit_probe where part <> 'earlier' order by id`);
    assert.equal(rows.length, 24, "every other member's two rows");
    assert.ok(!rows.some((r) => r.id === "taken"), "nothing of the failing member");
    const sent = group.sent.statements - before.statements;
    const members = group.sent.members - before.members;
    assert.ok(sent < members, `grouped: ${members} members in ${sent} statements`);
  });

  it("concurrent card charges over HTTP: each answered with its own charge, booked once; their customer lookups and statements in fewer statements than charges", async () => {
    const group = groupCommitOf(t.database.db)!;
    const before = { ...group.sent };
    const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => t.app.inject({
      method: "POST", url: "/v1/charges", headers: { authorization: basic(m.sandboxKey) }, payload: cardCharge(CARDS.visa, { amount: 10 + i }) as never,
    })));
    const ids = new Set<string>();
    answers.forEach((res, i) => {
      assert.equal(res.statusCode, 201, res.body);
      const c = res.json() as { id: string; status: string };
      assert.equal(c.status, "paid");
      ids.add(c.id);
      void i;
    });
    assert.equal(ids.size, 16);
    const list = sql.join([...ids].map((id) => sql`${id}`), sql`, `);
    const [counts] = await queryRows<{ charges: number; events: number; booked: number; unbalanced: number }>(t.database.db, sql`
      select (select count(*)::int from charges where id in (${list})) as charges,
             (select count(*)::int from ledger_transactions where source_id in (${list})) as booked,
             (select count(*)::int from events where object_id in (${list}) and type = 'charge.paid') as events,
             (select count(*)::int from (select t.id from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
               where t.source_id in (${list}) group by t.id having sum(e.amount) <> 0) u) as unbalanced`);
    assert.deepEqual(counts, { charges: 16, events: 16, booked: 16, unbalanced: 0 });
    // Each answer is its own charge: the amounts asked, one each, in minor units.
    const amounts = await queryRows<{ amount: number }>(t.database.db, sql`select amount::int as amount from charges where id in (${list}) order by amount`);
    assert.deepEqual(amounts.map((a) => a.amount), Array.from({ length: 16 }, (_, i) => (10 + i) * 100));
    const sent = group.sent.statements - before.statements;
    const members = group.sent.members - before.members;
    assert.equal(members, 32, "each charge's customer lookup and its statement went through the group commit");
    assert.ok(sent < members, `grouped: ${members} charges in ${sent} statements`);
  });
});
