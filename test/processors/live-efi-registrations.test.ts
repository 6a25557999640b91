import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { expectStatus } from "../helpers/app.js";
import { post } from "../helpers/charges.js";
import { ALL_SCOPES } from "../helpers/fake-efi.js";
import { startEfiWorld, type EfiWorld } from "./live-efi-shared.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Issue 46 item 8. Registering feira's notices at Efí is three registrations (the Pix key's,
// recurrences', recurring charges'), each needing its own scope (the Central Bank's OpenAPI:
// webhook.write, webhookrec.write, webhookcobr.write; the fake answers 403 AcessoNegado without
// it). Each is reported on its own: an application without Pix Automático's scopes still has its
// Pix notices registered, and the answer names the missing scope, not the URL.

let w: EfiWorld;
before(async () => { w = await startEfiWorld({ register: false }); });
after(async () => { await w.close(); });

const without = (...scopes: string[]) => ALL_SCOPES.filter((s) => !scopes.includes(s));
type Registration = { name: string; outcome: string; message?: string };

test("without webhookrec.write the Pix notices are registered, and the recurrences' registration is reported refused naming the scope", async () => {
  w.efi.setScopes(without("webhookrec.write"));
  const res = await post(w.t, w.t.admin, "/v1/admin/processors/efi/webhook");
  expectStatus(res, 200);
  const body = res.json() as { webhookUrl: string; registrations: Registration[] };
  assert.match(body.webhookUrl, /hmac=\*\*\*/);
  assert.deepEqual(body.registrations.map((r) => [r.name, r.outcome]), [["pix", "registered"], ["rec", "refused"], ["cobr", "registered"]]);
  const rec = body.registrations[1]!;
  assert.match(rec.message!, /webhookrec\.write/);
  assert.match(rec.message!, /403, code AcessoNegado/);
  assert.doesNotMatch(rec.message!, /PUBLIC_BASE_URL|http/, "a missing scope is not a problem of the URL");
  assert.ok(w.efi.webhookTarget("pix"), "the Pix notices are registered at Efí");
  assert.ok(w.efi.webhookTarget("cobr"));
  assert.equal(w.efi.webhookTarget("rec"), undefined);
  assert.equal(w.efi.core.requests.filter((r) => r.route === "PUT /v2/webhookrec").length, 1, "asked once");
});

test("without webhook.write the answer is 422 naming that scope, and the other registrations are still made and reported", async () => {
  w.efi.setScopes(without("webhook.write"));
  const res = await post(w.t, w.t.admin, "/v1/admin/processors/efi/webhook");
  expectStatus(res, 422);
  const message = (res.json() as { message: string }).message;
  assert.match(message, /the Efí application lacks the scope webhook\.write/);
  assert.match(message, /rec: registered, cobr: registered/);
});

test("with every scope, each registration is reported registered", async () => {
  w.efi.setScopes(ALL_SCOPES);
  const res = await post(w.t, w.t.admin, "/v1/admin/processors/efi/webhook");
  expectStatus(res, 200);
  assert.deepEqual((res.json() as { registrations: Registration[] }).registrations, [
    { name: "pix", outcome: "registered" }, { name: "rec", outcome: "registered" }, { name: "cobr", outcome: "registered" },
  ]);
});
