import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { cobvAmountDue, cobvDays, type CobV } from "../helpers/fake-efi-cobv.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { efiClient, txid } from "./fake-efi-client.js";

// The Efí fake's cobv (the Central Bank's Pix with a due date), over mutual TLS as the adapter
// uses it: created and revised under one txid, refused as the OpenAPI lists, and paid by the
// payer's bank with what the Central Bank's rules make due on the fake's clock's day.

let f: FakeEfi;
let efi: ReturnType<typeof efiClient>;
before(async () => {
  f = await startFakeEfi({ webhookRetries: 0 });
  efi = efiClient(f);
  await efi.login();
});
after(async () => { await efi.close(); await f.close(); });

const brToday = () => new Date(Date.now() - 3 * 3_600_000).toISOString().slice(0, 10);
const plus = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const body = (due: string, valor: Record<string, unknown> = { original: "100.00" }) => ({
  calendario: { dataDeVencimento: due, validadeAposVencimento: 10 }, devedor: { cpf: "52998224725", nome: "Maria Silva" }, valor, chave: f.pixKey,
});
const cobv = (due: string, valor: Record<string, unknown>, validade = 30): CobV => ({
  txid: "x".repeat(26), status: "ATIVA", revisao: 0, chave: "k", calendario: { criacao: "", dataDeVencimento: due, validadeAposVencimento: validade }, valor: { original: "100.00", ...valor },
});

test("PUT creates a cobv (201), a second PUT revises it while ATIVA (200, revisao 1), GET reads it, and bad input is CobVOperacaoInvalida naming the property", async () => {
  const id = txid();
  const due = plus(brToday(), 5);
  const created = await efi.call("PUT", `/v2/cobv/${id}`, body(due));
  assert.equal(created.status, 201, created.text);
  assert.equal(created.body.status, "ATIVA");
  assert.match(created.body.pixCopiaECola, /^000201/);
  const again = await efi.call("PUT", `/v2/cobv/${id}`, body(due));
  assert.deepEqual([again.status, again.body.revisao, f.cobvs.size], [200, 1, 1]);
  assert.equal((await efi.call("GET", `/v2/cobv/${id}`)).body.calendario.dataDeVencimento, due);
  assert.equal((await efi.call("GET", `/v2/cobv/${txid()}`)).status, 404);
  for (const [b, prop] of [
    [{ ...body(due), devedor: undefined }, "cobv.devedor"],
    [body(plus(brToday(), -1)), "cobv.calendario.dataDeVencimento"],
    [body(due, { original: "100.00", juros: { modalidade: 9, valorPerc: "1.00" } }), "cobv.valor.juros"],
    [body(due, { original: "100.00", desconto: { modalidade: 1, descontoDataFixa: [{ data: plus(due, 1), valorPerc: "5.00" }] } }), "cobv.valor.desconto"],
  ] as const) {
    const r = await efi.call("PUT", `/v2/cobv/${txid()}`, b);
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.violacoes[0].propriedade, prop);
  }
  // Removed, then paid no more and revised no more.
  assert.equal((await efi.call("PATCH", `/v2/cobv/${id}`, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" })).status, 200);
  assert.equal(typeof f.payCobv(id), "string");
  assert.equal((await efi.call("PUT", `/v2/cobv/${id}`, body(due))).status, 400);
});

test("the amount due follows the Central Bank: its componentesValor example, the discount until its date, the last day", () => {
  // BCB Pix.componentesValor: R$ 100,00, 2 days late, 3 % fine and 1 % a day: R$ 105,00. 2026-12-08 is a Tuesday.
  const late = cobvAmountDue(cobv("2026-12-08", { multa: { modalidade: 2, valorPerc: "3.00" }, juros: { modalidade: 2, valorPerc: "1.00" } }), "2026-12-10");
  assert.deepEqual(late, { total: 10500, parts: { original: 10000, multa: 300, juros: 200 } });
  // 1 % a month over 30-day months, 7 days late: 0.2333 -> 0.23.
  assert.equal(cobvAmountDue(cobv("2026-12-08", { juros: { modalidade: 3, valorPerc: "1.00" } }), "2026-12-15")!.total, 10023);
  const discount = cobv("2026-12-08", { desconto: { modalidade: 1, descontoDataFixa: [{ data: "2026-12-04", valorPerc: "10.00" }, { data: "2026-12-08", valorPerc: "5.00" }] } });
  assert.deepEqual([cobvAmountDue(discount, "2026-12-03")!.total, cobvAmountDue(discount, "2026-12-08")!.total, cobvAmountDue(discount, "2026-12-09")!.total], [9000, 9500, 10000]);
  // Example G: due on Saturday 2021-08-28, 5 days after: payable until Monday 2021-09-06; no fine on Monday 08-30.
  const g = cobv("2021-08-28", { multa: { modalidade: 2, valorPerc: "2.00" } }, 5);
  assert.deepEqual(cobvDays(g), { due: "2021-08-30", last: "2021-09-06" });
  assert.equal(cobvAmountDue(g, "2021-08-30")!.total, 10000);
  assert.equal(cobvAmountDue(g, "2021-08-31")!.total, 10200);
  assert.equal(cobvAmountDue(g, "2021-09-07"), undefined);
});

test("the payer's bank pays it on the fake's clock's day: the Pix with its componentesValor, received and notified", async () => {
  const id = txid();
  const due = plus(brToday(), 1);
  assert.equal((await efi.call("PUT", `/v2/cobv/${id}`, body(due, { original: "100.00", multa: { modalidade: 2, valorPerc: "2.00" } }))).status, 201);
  const paid = f.payCobv(id);
  assert.equal(typeof paid, "object", String(paid));
  const read = await efi.call("GET", `/v2/cobv/${id}`);
  assert.equal(read.body.status, "CONCLUIDA");
  const pix = read.body.pix[0];
  assert.deepEqual([pix.valor, pix.componentesValor], ["100.00", { original: { valor: "100.00" } }]);
  assert.equal((await efi.call("GET", `/v2/pix/${pix.endToEndId}`)).body.txid, id);
});

test("the split de pagamento links a cobv under /v2/gn/split/cobv/ (fixed parts equal to its value), reads it back with its config, unlinks it; paid, the repasse lands as configured", async () => {
  f.addSplitAccount("7700999", "11222333000181");
  const config = (repasse: string, mine: string) => ({
    lancamento: { imediato: true },
    split: { divisaoTarifa: "assumir_total", minhaParte: { tipo: "fixo", valor: mine }, repasses: [{ tipo: "fixo", valor: repasse, favorecido: { cnpj: "11222333000181", conta: "7700999" } }] },
  });
  const [ok, over, id] = [txid(), txid(), txid()];
  assert.equal((await efi.call("PUT", `/v2/gn/split/config/${ok}`, config("30.00", "70.00"))).status, 200);
  assert.equal((await efi.call("PUT", `/v2/gn/split/config/${over}`, config("30.00", "80.00"))).status, 200);
  assert.equal((await efi.call("PUT", `/v2/cobv/${id}`, body(plus(brToday(), 5)))).status, 201);
  assert.equal((await efi.call("PUT", `/v2/gn/split/cob/${id}/vinculo/${ok}`)).status, 404, "a cobv's txid is no cob's");
  assert.equal((await efi.call("PUT", `/v2/gn/split/cobv/${id}/vinculo/${over}`)).status, 400, "parts above the value");
  assert.equal((await efi.call("PUT", `/v2/gn/split/cobv/${id}/vinculo/${ok}`)).status, 204);
  assert.equal((await efi.call("PUT", `/v2/gn/split/cobv/${id}/vinculo/${over}`)).status, 400, "one configuration per cobv");
  const read = await efi.call("GET", `/v2/gn/split/cobv/${id}`);
  assert.deepEqual([read.status, read.body.txid, read.body.config], [200, id, { id: ok, status: "ATIVA" }]);
  assert.equal((await efi.call("DELETE", `/v2/gn/split/cobv/${id}/vinculo`)).status, 204);
  assert.equal((await efi.call("GET", `/v2/gn/split/cobv/${id}`)).body.config, undefined);
  assert.equal((await efi.call("PUT", `/v2/gn/split/cobv/${id}/vinculo/${ok}`)).status, 204);
  assert.equal(typeof f.payCobv(id), "object");
  assert.equal(f.splitBalance("7700999"), 3000);
});
