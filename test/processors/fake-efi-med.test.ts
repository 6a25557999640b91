import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ALL_SCOPES, startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { cobBody, efiClient, txid } from "./fake-efi-client.js";

// The Efí fake's MED infractions, its reads of a cob and its scopes, as Efí's sources describe
// them (docs/processors.md, "The Efí fake" and "Efí: MED"), over mutual TLS.

let f: FakeEfi;
let efi: ReturnType<typeof efiClient>;
before(async () => {
  f = await startFakeEfi({ webhookRetries: 0 });
  efi = efiClient(f);
});
after(async () => { await efi.close(); await f.close(); });

async function receivedPix(): Promise<string> {
  const id = txid();
  assert.equal((await efi.call("PUT", `/v2/cob/${id}`, cobBody(f))).status, 201);
  f.pay(id);
  return String(f.ctx.cobs.get(id)!.pix![0]!.endToEndId);
}

test("GET /v2/cob writes calendario.expiracao as a string; the create answers a number", async () => {
  const id = txid();
  assert.equal((await efi.call("PUT", `/v2/cob/${id}`, cobBody(f))).body.calendario.expiracao, 3600);
  assert.equal((await efi.call("GET", `/v2/cob/${id}`)).body.calendario.expiracao, "3600");
});

test("GET /v2/gn/infracoes needs inicio and fim, lists by creation time and pages", async () => {
  const e2eid = await receivedPix();
  const i = f.openInfraction(e2eid, { valor: "5.00" }) as { idInfracao: string };
  assert.equal((await efi.call("GET", "/v2/gn/infracoes")).status, 400);
  const now = Date.now();
  const window = (from: number, to: number, extra = "") => efi.call("GET", `/v2/gn/infracoes?inicio=${new Date(from).toISOString()}&fim=${new Date(to).toISOString()}${extra}`);
  const listed = await window(now - 60_000, now + 60_000);
  assert.equal(listed.status, 200);
  const mine = (listed.body.infracoes as { idInfracao: string; status: string; valor: string; endToEndId: string }[]).find((x) => x.idInfracao === i.idInfracao);
  assert.deepEqual([mine?.status, mine?.valor, mine?.endToEndId], ["ABERTA", "5.00", e2eid]);
  assert.equal((await window(now - 120_000, now - 60_000)).body.infracoes.length, 0);
  const paged = await window(now - 60_000, now + 60_000, "&paginacao.itensPorPagina=1&paginacao.paginaAtual=5");
  assert.equal(paged.body.infracoes.length, 0);
  assert.equal(paged.body.parametros.paginacao.itensPorPagina, 1);
});

test("the defence: analise and justificativa required, once, while ABERTA; ACEITA returns the money without natureza", async () => {
  const e2eid = await receivedPix();
  const i = f.openInfraction(e2eid) as { idInfracao: string };
  const defesa = (body: unknown) => efi.call("POST", `/v2/gn/infracoes/${i.idInfracao}/defesa`, body);
  assert.equal((await defesa({ analise: "talvez", justificativa: "x" })).status, 400);
  assert.equal((await defesa({ analise: "rejeitado", justificativa: " " })).status, 400);
  assert.equal((await defesa({ analise: "rejeitado", justificativa: "Entregue." })).status, 204);
  assert.equal(f.ctx.infracoes.get(i.idInfracao)!.status, "EM_DEFESA");
  assert.equal((await defesa({ analise: "rejeitado", justificativa: "De novo." })).status, 400);
  assert.equal((await efi.call("POST", "/v2/gn/infracoes/nope/defesa", { analise: "rejeitado", justificativa: "x" })).status, 404);
  assert.equal(typeof f.decideInfraction(i.idInfracao, "ACEITA"), "object");
  const pix = (await efi.call("GET", `/v2/pix/${e2eid}`)).body as { devolucoes: { status: string; natureza?: string }[] };
  assert.deepEqual(pix.devolucoes.map((d) => [d.status, d.natureza]), [["DEVOLVIDO", undefined]]);
  assert.equal(typeof f.decideInfraction(i.idInfracao, "REJEITADA"), "string", "decided once");
});

test("a registration whose scope the application lacks is 403 AcessoNegado; the others still work", async () => {
  f.setScopes(ALL_SCOPES.filter((s) => s !== "webhookrec.write"));
  const scoped = efiClient(f);
  try {
    const token = await scoped.login();
    assert.doesNotMatch(String(token.body.scope), /webhookrec\.write/);
    const rec = await scoped.call("PUT", "/v2/webhookrec", { webhookUrl: "http://127.0.0.1:9/x" }, { "x-skip-mtls-checking": "true" });
    assert.equal(rec.status, 403);
    assert.match(String(rec.body.type), /AcessoNegado$/);
    assert.equal((await scoped.call("GET", "/v2/webhookrec")).status, 404, "the read scope is still there: nothing registered");
  } finally {
    await scoped.close();
    f.setScopes(ALL_SCOPES);
  }
});
