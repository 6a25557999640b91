import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { queryRows, sql } from "../../src/db/client.js";
import { efiPix, startEfiWorld, type EfiWorld } from "./live-efi-shared.js";
import { chargeRow, runTask } from "./live-shared.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// Issue 46 item 2. Efí's GET /v2/cob/{txid} writes `calendario.expiracao` as a string ("3600":
// its documentation and its SDK's type), which the Efí fake now does; feira read such a cob as
// unreadable, so it never adopted it after a lost answer and never expired it. And the expiry
// janitor read the 50 oldest expired live charges every round: 50 it could not decide kept every
// other live charge, of any processor, from ever expiring.

let w: EfiWorld;
before(async () => { w = await startEfiWorld(); });
after(async () => { await w.close(); });

const expireNow = (ids: readonly string[]) =>
  w.t.database.db.execute(sql`update charges set expires_at = now() - interval '1 hour' where id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`);

const cobReads = () => w.efi.core.requests.filter((r) => r.route.startsWith("GET /v2/cob/")).length;

test("Efí's GET /v2/cob answers expiracao as a string, as its documentation shows", async () => {
  const c = await efiPix(w, { paymentMethod: { type: "pix", expiresIn: 1800 } });
  // Read the way feira reads it: through the adapter's lookup.
  const adapter = w.t.services.processors.adapter("production", "efi")!;
  const state = await adapter.lookup({ chargeId: c.id, pspRefId: c.txid });
  assert.equal(state.outcome, "pending", JSON.stringify(state));
  assert.equal(state.outcome === "pending" && state.expiresAt?.toISOString(), c.paymentDetails!.expiresAt);
});

test("a cob whose create answer was lost is read back with a string expiracao and adopted with its BR Code", async () => {
  await w.efi.setFault("lost-answer", { times: 1, match: "PUT /v2/cob/" });
  const c = await efiPix(w);
  assert.equal(c.status, "pending");
  assert.equal(c.paymentDetails!.qrCode, w.efi.ctx.cobs.get(c.txid)!.pixCopiaECola, "the payer has the one cob's BR Code");
  assert.equal((await chargeRow(w, c.id)).pspRefId, c.txid);
});

test("an expired cob read with a string expiracao is removed at Efí and the charge expires", async () => {
  const c = await efiPix(w);
  await expireNow([c.id]);
  assert.equal(await runTask(w, "charges.expire-live"), 1);
  assert.deepEqual([(await chargeRow(w, c.id)).status, w.efi.ctx.cobs.get(c.txid)!.status], ["failed", "REMOVIDA_PELO_USUARIO_RECEBEDOR"]);
});

test("more than a round's worth of expired charges the janitor cannot decide do not keep another live charge from expiring", async () => {
  // 60 expired live charges whose processor is no longer configured (taken out of PAYMENT_ROUTES
  // while they were pending): no read decides them. They expired before the one that can expire.
  const stuck: string[] = [];
  for (let i = 0; i < 60; i++) stuck.push((await efiPix(w)).id);
  await expireNow(stuck);
  await w.t.database.db.execute(sql`update charges set processor = 'retired', expires_at = expires_at - interval '1 day' where id in (${sql.join(stuck.map((id) => sql`${id}`), sql`, `)})`);
  const c = await efiPix(w);
  await expireNow([c.id]);

  // Each round reads 50: the first takes 50 of the stuck ones (and stamps them), the second the
  // rest and the charge that can expire. Before, every round read the same 50 stuck ones.
  for (let round = 0; round < 3 && (await chargeRow(w, c.id)).status === "pending"; round++) await runTask(w, "charges.expire-live");
  assert.deepEqual([(await chargeRow(w, c.id)).status, (await chargeRow(w, c.id)).reason], ["failed", "expired"]);
  assert.equal(w.efi.ctx.cobs.get(c.txid)!.status, "REMOVIDA_PELO_USUARIO_RECEBEDOR");

  // The stuck ones stay as they are, and a round right after reads none of them again (backed off).
  const reads = cobReads();
  assert.equal(await runTask(w, "charges.expire-live"), 0);
  assert.equal(cobReads(), reads);
  const [row] = await queryRows<{ n: number }>(w.t.database.db, sql`select count(*)::int as n from charges where id in (${sql.join(stuck.map((id) => sql`${id}`), sql`, `)}) and status = 'pending' and provider_checked_at is not null`);
  assert.equal(row?.n, 60);
});
