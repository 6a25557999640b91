import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { Agent, request } from "undici";
import { parseBrCode } from "../../src/lib/pix.js";
import { X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { certSerial, makeEfiCertificates } from "../helpers/fake-efi-certs.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.js";
import { until } from "../helpers/wait.js";
import { cobBody, efiClient, txid } from "./fake-efi-client.js";

// The Efí fake, exercised over mutual TLS as feira's adapter will use it: the handshake, OAuth
// tokens, cob, webhooks with Efí's probe and suffix rule, and the fault modes.

let f: FakeEfi;
let hooks: Receiver;
let efi: ReturnType<typeof efiClient>;
before(async () => {
  hooks = await startReceiver();
  f = await startFakeEfi({ tokenTtlSeconds: 60, webhookRetryDelayMs: 20 });
  efi = efiClient(f);
  await efi.login();
});
after(async () => { await efi.close(); await f.close(); await hooks.close(); });

const register = (url: string, skip = true) => efi.call("PUT", `/v2/webhook/${f.pixKey}`, { webhookUrl: url }, skip ? { "x-skip-mtls-checking": "true" } : {});
const received = (path: string) => hooks.requests.filter((r) => r.path === path);

// CI failed a file now and then with every Efí call "connection_refused": one of the fake's
// certificates had a serial whose first byte was 0, which OpenSSL refuses as illegal padding.
test("the fake's certificates always parse: serials are minimal positive DER integers", () => {
  for (const first of [0x00, 0x80, 0xff, 0x01]) {
    const serial = certSerial(Buffer.from([first, 0x12, 0x34]));
    assert.ok(serial[0]! >= 1 && serial[0]! <= 0x7f, `first byte ${first} gave ${serial[0]}`);
  }
  const certs = makeEfiCertificates();
  try {
    for (const file of [certs.caFile, certs.client.pemFile]) assert.ok(new X509Certificate(readFileSync(file)).serialNumber);
  } finally {
    certs.remove();
  }
});

test("mutual TLS: a client without a certificate, or with one from another CA, is refused in the handshake; PEM and .p12 both work", async () => {
  for (const connect of [{ ca: f.certs.ca }, { ca: f.certs.ca, cert: f.certs.stranger.cert, key: f.certs.stranger.key }]) {
    const agent = new Agent({ connect });
    await assert.rejects(request(`${f.url}/oauth/token`, { method: "POST", dispatcher: agent, body: "{}" }));
    await agent.close();
  }
  assert.equal(f.core.requests.filter((r) => r.route === "POST /oauth/token").length, 1, "only the login of before() reached the API");
  const p12 = efiClient(f, "p12");
  assert.equal((await p12.login()).status, 200);
  await p12.close();
  for (const file of [f.certs.caFile, f.certs.client.pemFile, f.certs.client.p12File]) assert.ok(existsSync(file), file);
});

test("OAuth: Basic client_id:client_secret gives a Bearer token; wrong credentials 401; tokens expire on the fake's clock", async () => {
  const ok = await efi.raw("POST", "/oauth/token", { grant_type: "client_credentials" }, { authorization: efi.basic() });
  assert.equal(ok.status, 200);
  assert.deepEqual(Object.keys(ok.body).sort(), ["access_token", "expires_in", "scope", "token_type"]);
  assert.equal(ok.body.token_type, "Bearer");
  assert.equal(ok.body.expires_in, 60);
  assert.equal((await efi.raw("POST", "/oauth/token", { grant_type: "client_credentials" }, { authorization: efi.basic(f.clientId, "wrong") })).status, 401);
  assert.equal((await efi.raw("POST", "/oauth/token", { grant_type: "password" }, { authorization: efi.basic() })).status, 400);
  assert.equal((await efi.raw("GET", "/v2/cob/x", undefined, { authorization: "Bearer nope" })).status, 401);

  const short = await startFakeEfi({ tokenTtlSeconds: 30 });
  const c = efiClient(short);
  await c.login();
  assert.equal((await c.call("GET", `/v2/cob/${txid()}`)).status, 400, "a valid token reaches the route (the cob does not exist)");
  short.advanceClock(31_000);
  const expired = await c.call("GET", `/v2/cob/${txid()}`);
  assert.equal(expired.status, 401);
  assert.equal(expired.body.nome, "nao_autorizado");
  await c.login();
  assert.equal((await c.call("GET", `/v2/cob/${txid()}`)).status, 400, "a new token works again");
  await c.close();
  await short.close();
  assert.equal(existsSync(short.certs.dir), false, "close() removes the certificates");
});

test("cob: PUT creates it ATIVA with a BR Code; a second PUT under the txid is 409 txid_duplicado; GET reads it; PATCH removes it", async () => {
  const id = txid();
  const created = await efi.call("PUT", `/v2/cob/${id}`, cobBody(f));
  assert.equal(created.status, 201);
  assert.equal(created.body.status, "ATIVA");
  assert.equal(created.body.calendario.expiracao, 3600);
  assert.equal(created.body.valor.original, "10.50");
  const code = parseBrCode(created.body.pixCopiaECola);
  assert.ok(code.crcValid);
  assert.equal(code.merchantAccount.get("25"), created.body.location);
  assert.equal(code.additional.get("05"), "***");

  const again = await efi.call("PUT", `/v2/cob/${id}`, cobBody(f));
  assert.equal(again.status, 409);
  assert.deepEqual(again.body, { nome: "txid_duplicado", mensagem: "Campo txid informado já foi utilizado em outra cobrança" });
  assert.equal((await efi.call("GET", `/v2/cob/${id}`)).body.txid, id);
  assert.equal((await efi.call("GET", `/v2/cob/${txid()}`)).body.nome, "cobranca_nao_encontrada");

  assert.equal((await efi.call("PUT", "/v2/cob/short", cobBody(f))).body.type, "https://pix.bcb.gov.br/api/v2/error/CobOperacaoInvalida");
  assert.equal((await efi.call("PUT", `/v2/cob/${txid()}`, { ...cobBody(f), chave: "outra@chave.com" })).body.nome, "chave_invalida");
  assert.equal((await efi.call("PUT", `/v2/cob/${txid()}`, cobBody(f, "0.00"))).body.nome, "valor_invalido");

  const removed = await efi.call("PATCH", `/v2/cob/${id}`, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" });
  assert.equal(removed.status, 200);
  assert.equal(removed.body.status, "REMOVIDA_PELO_USUARIO_RECEBEDOR");
  assert.equal(removed.body.revisao, 1);
  assert.equal((await efi.call("PATCH", `/v2/cob/${id}`, { status: "REMOVIDA_PELO_USUARIO_RECEBEDOR" })).body.nome, "status_cobranca_invalido");
  assert.equal(f.removeCob(id), "cob is REMOVIDA_PELO_USUARIO_RECEBEDOR, not ATIVA");
});

test("webhooks: registration needs skip-mTLS and a probe that answers 2xx; notices append /pix, which ?ignorar= keeps out of the path", async () => {
  assert.equal((await register(`${hooks.url}/efi?hmac=s3cr3t&ignorar=`, false)).body.nome, "webhook_invalido");
  const broken = await startReceiver({ respond: () => ({ status: 503 }) });
  const refused = await register(`${broken.url}/efi`);
  assert.deepEqual(refused.body, { nome: "webhook_invalido", mensagem: "A URL informada respondeu com o código HTTP 503" });
  await broken.close();

  const ok = await register(`${hooks.url}/efi?hmac=s3cr3t&ignorar=`);
  assert.equal(ok.status, 201);
  assert.equal(received("/efi?hmac=s3cr3t&ignorar=").length, 1, "the probe goes to the URL as registered");
  assert.equal(JSON.parse(received("/efi?hmac=s3cr3t&ignorar=")[0]!.body).pix, undefined, "the probe carries no Pix");
  assert.equal((await efi.call("GET", `/v2/webhook/${f.pixKey}`)).body.webhookUrl, `${hooks.url}/efi?hmac=s3cr3t&ignorar=`);

  const id = txid();
  await efi.call("PUT", `/v2/cob/${id}`, cobBody(f));
  const paid = f.pay(id, { infoPagador: "pedido 1" });
  assert.notEqual(typeof paid, "string");
  await until("the pix notice", () => received("/efi?hmac=s3cr3t&ignorar=/pix").length === 1);
  const notice = JSON.parse(received("/efi?hmac=s3cr3t&ignorar=/pix")[0]!.body);
  assert.equal(notice.pix[0].txid, id);
  assert.equal(notice.pix[0].valor, "10.50");
  assert.equal(notice.pix[0].endToEndId.length, 32);
  const cob = (await efi.call("GET", `/v2/cob/${id}`)).body;
  assert.equal(cob.status, "CONCLUIDA");
  assert.equal((await efi.call("GET", `/v2/pix/${notice.pix[0].endToEndId}`)).body.txid, id);

  // Without ?ignorar=, the suffix lands in the path.
  await register(`${hooks.url}/plain`);
  const other = txid();
  await efi.call("PUT", `/v2/cob/${other}`, cobBody(f));
  f.pay(other);
  await until("the notice at /plain/pix", () => received("/plain/pix").length === 1);
  assert.equal((await efi.call("DELETE", `/v2/webhook/${f.pixKey}`)).status, 204);
  assert.equal((await efi.call("GET", `/v2/webhook/${f.pixKey}`)).status, 404);
});

test("faults: hang, 500 (no work), lost-answer (work done, answer dropped), and duplicated and out-of-order notices", async () => {
  await f.setFault("hang", { times: 1, match: "PUT /v2/cob/" });
  const hung = txid();
  await assert.rejects(efi.call("PUT", `/v2/cob/${hung}`, cobBody(f), {}, 300));
  assert.equal(f.ctx.cobs.has(hung), false);

  await f.setFault("500", { times: 1, match: "PUT /v2/cob/" });
  const failed = txid();
  const five = await efi.call("PUT", `/v2/cob/${failed}`, cobBody(f));
  assert.equal(five.status, 500);
  assert.equal(five.body.nome, "erro_aplicacao");
  assert.equal(f.ctx.cobs.has(failed), false);

  await f.setFault("lost-answer", { times: 1, match: "PUT /v2/cob/" });
  const lost = txid();
  await assert.rejects(efi.call("PUT", `/v2/cob/${lost}`, cobBody(f)));
  assert.equal(f.ctx.cobs.get(lost)?.status, "ATIVA", "the cob was made before the socket was cut");
  assert.equal((await efi.call("PUT", `/v2/cob/${lost}`, cobBody(f))).status, 409, "the retry finds it");

  await register(`${hooks.url}/faults?ignorar=`);
  const [a, b] = [txid(), txid()];
  for (const id of [a, b]) await efi.call("PUT", `/v2/cob/${id}`, cobBody(f));
  f.setWebhookFault("duplicate", 1);
  f.pay(a);
  await until("two copies", () => received("/faults?ignorar=/pix").length === 2);
  f.setWebhookFault("out-of-order", 1);
  const c = txid();
  await efi.call("PUT", `/v2/cob/${c}`, cobBody(f));
  f.pay(b);
  f.pay(c);
  await f.flushWebhooks();
  const order = received("/faults?ignorar=/pix").map((r) => JSON.parse(r.body).pix[0].txid);
  assert.deepEqual(order, [a, a, c, b]);
});
