import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { sql } from "drizzle-orm";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { efiIds } from "../../src/processors/efi/client.js";
import { expectStatus } from "../helpers/app.js";
import { createCharge, get, methodCharge, post } from "../helpers/charges.js";
import { calls, startEfiWorld, type EfiWorld } from "./live-efi-shared.js";
import { chargeRow, eventCount, ledgerOf, pixCustomer, runTask } from "./live-shared.js";
// topology: skip: every app stays in-process: Efí probes PUBLIC_BASE_URL at registration, and the test's own listening app is that URL

// A live Pix with a due date through Efí (issue 48 item 3): the Central Bank's cobv under the
// txid derived from the charge, its terms in the API Pix's modalidades, its payer named; paid
// late, the fine and the interest the payer's bank added are what the charge records; removed at
// Efí when it expires, refunded through its Pix; a create whose answer was lost is read back
// before anything is sent again, so there is one cobv. Over HTTP and mutual TLS with the Efí fake.

let w: EfiWorld;
before(async () => { w = await startEfiWorld(); });
after(async () => { await w.close(); });

const DAY_MS = 86_400_000;
const today = () => calendarDate(new Date(), "America/Sao_Paulo");
/** The first weekday from `from` on: the fake moves a due date on a weekend to the Monday after, as the Central Bank says. */
function weekday(from: string): string {
  let d = from;
  while ([0, 6].includes(new Date(`${d}T00:00:00Z`).getUTCDay())) d = addDays(d, 1);
  return d;
}
const terms = (due: string) => ({ type: "pix", dueDate: due, fine: { percent: 2 }, interest: { monthlyPercent: 1 }, discount: { amount: 5, until: due } });
async function cobvCharge(pm: Record<string, unknown>, amount = 200) {
  const c = await createCharge(w.t, w.key, methodCharge(pm, { amount, customer: pixCustomer }));
  return { ...c, txid: efiIds.txid(c.id) };
}

test("a Pix with a due date is a cobv under the charge's txid, with its terms in the Central Bank's modalidades and its payer", async () => {
  const due = weekday(addDays(today(), 2));
  const c = await cobvCharge(terms(due));
  assert.equal(c.status, "pending");
  const cobv = w.efi.cobvs.get(c.txid);
  assert.ok(cobv, "one cobv under the derived txid");
  assert.equal(w.efi.ctx.cobs.has(c.txid), false, "no cob");
  assert.deepEqual(cobv.calendario.dataDeVencimento, due);
  assert.equal(cobv.calendario.validadeAposVencimento, 30, "payableUntil's default: 30 days after the due date");
  assert.deepEqual(cobv.devedor, { cpf: "52998224725", nome: "Maria Silva" });
  assert.deepEqual(cobv.valor, {
    original: "200.00", multa: { modalidade: 2, valorPerc: "2.00" }, juros: { modalidade: 3, valorPerc: "1.00" },
    desconto: { modalidade: 1, descontoDataFixa: [{ data: due, valorPerc: "5.00" }] },
  });
  assert.equal(cobv.chave, w.efi.pixKey);
  assert.equal(c.paymentDetails!.qrCode, cobv.pixCopiaECola);
  assert.equal(c.paymentDetails!.expiresAt, new Date(Date.parse(`${addDays(due, 31)}T03:00:00Z`) - 1).toISOString(), "payable until the end of payableUntil, Brasília");
  assert.equal((await chargeRow(w, c.id)).pspRefId, c.txid);

  // A percent discount is modalidade 2, and payableUntil sets validadeAposVencimento.
  const p = await cobvCharge({ type: "pix", dueDate: due, discount: { percent: 1.5, until: due }, payableUntil: addDays(due, 3) });
  const other = w.efi.cobvs.get(p.txid)!;
  assert.deepEqual([other.valor.desconto, other.calendario.validadeAposVencimento], [{ modalidade: 2, descontoDataFixa: [{ data: due, valorPerc: "1.50" }] }, 3]);
});

test("a Pix with a due date without the payer's CPF or CNPJ: 422 naming the field, and nothing reaches Efí", async () => {
  const before = w.efi.core.requests.length;
  const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "pix", dueDate: addDays(today(), 2) }, { customer: { name: "Maria Silva", email: "maria@example.com" } }));
  assert.equal(res.statusCode, 422, res.body);
  assert.match(res.json().message, /^customer\.document: a Pix with a due date at processor efi needs the buyer's valid CPF or CNPJ and name/);
  assert.equal(w.efi.core.requests.length, before);
});

test("paid three days late: the payer's bank adds the fine and the interest, and the charge records what was paid, its parts and the ledger", async () => {
  const due = weekday(addDays(today(), 1));
  const c = await cobvCharge(terms(due));
  // The fake's clock three days after the due date (Brasília, calendar days).
  const ahead = Date.parse(`${due}T15:00:00Z`) + 3 * DAY_MS - Date.now();
  w.efi.advanceClock(ahead);
  try {
    const paid = w.efi.payCobv(c.txid);
    assert.equal(typeof paid, "object", String(paid));
  } finally {
    w.efi.advanceClock(-ahead);
  }
  await w.efi.flushWebhooks();
  const pix = w.efi.cobvs.get(c.txid)!.pix![0]!;
  // 200.00 + 2 % (4.00) + 1 % a month for 3 days (0.20).
  assert.equal(pix.valor, "204.20");
  const row = await chargeRow(w, c.id);
  assert.equal(row.status, "paid");
  assert.deepEqual(row.paidBreakdown, { principal: 20000, discount: 0, fine: 400, interest: 20 });
  const view = (await get(w.t, w.key, `/v1/charges/${c.id}`)).json() as { paidAmount: number; paidBreakdown: Record<string, number> };
  assert.equal(view.paidAmount, 204.2);
  assert.deepEqual(view.paidBreakdown, { principal: 200, discount: 0, fine: 4, interest: 0.2 });
  assert.equal(await eventCount(w, c.id, "charge.paid"), 1);
  assert.ok(calls(w, `GET /v2/cobv/${c.txid}`) >= 1, "read back, never taken from the notice");
  // The ledger: the processor owes what the payer paid.
  const ledger = await ledgerOf(w, c.id);
  assert.ok(Object.values(ledger).includes(20420), JSON.stringify(ledger));

  // Refunded through its Pix: a devolução on the Pix that paid the cobv, under the refund's id.
  const refund = await post(w.t, w.key, `/v1/charges/${c.id}/refund`, { amount: 50 });
  expectStatus(refund, 201);
  const d = w.efi.ctx.pix.get(pix.endToEndId)!.devolucoes ?? [];
  assert.deepEqual(d.map((x) => [x.id, x.valor]), [[efiIds.devolucao(refund.json().id), "50.00"]]);
});

test("paid on its discount's day: the payer pays less, and the difference is the discount", async () => {
  const c = await cobvCharge(terms(weekday(today())));
  assert.equal(typeof w.efi.payCobv(c.txid), "object");
  await w.efi.flushWebhooks();
  assert.deepEqual((await chargeRow(w, c.id)).paidBreakdown, { principal: 20000, discount: 500, fine: 0, interest: 0 });
});

test("past its last day it expires: removed at Efí (PATCH /v2/cobv), failed expired", async () => {
  const c = await cobvCharge(terms(weekday(addDays(today(), 2))));
  await w.t.database.db.execute(sql`update charges set expires_at = now() - interval '1 hour' where id = ${c.id}`);
  assert.equal(await runTask(w, "charges.expire-live"), 1);
  const row = await chargeRow(w, c.id);
  assert.deepEqual([row.status, row.reason, w.efi.cobvs.get(c.txid)!.status], ["failed", "expired", "REMOVIDA_PELO_USUARIO_RECEBEDOR"]);
  assert.equal(calls(w, `PATCH /v2/cobv/${c.txid}`), 1);
});

test("a create whose answer was lost is read back with GET /v2/cobv before anything is sent again: one cobv, its BR Code adopted", async () => {
  await w.efi.setFault("lost-answer", { times: 1, match: "PUT /v2/cobv/" });
  const c = await cobvCharge(terms(weekday(addDays(today(), 2))));
  assert.equal(c.status, "pending");
  assert.equal(c.paymentDetails!.qrCode, w.efi.cobvs.get(c.txid)!.pixCopiaECola);
  assert.deepEqual([calls(w, `PUT /v2/cobv/${c.txid}`), calls(w, `GET /v2/cobv/${c.txid}`)], [1, 1], "read back, not sent again");
  assert.equal(w.efi.cobvs.get(c.txid)!.revisao, 0);

  // A 500 before Efí made anything: read back (none), then sent once more under the same txid.
  await w.efi.setFault("500", { times: 1, match: "PUT /v2/cobv/" });
  const d = await cobvCharge(terms(weekday(addDays(today(), 2))));
  assert.equal(d.status, "pending");
  const order = w.efi.core.requests.filter((r) => r.route.endsWith(`/v2/cobv/${d.txid}`)).map((r) => r.route.split(" ")[0]);
  assert.deepEqual(order, ["PUT", "GET", "PUT"]);
  assert.equal(w.efi.cobvs.size, [...w.efi.cobvs.keys()].length);
});
