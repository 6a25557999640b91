import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parseBrCode } from "../../src/lib/pix.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { until } from "../helpers/wait.js";
import { cobBody, efiClient, txid } from "./fake-efi-client.js";

// The Efí fake's money flows: devoluções (refunds and MED returns), Pix send, and Pix
// Automático's recurrences and recurring charges, on a clock the test sets.

const START = Date.parse("2026-03-02T15:00:00Z"); // 12:00 in Brasília, 2 March 2026
let f: FakeEfi;
let hooks: Receiver;
let efi: ReturnType<typeof efiClient>;
before(async () => {
  hooks = await startReceiver();
  f = await startFakeEfi({ now: () => new Date(START), webhookRetryDelayMs: 20 });
  efi = efiClient(f);
  const skip = { "x-skip-mtls-checking": "true" };
  for (const [path, sub] of [[`/v2/webhook/${f.pixKey}`, "pix"], ["/v2/webhookrec", "rec"], ["/v2/webhookcobr", "cobr"]] as const) {
    assert.ok((await efi.call("PUT", path, { webhookUrl: `${hooks.url}/efi/${sub}?hmac=k&ignorar=` }, skip)).status < 300, path);
  }
});
after(async () => { await efi.close(); await f.close(); await hooks.close(); });

const notices = (kind: "pix" | "rec" | "cobr") => hooks.requests.filter((r) => r.path === `/efi/${kind}?hmac=k&ignorar=/${kind}`).map((r) => JSON.parse(r.body));
/** A control move's result, which must be the moved object and not a refusal. */
function moved(m: unknown): Record<string, any> {
  assert.notEqual(typeof m, "string", String(m));
  return m as Record<string, any>;
}
async function paidPix(original = "10.00"): Promise<{ txid: string; e2e: string }> {
  const id = txid();
  await efi.call("PUT", `/v2/cob/${id}`, cobBody(f, original));
  const cob = f.pay(id);
  assert.notEqual(typeof cob, "string");
  return { txid: id, e2e: f.ctx.cobs.get(id)!.pix![0]!.endToEndId };
}

test("devolução: 201 EM_PROCESSAMENTO, then DEVOLVIDO with a notice; a repeated id is the Central Bank's 400 PixDevolucaoInvalida (or Efí's 409)", async () => {
  const { e2e } = await paidPix();
  const made = await efi.call("PUT", `/v2/pix/${e2e}/devolucao/dev1`, { valor: "4.00" });
  assert.equal(made.status, 201);
  assert.equal(made.body.status, "EM_PROCESSAMENTO");
  assert.equal(made.body.rtrId.length, 32);
  await until("DEVOLVIDO", () => f.ctx.pix.get(e2e)!.devolucoes![0]!.status === "DEVOLVIDO");
  assert.equal((await efi.call("GET", `/v2/pix/${e2e}/devolucao/dev1`)).body.status, "DEVOLVIDO");
  await until("the devolução notice", () => notices("pix").some((n) => n.pix[0].devolucoes?.[0]?.id === "dev1"));

  const again = await efi.call("PUT", `/v2/pix/${e2e}/devolucao/dev1`, { valor: "4.00" });
  assert.equal(again.status, 400);
  assert.equal(again.body.type, "https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida");
  assert.equal(again.headers["content-type"], "application/problem+json");
  f.setModes({ duplicateDevolucao: "efi-409" });
  assert.deepEqual((await efi.call("PUT", `/v2/pix/${e2e}/devolucao/dev1`, { valor: "4.00" })).body, { nome: "devolucao_id_duplicado", mensagem: "O id informado já foi utilizado em outra devolução" });
  f.setModes({ duplicateDevolucao: "bcb-400" });

  assert.equal((await efi.call("PUT", `/v2/pix/${e2e}/devolucao/dev2`, { valor: "6.01" })).body.type, "https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida", "more than is left");
  f.setModes({ devolucao: "manual" });
  await efi.call("PUT", `/v2/pix/${e2e}/devolucao/dev3`, { valor: "6.00" });
  assert.equal(moved(f.finishDevolucao(e2e, "dev3", false, "Saldo insuficiente para realizar a devolução.")).status, "NAO_REALIZADO");
  assert.equal((await efi.call("GET", `/v2/pix/${e2e}/devolucao/dev3`)).body.motivo, "Saldo insuficiente para realizar a devolução.");
  f.setModes({ devolucao: "auto" });
  assert.equal((await efi.call("GET", `/v2/pix/${e2e}/devolucao/nope`)).body.nome, "devolucao_nao_encontrada");
});

test("MED: the payer's bank opens a MED_FRAUDE return on a paid Pix; it shows on the Pix and in a notice", async () => {
  const { e2e } = await paidPix("25.00");
  const med = f.med(e2e, { natureza: "MED_FRAUDE" });
  assert.notEqual(typeof med, "string");
  const pix = (await efi.call("GET", `/v2/pix/${e2e}`)).body;
  assert.deepEqual(pix.devolucoes.map((d: { natureza: string; status: string; valor: string }) => [d.natureza, d.status, d.valor]), [["MED_FRAUDE", "DEVOLVIDO", "25.00"]]);
  await until("the MED notice", () => notices("pix").some((n) => n.pix[0].endToEndId === e2e && n.pix[0].devolucoes?.[0]?.natureza === "MED_FRAUDE"));
  assert.equal(f.med(e2e), "nothing left to return on this pix");
});

test("send: 201 EM_PROCESSAMENTO, then REALIZADO or NAO_REALIZADO with a notice; a repeated idEnvio is 409; read by idEnvio and by e2eId", async () => {
  const body = { valor: "99.90", pagador: { chave: f.pixKey, infoPagador: "repasse" }, favorecido: { chave: "12345678000195" } };
  const sent = await efi.call("PUT", "/v3/gn/pix/payout1", body);
  assert.equal(sent.status, 201);
  assert.deepEqual(Object.keys(sent.body).sort(), ["e2eId", "horario", "idEnvio", "status", "valor"]);
  assert.equal(sent.body.status, "EM_PROCESSAMENTO");
  await until("REALIZADO", () => f.ctx.sends.get("payout1")!.status === "REALIZADO");
  assert.equal((await efi.call("GET", "/v2/gn/pix/enviados/id-envio/payout1")).body.endToEndId, sent.body.e2eId);
  assert.equal((await efi.call("GET", `/v2/gn/pix/enviados/${sent.body.e2eId}`)).body.idEnvio, "payout1");
  await until("the send notice", () => notices("pix").some((n) => n.pix[0].gnExtras?.idEnvio === "payout1" && n.pix[0].status === "REALIZADO"));

  const twice = await efi.call("PUT", "/v3/gn/pix/payout1", body);
  assert.equal(twice.status, 409);
  assert.equal(twice.body.nome, "id_envio_duplicado");
  assert.equal((await efi.call("PUT", "/v3/gn/pix/payout2", { ...body, pagador: { chave: "outra" } })).body.nome, "chave_invalida");

  f.setModes({ send: "manual" });
  await efi.call("PUT", "/v3/gn/pix/payout3", body);
  assert.equal(moved(f.finishSend("payout3", false)).status, "NAO_REALIZADO");
  await until("the refusal notice", () => notices("pix").some((n) => n.pix[0].gnExtras?.idEnvio === "payout3" && n.pix[0].gnExtras.erro?.codigo === "AC03"));
  f.setModes({ send: "auto" });
  assert.equal((await efi.call("GET", "/v2/gn/pix/enviados/id-envio/none")).status, 404);
});

const recBody = (extra: Record<string, unknown> = {}) => ({
  vinculo: { contrato: "sub_123", devedor: { cpf: "12345678909", nome: "Maria Silva" }, objeto: "Plano mensal" },
  calendario: { dataInicial: "2026-04-01", periodicidade: "MENSAL" }, valor: { valorRec: "49.90" }, politicaRetentativa: "PERMITE_3R_7D", ...extra,
});
const recebedor = () => ({ conta: f.ctx.account.conta, tipoConta: f.ctx.account.tipoConta, agencia: f.ctx.account.agencia });
const cobrBody = (idRec: string, due: string, extra: Record<string, unknown> = {}) => ({ idRec, calendario: { dataDeVencimento: due }, valor: { original: "49.90" }, ajusteDiaUtil: true, recebedor: recebedor(), ...extra });

test("Pix Automático: journey 3 (rec + first cob, approved by paying it); cobr only on an APROVADA rec, 2 to 10 days ahead; debits and retries", async () => {
  const first = txid();
  await efi.call("PUT", `/v2/cob/${first}`, cobBody(f, "49.90"));
  const loc = (await efi.call("POST", "/v2/locrec")).body;
  const rec = await efi.call("POST", "/v2/rec", recBody({ loc: loc.id, ativacao: { dadosJornada: { txid: first } } }));
  assert.equal(rec.status, 201);
  assert.equal(rec.body.status, "CRIADA");
  assert.match(rec.body.idRec, /^RR09089356\d{8}[A-Za-z0-9]{11}$/);
  const idRec = rec.body.idRec as string;
  const qr = (await efi.call("GET", `/v2/rec/${idRec}?txid=${first}`)).body.dadosQR;
  assert.equal(qr.jornada, "JORNADA_3");
  assert.ok(parseBrCode(qr.pixCopiaECola).crcValid);
  assert.equal((await efi.call("POST", "/v2/rec", recBody({ calendario: { dataInicial: "2026-03-01", periodicidade: "MENSAL" } }))).body.type, "https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida");

  const early = await efi.call("PUT", `/v2/cobr/${txid()}`, cobrBody(idRec, "2026-03-10"));
  assert.equal(early.status, 400, "a cobr on a CRIADA rec is refused");
  assert.equal(early.body.type, "https://pix.bcb.gov.br/api/v2/error/CobROperacaoInvalida");

  f.pay(first);
  assert.equal((await efi.call("GET", `/v2/rec/${idRec}`)).body.status, "APROVADA");
  assert.equal(f.ctx.recs.get(idRec)!.ativacao && (f.ctx.recs.get(idRec)!.ativacao as { tipoJornada: string }).tipoJornada, "JORNADA_3");
  await until("the rec notice", () => notices("rec").some((n) => n.recs[0].idRec === idRec && n.recs[0].status === "APROVADA"));

  for (const [due, why] of [["2026-03-03", "1 day ahead"], ["2026-03-13", "11 days ahead"]]) {
    const r = await efi.call("PUT", `/v2/cobr/${txid()}`, cobrBody(idRec, due!));
    assert.equal(r.status, 400, why);
    assert.equal(r.body.violacoes[0].propriedade, "cobr.calendario.dataDeVencimento");
  }
  // CobRSolicitada requires recebedor {conta, tipoConta, agencia?}, an account of this receiver.
  for (const [receiver, why] of [[undefined, "no recebedor"], [{ conta: f.ctx.account.conta }, "no tipoConta"], [{ ...recebedor(), tipoConta: "CORRENTE_X" }, "a tipoConta off the enum"], [{ ...recebedor(), conta: "999999" }, "another receiver's account"]] as const) {
    const r = await efi.call("PUT", `/v2/cobr/${txid()}`, cobrBody(idRec, "2026-03-04", { recebedor: receiver }));
    assert.equal(r.status, 400, why);
    assert.equal(r.body.violacoes[0].propriedade, "cobr.recebedor", why);
  }
  const cobrId = txid();
  const cobr = await efi.call("PUT", `/v2/cobr/${cobrId}`, cobrBody(idRec, "2026-03-04"));
  assert.equal(cobr.body.recebedor.conta, f.ctx.account.conta);
  assert.equal(cobr.status, 201);
  assert.equal(cobr.body.status, "CRIADA");
  assert.equal((await efi.call("PUT", `/v2/cobr/${cobrId}`, cobrBody(idRec, "2026-03-04"))).body.violacoes[0].propriedade, "cobr.txid", "a txid in use");
  assert.equal((await efi.call("PUT", `/v2/cobr/${txid()}`, cobrBody(idRec, "2026-03-05"))).status, 400, "one live cobr per cycle");
  await until("ATIVA", () => f.ctx.cobrs.get(cobrId)!.status === "ATIVA");

  assert.equal(moved(f.debit(cobrId, { ok: false })).status, "ATIVA", "a failed debit with retries allowed leaves it ATIVA");
  f.advanceClock(2 * 86_400_000);
  await efi.login(); // the token's hour passed with the clock
  const retried = await efi.call("POST", `/v2/cobr/${cobrId}/retentativa/2026-03-06`);
  assert.equal(retried.status, 201);
  assert.equal(retried.body.tentativas.length, 2);
  assert.equal(moved(f.debit(cobrId, { ok: true })).status, "CONCLUIDA");
  await until("the cobr notice", () => notices("cobr").some((n) => n.cobsr[0].txid === cobrId && n.cobsr[0].status === "CONCLUIDA"));

  assert.equal(moved(f.cancelRec(idRec)).status, "CANCELADA");
  assert.equal((await efi.call("PATCH", `/v2/rec/${idRec}`, { status: "CANCELADA" })).body.type, "https://pix.bcb.gov.br/api/v2/error/RecOperacaoInvalida");
  f.advanceClock(-2 * 86_400_000);
  await efi.login();
});

test("Pix Automático: journey 2 (rec only) is approved or rejected by the payer's bank; the merchant cancels with PATCH", async () => {
  const loc = (await efi.call("POST", "/v2/locrec")).body;
  const rec = (await efi.call("POST", "/v2/rec", recBody({ loc: loc.id, politicaRetentativa: "NAO_PERMITE" }))).body;
  assert.match(rec.idRec, /^RN/);
  assert.equal((await efi.call("GET", `/v2/rec/${rec.idRec}`)).body.dadosQR.jornada, "JORNADA_2");
  assert.equal(moved(f.approveRec(rec.idRec)).status, "APROVADA");
  const cancelled = await efi.call("PATCH", `/v2/rec/${rec.idRec}`, { status: "CANCELADA" });
  assert.equal(cancelled.body.encerramento.cancelamento.solicitante, "USUARIO_RECEBEDOR");
  const other = (await efi.call("POST", "/v2/rec", recBody())).body;
  assert.equal(moved(f.rejectRec(other.idRec)).status, "REJEITADA");
  assert.equal(f.approveRec(other.idRec), "rec is REJEITADA, not CRIADA");
});
