// A dispute's deadline and its evidence form (contract section 11): evidence is taken once,
// before evidenceDueBy, as PDF, PNG or JPEG judged by content within the limits; past the
// deadline an unanswered dispute is lost, by the sandbox test clock or by the worker's task,
// once whatever repeats.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { sql } from "drizzle-orm";
import { buildTestApp, basic, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { get, post } from "../helpers/charges.js";
import { assertLedgerInvariants, FILES } from "../connect/helpers.js";
import { getDispute, heldBy, openDispute, paidCard, sendEvidence } from "./helpers.js";

let t: TestApp;
let m: SeededMerchant;

before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
});
after(async () => { await t?.close(); });

const advance = (days: number) => post(t, m.sandboxKey, "/v1/sandbox/clock/advance", { days });
const text = (content: string) => ({ field: "text", content });
const file = (filename: string, content: Buffer) => ({ field: "files", filename, contentType: "application/pdf", content });
const deadlineTask = () => t.services.modules.disputes.tasks.find((x) => x.name === "disputes.deadline")!.run();

test("the test clock passing evidenceDueBy loses an unanswered dispute; one under review is not touched", async () => {
  const unanswered = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 30)).id);
  const answered = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 20)).id);
  expectStatus(await sendEvidence(t, m.sandboxKey, answered.id, [text("Signed delivery receipt attached."), file("r.pdf", FILES.pdf)]), 200);
  const heldBefore = await heldBy(t, m.sandboxKey);

  expectStatus(await advance(6), 200);
  assert.equal((await getDispute(t, m.sandboxKey, unanswered.id)).status, "needs_response");
  expectStatus(await advance(2), 200);
  const lost = await getDispute(t, m.sandboxKey, unanswered.id);
  assert.equal(lost.status, "lost");
  assert.ok(lost.closedAt);
  assert.equal((await get(t, m.sandboxKey, `/v1/charges/${unanswered.chargeId}`)).json().status, "charged_back");
  assert.equal((await getDispute(t, m.sandboxKey, answered.id)).status, "under_review");
  // Lost keeps what opening took: nothing more moves, however often the deadline is looked at.
  assert.equal(await heldBy(t, m.sandboxKey), heldBefore);
  expectStatus(await advance(1), 200);
  assert.equal(await deadlineTask(), 0);
  assert.equal(await heldBy(t, m.sandboxKey), heldBefore);
  await assertLedgerInvariants(t);

  // A dispute opened now is due 7 days after the clock's time, not real time's.
  const later = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 10)).id);
  const clock = (await get(t, m.sandboxKey, "/v1/sandbox/clock")).json() as { now: string };
  assert.equal(Date.parse(later.evidenceDueBy) - Date.parse(clock.now) <= 7 * 86_400_000, true);
  assert.ok(Date.parse(later.evidenceDueBy) - Date.now() > 14 * 86_400_000, `due on the clock: ${later.evidenceDueBy}`);
});

test("past its deadline a dispute takes no evidence, and the worker's task loses it once", async () => {
  const other = await seedMerchant(t);
  const d = await openDispute(t, other.sandboxKey, (await paidCard(t, other.sandboxKey, 25)).id);
  // Time passes for this dispute (no test clock: the worker judges by real time).
  await t.database.db.execute(sql`update disputes set evidence_due_by = now() - interval '1 minute' where id = ${d.id}`);
  const late = await sendEvidence(t, other.sandboxKey, d.id, [text("too late")]);
  expectStatus(late, 422);
  assert.match(late.json().message, /evidenceDueBy/);
  const held = await heldBy(t, other.sandboxKey);
  assert.ok((await deadlineTask()) >= 1);
  assert.equal((await getDispute(t, other.sandboxKey, d.id)).status, "lost");
  assert.equal(await deadlineTask(), 0);
  assert.equal(await heldBy(t, other.sandboxKey), held);
  await assertLedgerInvariants(t);
});

test("evidence is judged by content and kept within its limits; a refused form changes nothing", async () => {
  const d = await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 12)).id);
  const refused: [number, ReturnType<typeof text | typeof file>[]][] = [
    [422, [text("A text file named .pdf"), file("fake.pdf", FILES.text)]],
    [422, [file("r.pdf", FILES.pdf)]],
    [422, [text("   ")]],
    [422, [text("x".repeat(20_001))]],
    [422, [text("ok"), { field: "photo", filename: "p.png", contentType: "image/png", content: FILES.png }]],
    [413, [text("ok"), file("big.pdf", Buffer.concat([FILES.pdf, Buffer.alloc(5 * 1024 * 1024)]))]],
    [413, [text("ok"), ...Array.from({ length: 6 }, (_, i) => file(`r${i}.pdf`, FILES.pdf))]],
  ];
  for (const [status, parts] of refused) expectStatus(await sendEvidence(t, m.sandboxKey, d.id, parts), status);
  const json = await t.app.inject({ method: "POST", url: `/v1/disputes/${d.id}/evidence`, headers: { authorization: basic(m.sandboxKey) }, payload: { text: "hi" } });
  expectStatus(json, 415);
  assert.equal((await getDispute(t, m.sandboxKey, d.id)).status, "needs_response");

  const ok = await sendEvidence(t, m.sandboxKey, d.id, [
    text("Photos and the invoice."), file("invoice.pdf", FILES.pdf),
    { field: "files", filename: "box.png", contentType: "application/octet-stream", content: FILES.png },
    { field: "files", filename: "../../door.jpg", contentType: "image/jpeg", content: FILES.jpeg },
  ]);
  expectStatus(ok, 200);
  assert.deepEqual(ok.json().evidence.files.map((f: { name: string; contentType: string }) => [f.name, f.contentType]), [
    ["invoice.pdf", "application/pdf"], ["box.png", "image/png"], ["door.jpg", "image/jpeg"],
  ]);
  // Sealed: the stored content is not the file's bytes.
  const rows = await t.database.db.execute(sql`select content_sealed from dispute_files where dispute_id = ${d.id}`);
  const stored = (rows as unknown as { rows: { content_sealed: string }[] }).rows;
  assert.equal(stored.length, 3);
  for (const r of stored) assert.ok(!r.content_sealed.includes(FILES.pdf.toString("base64")));
});
