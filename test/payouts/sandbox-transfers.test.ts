import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import pino from "pino";
import { sql } from "drizzle-orm";
import { queryRows } from "../../src/db/client.js";
import { startWorker } from "../../src/jobs/runner.js";
import { buildTestApp, expectStatus, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { admin, call, FEES, payoutForAdmin, sandboxPayout, seedMaster } from "../connect/helpers.js";

// The sandbox mirrors a payout's transfer states as a live Pix-out has them, so integrations can
// rehearse them: an approval without an endToEndId answers 202 with the payout pending and
// transfer.status "sending"; the worker's read-back then approves it with the simulator's
// end-to-end id and payout.approved, with no further call. A second approval meanwhile answers
// the same state and sends nothing; the payout cannot be rejected while its money is on its way.

let t: TestApp;
let master: SeededMerchant;
before(async () => {
  t = await buildTestApp({}, { noWorkerProcesses: "the test decides a payout while its transfer is still sending, then runs the transfers task itself" });
  master = await seedMaster(t, FEES);
});
after(() => t.close());

const fundedPayout = (amount: number) => sandboxPayout(t, master.sandboxKey, amount);

const simulatorSends = async (transferId: string) => Number((await queryRows<{ n: string }>(t.database.db,
  sql`select count(*)::text as n from sandbox_processor_records where key = ${`payout:${transferId}`}`))[0]!.n);

test("sandbox: approval answers 202 pending + sending, a second approval sends nothing, rejection is refused; the worker then approves it with the simulator's endToEndId and payout.approved", async () => {
  const p = await fundedPayout(5000);
  const first = await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`);
  expectStatus(first, 202);
  assert.deepEqual([first.json().status, first.json().transfer, first.json().endToEndId], ["pending", { status: "sending" }, null], first.body);

  const again = await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`);
  expectStatus(again, 202);
  assert.deepEqual(again.json(), first.json(), "the same state, nothing sent again");
  const listed = await payoutForAdmin(t, p.id, p.smId);
  assert.equal(listed.transferId, p.id.replace("_", ""), "the transfer's id is derived from the payout");
  assert.equal(await simulatorSends(String(listed.transferId)), 1);
  const reject = await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/reject`, { reason: "too late" });
  expectStatus(reject, 409);
  assert.match(reject.json().message, /being sent/);
  const sending = await call(t, "GET", `/v1/admin/payout-requests?transferStatus=sending&merchantId=${p.smId}`, t.admin);
  assert.deepEqual(sending.json().data.map((d: { id: string }) => d.id), [p.id]);

  // The worker's task alone (no call from here) finishes the transfer.
  const worker = startWorker([t.services.connect.payouts.transfers.task(20)], pino({ level: "silent" }));
  try {
    const deadline = Date.now() + 15_000;
    let seen = await payoutForAdmin(t, p.id, p.smId);
    while (seen.status === "pending" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      seen = await payoutForAdmin(t, p.id, p.smId);
    }
    assert.equal(seen.status, "approved", JSON.stringify(seen));
    assert.deepEqual(seen.transfer, { status: "sent" });
    assert.match(String(seen.endToEndId), /^E99999999\d{12}[A-Za-z0-9]{11}$/);
  } finally {
    await worker.stop();
  }
  const own = await call(t, "GET", `/v1/payout-requests/${p.id}`, p.key);
  assert.deepEqual([own.json().status, own.json().transfer], ["approved", { status: "sent" }]);
  const events = await call(t, "GET", "/v1/events?limit=100", p.key);
  const approved = events.json().data.filter((e: { type: string; objectId: string }) => e.type === "payout.approved" && e.objectId === p.id);
  assert.equal(approved.length, 1, events.body);
  expectStatus(await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`), 409);
  assert.equal(await simulatorSends(String((await payoutForAdmin(t, p.id, p.smId)).transferId)), 1);
});

test("the manual flow is unchanged in the sandbox: an approval with an endToEndId is 200 approved at once, with no transfer through the simulator", async () => {
  const p = await fundedPayout(5000);
  const e2e = `E18236120${new Date().toISOString().replace(/\D/g, "").slice(0, 12)}manualsbx01`;
  const res = await admin(t, "POST", `/v1/admin/payout-requests/${p.id}/approve`, { endToEndId: e2e });
  expectStatus(res, 200);
  assert.deepEqual([res.json().status, res.json().endToEndId, res.json().transfer], ["approved", e2e, null]);
  assert.equal(await simulatorSends(p.id.replace("_", "")), 0);
});
