import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import { until } from "../helpers/wait.js";
import { startEfiWorld, type EfiWorld } from "../processors/live-efi-shared.js";
import { chargeRow } from "../processors/live-shared.js";
import { recOf, sub } from "./efi-periods.js";
import { call, createPlan, customer } from "./helpers.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Journey 3 (qr_with_payment) of a pix_automatico=efi subscription while Pix is routed to another
// processor: the first period's Pix is a cob at Efí, which the recurrence names
// (ativacao.dadosJornada.txid) and whose payment approves it. Made by the Pix route instead, it
// was another processor's payment that no Efí recurrence can name (or, with a failover, anyone's).
// Mercado Pago here is unreachable: a charge sent there is never made.
let w: EfiWorld;
before(async () => {
  w = await startEfiWorld({
    mandates: true, routes: { pix: ["mercadopago"] },
    processors: { mercadopago: { accessToken: "APP_USR-unreachable", webhookSecret: "unreachable", apiUrl: "http://127.0.0.1:9" } },
  });
});
after(async () => w.close());

test("journey 3's first Pix is a cob at Efí when Pix is routed to another processor", async () => {
  const res = await call(w.t, w.key, "POST", "/v1/subscriptions", { planId: (await createPlan(w.t, w.key)).id, customer, paymentMethod: { type: "pix_automatico" } });
  expectStatus(res, 201);
  const s = res.json() as { id: string; mandate: { id: string }; charges: { chargeId: string }[] };
  const chargeId = s.charges[0]!.chargeId;
  assert.equal((await chargeRow(w, chargeId)).processor, "efi");
  const txid = efiIds.txid(chargeId);
  assert.ok(w.efi.ctx.cobs.has(txid), "the first period's cob is at Efí");
  assert.equal((recOf(w, s.mandate.id)!.ativacao as { dadosJornada: { txid: string } }).dadosJornada.txid, txid);
  w.efi.pay(txid);
  await until("active", async () => (await sub(w, s.id)).status === "active");
  assert.equal((await sub(w, s.id)).mandate.status, "active");
});
