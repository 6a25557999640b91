import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { count, eq } from "drizzle-orm";
import { subscriptions } from "../../src/db/schema.js";
import { expectStatus } from "../helpers/app.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { call, createPlan, customer } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Production Pix Automático needs the processor PAYMENT_ROUTES' pix_automatico= names (Efí's rec
// and cobr): with live Pix routed to Efí but no pix_automatico route, a pix_automatico sign-up must
// be refused before anything is written, not taken as a plain Pix whose later periods are never
// debited. (pix-automatico-efi.test.ts covers the routed case.)
let w: EfiWorld;
before(async () => { w = await startEfiWorld({ register: false }); });
after(async () => w.close());

test("a live pix_automatico sign-up is a 422 method_not_supported, and nothing is written", async () => {
  const plan = await createPlan(w.t, w.key);
  const res = await call(w.t, w.key, "POST", "/v1/subscriptions", { planId: plan.id, customer, paymentMethod: { type: "pix_automatico" } });
  expectStatus(res, 422);
  assert.equal(res.json().code, "method_not_supported");
  assert.match(res.json().message, /pix_automatico/);
  const rows = await w.t.database.db.select({ n: count() }).from(subscriptions).where(eq(subscriptions.merchantId, w.merchantId));
  assert.equal(rows[0]!.n, 0);
});
