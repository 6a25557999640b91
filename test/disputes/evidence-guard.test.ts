import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { FILES, type Part } from "../connect/helpers.js";
import { signIn, type PanelClient } from "../panel/panel-client.js";
import { getDispute, openDispute, paidCard, sendEvidence } from "./helpers.js";

// Issue 46 item 14: a dispute's evidence is multipart, which the input guard of JSON bodies
// never saw (src/http/input-guard.ts runs before a multipart body is read). Its parts now meet
// the same checks as JSON (src/http/multipart.ts), from the API and from the panel: a card number
// in the text or a file's name is refused as in JSON (422 card_number_in_text, never stored nor
// echoed), and a NUL is a 422, not the 500 of PostgreSQL refusing it after the checks.

let t: TestApp;
let m: SeededMerchant;
let panel: PanelClient;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t);
  panel = await signIn(t, m.email, m.password);
});
after(async () => { await t?.close(); });

const CARD = "4111 1111 1111 1111";
const pdf = (filename = "receipt.pdf"): Part => ({ field: "files", filename, contentType: "application/pdf", content: FILES.pdf });

const REFUSED: [string, Part[], string, RegExp][] = [
  ["a card number in the text", [{ field: "text", content: `Paid with ${CARD}, delivered.` }, pdf()], "card_number_in_text", /^text holds a card number/],
  ["a card number in a file's name", [{ field: "text", content: "Delivered." }, pdf(`card-${CARD}.pdf`)], "card_number_in_text", /^files\.filename holds a card number/],
  ["a NUL in the text", [{ field: "text", content: "Deliv\u0000ered." }, pdf()], "validation_failed", /^text must not contain NUL characters/],
  ["a NUL in a file's name", [{ field: "text", content: "Delivered." }, pdf("rec\u0000eipt.pdf")], "validation_failed", /^files\.filename must not contain NUL characters/],
];

for (const [what, parts, code, message] of REFUSED) {
  test(`${what}: 422 as in a JSON body, from the API and the panel; nothing stored or echoed`, async () => {
    const c = await paidCard(t, m.sandboxKey, 30);
    const d = await openDispute(t, m.sandboxKey, c.id);
    const api = await sendEvidence(t, m.sandboxKey, d.id, parts);
    expectStatus(api, 422);
    assert.deepEqual([api.json().code, api.json().statusCode], [code, 422], api.body);
    assert.match(api.json().message, message);
    assert.ok(!api.body.includes(CARD) && !api.body.includes("4111111111111111"), api.body);

    await panel.get(`/panel/disputes/${d.id}`);
    const form = await panel.postMultipart(`/panel/disputes/${d.id}/evidence`, parts);
    assert.equal(form.statusCode, 422, form.body.slice(0, 300));
    assert.ok(!form.body.includes(CARD), form.body.slice(0, 300));

    const after = await getDispute(t, m.sandboxKey, d.id);
    assert.deepEqual([after.status, after.evidence, after.submittedAt], ["needs_response", null, null]);
  });
}

test("evidence without any of them is taken, by the API", async () => {
  const c = await paidCard(t, m.sandboxKey, 30);
  const d = await openDispute(t, m.sandboxKey, c.id);
  const sent = await sendEvidence(t, m.sandboxKey, d.id, [{ field: "text", content: "Delivered on 30/11/2026 10:00:00, order 4111-2222." }, pdf()]);
  expectStatus(sent, 200);
  assert.equal(sent.json().status, "under_review");
});
