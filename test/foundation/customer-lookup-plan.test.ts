// A charge's inline customer is looked up by e-mail, else phone, on every charge that names one
// (customers.repo contactLookup; never by document alone). The lookup must read one index range, not the merchant's
// customers, with no statistics at all: PGlite has no autovacuum, and a PostgreSQL table is not
// analyzed before autovacuum's next round. Before migration 0024 the planner read the scope index
// in id order and filtered every customer of the merchant (3 to 4 ms per charge at 20,000); the
// phone has its own index range since 0025.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import type { PGlite } from "@electric-sql/pglite";
import type pg from "pg";
import type { Database } from "../../src/db/client.js";
import { contactLookup, findCustomerByContact, type BuyerContact } from "../../src/modules/customers/customers.repo.js";
import { scansOf, type Run } from "../../bench/growth-explain.js";
import { freshDatabase } from "../helpers/db.js";

const MERCHANT = "mer_0customerlookup00000000000";
const scope = { merchantId: MERCHANT, environment: "sandbox" as const };
let database: Database;
let run: Run;

before(async () => {
  database = await freshDatabase();
  const client = (database.db as unknown as { $client: pg.Pool | PGlite }).$client;
  run = (text, params) => (client as pg.Pool).query(text, params) as Promise<{ rows: unknown[] }>;
  // 3,000 of the merchant's customers (ids in creation order), no ANALYZE.
  await run(`insert into customers (id, merchant_id, environment, name, email, phone, document_type, document_id)
    select 'cus_' || lpad(g::text, 8, '0'), $1, 'sandbox', 'Buyer ' || g, 'buyer' || g || '@example.com', '+55119' || lpad(g::text, 8, '0'), 'cpf', lpad(g::text, 11, '0')
    from generate_series(1, 3000) g`, [MERCHANT]);
});
after(async () => { await database?.close(); });

async function explain(c: BuyerContact) {
  const st = contactLookup(scope, c)!;
  const r = await run(`explain (analyze, format json) ${st.make((i) => `$${i + 1}`)}`, st.values);
  const top = ((r.rows[0] as Record<string, unknown>)["QUERY PLAN"] as { Plan: Parameters<typeof scansOf>[0] }[])[0]!;
  const removed = (n: Record<string, unknown>): number =>
    Number(n["Rows Removed by Filter"] ?? 0) + ((n.Plans as Record<string, unknown>[] | undefined) ?? []).reduce((sum, p) => sum + removed(p), 0);
  return { scans: scansOf(top.Plan).scans, removed: removed(top.Plan as unknown as Record<string, unknown>) };
}

for (const [name, contact, index] of [
  ["an e-mail", { email: "nobody@example.com" }, "customers_email_id_idx"],
  ["an e-mail (a phone beside it is not read)", { email: "nobody@example.com", phone: "+5511999999999" }, "customers_email_id_idx"],
  ["a phone", { phone: "+5511999999999" }, "customers_phone_id_idx"],
] as const) {
  test(`the lookup by ${name} that matches nobody reads its index range, not the merchant's customers`, async () => {
    const plan = await explain(contact);
    assert.ok(plan.scans.some((s) => s.includes(index)), plan.scans.join("; "));
    assert.ok(!plan.scans.some((s) => s.includes("customers_scope_idx") || s.startsWith("Seq Scan")), plan.scans.join("; "));
    assert.equal(plan.removed, 0, "no customer read and filtered out");
  });
}

test("the oldest customer with the e-mail, else the phone, is the answer; with neither there is no lookup", async () => {
  // Buyer 10's e-mail with buyer 7's phone: the e-mail decides.
  const both = await findCustomerByContact(database.db, scope, { email: "buyer10@example.com", phone: "+5511900000007" });
  assert.equal(both?.id, "cus_00000010");
  assert.equal((await findCustomerByContact(database.db, scope, { phone: "+5511900000007" }))?.id, "cus_00000007");
  assert.equal(contactLookup(scope, {}), undefined, "no e-mail and no phone: no lookup, a new customer");
  await run(`insert into customers (id, merchant_id, environment, name, email) values ('cus_99999999', $1, 'sandbox', 'Again', 'buyer10@example.com')`, [MERCHANT]);
  assert.equal((await findCustomerByContact(database.db, scope, { email: "buyer10@example.com" }))?.id, "cus_00000010");
  assert.equal(await findCustomerByContact(database.db, { ...scope, environment: "production" }, { email: "buyer10@example.com" }), undefined);
});
