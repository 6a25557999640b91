import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { ConfigError, loadConfig } from "../../src/config.js";
import { createEfiClient, efiIds, mapEfiError } from "../../src/processors/efi/client.js";
import { createEfiProcessor } from "../../src/processors/efi/efi.processor.js";
import { startFakeEfi, type FakeEfi } from "../helpers/fake-efi.js";
import { tempDir } from "../helpers/process.js";

// feira's Efí client against the Efí fake, over mutual TLS: the certificate as PEM or .p12 with
// the fake's CA trusted besides the public ones, one token for many calls, one refresh that
// concurrent calls share, a new token before the old one lapses and after Efí refuses one, the
// ids feira derives for Efí's objects, the start-up checks of the settings, and the adapter's
// read-back of a cob whose create timed out.

let f: FakeEfi;
before(async () => { f = await startFakeEfi({ tokenTtlSeconds: 3600 }); });
after(async () => { await f.close(); });

const tokenCalls = () => f.core.requests.filter((r) => r.route === "POST /oauth/token").length;
const connection = (how: "pem" | "p12" = "pem") => ({
  clientId: f.clientId, clientSecret: f.clientSecret, caFile: f.certs.caFile, baseUrl: f.url, timeoutMs: 5_000,
  ...(how === "pem" ? { certificate: f.certs.client.pemFile } : { certificate: f.certs.client.p12File, certificatePassword: f.certs.client.p12Password }),
});
const cobBody = (original = "10.00") => ({ calendario: { expiracao: 3600 }, valor: { original }, chave: f.pixKey });

test("mutual TLS with a PEM or a .p12: a cob is made and read back under feira's txid", async () => {
  for (const how of ["pem", "p12"] as const) {
    const c = createEfiClient(connection(how));
    const txid = efiIds.txid(`ch_01jd3k2m4nabcdefghjkmnp${how}`);
    const made = await c.createCob(txid, cobBody());
    assert.equal(made.ok, true, JSON.stringify(made));
    const read = await c.getCob(txid);
    assert.equal(read.ok && (read.body as { txid: string }).txid, txid);
    await c.close();
  }
});

test("one token serves every call until shortly before it expires; concurrent calls share one refresh", async () => {
  let clock = Date.now();
  const c = createEfiClient({ ...connection(), now: () => clock });
  const before = tokenCalls();
  const reads = await Promise.all(Array.from({ length: 8 }, (_, i) => c.getCob(efiIds.txid(`ch_concurrent_read_number_${i}_abcdef`))));
  assert.ok(reads.every((r) => !r.ok && r.failure.status === 400), "each reached the route (no such cob)");
  assert.equal(tokenCalls() - before, 1, "eight calls at once, one token");
  await c.getCob(efiIds.txid("ch_one_more_read_with_the_same_token"));
  assert.equal(tokenCalls() - before, 1);
  clock += 3600_000 - 30_000; // within the last minute of the token's life
  await c.getCob(efiIds.txid("ch_a_read_near_the_tokens_expiry_xx"));
  assert.equal(tokenCalls() - before, 2, "renewed before it expired");
  await c.close();
});

test("a token Efí no longer takes (401) is replaced and the call sent once more", async () => {
  const c = createEfiClient(connection());
  const txid = efiIds.txid("ch_01jd3k2m4nabcdefghjkmnprevoked");
  assert.equal((await c.createCob(txid, cobBody())).ok, true);
  const before = tokenCalls();
  f.expireTokens();
  const read = await c.getCob(txid);
  assert.equal(read.ok, true);
  assert.equal(tokenCalls() - before, 1);
  await c.close();
});

test("wrong credentials: the call is refused as a 4xx without being sent, and no secret is in the failure", async () => {
  const c = createEfiClient({ ...connection(), clientSecret: "wrong-secret" });
  const r = await c.createCob(efiIds.txid("ch_01jd3k2m4nabcdefghjkmnpwrong"), cobBody());
  assert.equal(r.ok, false);
  assert.equal(!r.ok && r.failure.kind, "http_4xx");
  assert.doesNotMatch(JSON.stringify(r), /wrong-secret|Client_Secret/);
  assert.equal(f.core.requests.filter((x) => x.route.startsWith("PUT /v2/cob/")).filter((x) => x.url.includes("wrong")).length, 0);
  await c.close();
});

test("ids: a charge's txid is its letters and digits (26 to 35), a refund's devolução id too; others a digest", () => {
  assert.equal(efiIds.txid("ch_01jd3k2m4nabcdefghjkmnpqrs"), "ch01jd3k2m4nabcdefghjkmnpqrs");
  assert.equal(efiIds.devolucao("late_ch_01jd3k2m4nabcdefghjkmnpqrs"), "latech01jd3k2m4nabcdefghjkmnpqrs");
  assert.match(efiIds.txid("short"), /^[0-9a-f]{32}$/);
  assert.equal(efiIds.txid("short"), efiIds.txid("short"));
  assert.deepEqual(mapEfiError(400, { type: "https://pix.bcb.gov.br/api/v2/error/PixDevolucaoInvalida", detail: "x" }).providerCode, "PixDevolucaoInvalida");
  assert.deepEqual(mapEfiError(409, { nome: "txid_duplicado", mensagem: "..." }).providerCode, "txid_duplicado");
});

test("PAYMENT_ROUTES naming efi without its settings, or with a certificate that does not load, stops the start naming them", () => {
  const problems = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig({ DATA_DIR: tempDir("feira-efi-config-"), ...env });
    } catch (err) {
      if (err instanceof ConfigError) return err.problems;
      throw err;
    }
    return [];
  };
  assert.deepEqual(problems({ PAYMENT_ROUTES: "pix=efi" }).sort(), ["EFI_CERTIFICATE", "EFI_CLIENT_ID", "EFI_CLIENT_SECRET", "EFI_PIX_KEY"].map((v) => `${v} is required by PAYMENT_ROUTES (efi)`));
  const settings = { EFI_CLIENT_ID: "id", EFI_CLIENT_SECRET: "secret", EFI_PIX_KEY: f.pixKey, EFI_API_URL: f.url, EFI_CA_FILE: f.certs.caFile };
  assert.deepEqual(problems({ PAYMENT_ROUTES: "pix=efi", ...settings, EFI_CERTIFICATE: f.certs.client.pemFile }), []);
  assert.deepEqual(problems({ PAYMENT_ROUTES: "pix=efi", ...settings, EFI_CERTIFICATE: f.certs.client.p12File, EFI_CERTIFICATE_PASSWORD: f.certs.client.p12Password }), []);
  for (const bad of [{ EFI_CERTIFICATE: "/nonexistent/efi.pem" }, { EFI_CERTIFICATE: f.certs.client.certFile }, { EFI_CERTIFICATE: f.certs.client.p12File, EFI_CERTIFICATE_PASSWORD: "wrong" }]) {
    const found = problems({ PAYMENT_ROUTES: "pix=efi", ...settings, ...bad });
    assert.equal(found.length, 1, JSON.stringify(found));
    assert.match(found[0]!, /^EFI_CERTIFICATE /);
    assert.doesNotMatch(found[0]!, /secret|wrong/);
  }
});

test("the adapter: a create that timed out (Efí answered late, after making the cob) reads the one cob back and adopts it", async () => {
  const adapter = createEfiProcessor({ ...connection(), timeoutMs: 2_000, pixKey: f.pixKey });
  const chargeId = "ch_01jd3k2m4nabcdefghjktimeout";
  const txid = efiIds.txid(chargeId);
  await f.setFault("late-answer", { times: 1, match: `PUT /v2/cob/${txid}`, forMs: 5_000 });
  const r = await adapter.authorize({
    chargeId, amountMinor: 1234, currency: "BRL", instrument: { kind: "pix", expiresIn: 600, options: {} },
    merchant: { id: "mer_x", name: "Loja", city: "SAO PAULO", pixKey: "" }, customer: null, now: new Date(), publicBaseUrl: "http://127.0.0.1",
  });
  assert.equal(r.outcome, "pending", JSON.stringify(r));
  assert.equal(r.outcome === "pending" && r.pspRefId, txid);
  assert.equal(r.outcome === "pending" && r.details.qrCode, f.ctx.cobs.get(txid)!.pixCopiaECola);
  assert.equal(f.core.requests.filter((x) => x.route === `PUT /v2/cob/${txid}`).length, 1, "never a second create");
  await adapter.close();
});
