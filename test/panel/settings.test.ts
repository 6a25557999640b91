import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { signIn, type PanelClient } from "./panel-client.js";
import { activate } from "../connect/helpers.js";

// Settings: the profile form changes what GET /v1/merchant answers, refuses what PATCH
// /v1/merchant refuses with a message next to the field (in the page's language), escapes the
// merchant's text, and a cross-site post changes nothing.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  c = await signIn(t, m.email, m.password);
});
after(async () => t?.close());

const profile = async () => {
  const res = await t.app.inject({ url: "/v1/merchant", headers: { authorization: basic(m.productionKey) } });
  expectStatus(res, 200);
  return res.json() as { name: string; softDescriptor: string | null };
};

/** The error shown under a field of the profile form, or undefined. */
const errorOf = (html: string, name: string) => new RegExp(`id="profile-${name}-error">([^<]*)<`).exec(html)?.[1];

test("the profile form shows name and soft descriptor, and saving them is what the API then reads", async () => {
  const page = await c.get("/panel/settings");
  expectStatus(page, 200);
  assert.match(page.body, /<label for="profile-name">Name<\/label><input id="profile-name" name="name" type="text" value="Merchant \d+"/);
  assert.match(page.body, /<label for="profile-softDescriptor">Soft descriptor<\/label>/);
  assert.match(page.body, /up to 13 letters A to Z/);
  assert.match(page.body, /Card charges send it to Pagar.me and Mercado Pago/);
  assert.match(page.body, new RegExp(m.email.replace(/[.]/g, "\\.")));

  const saved = await c.post("/panel/settings/profile", { name: "  Padaria <b>Aurora</b> ", softDescriptor: "PADARIA AUROR" });
  assert.equal(saved.statusCode, 303, saved.body);
  assert.deepEqual(await profile(), { ...(await profile()), name: "Padaria <b>Aurora</b>", softDescriptor: "PADARIA AUROR" });
  const after = await c.get("/panel/settings");
  assert.match(after.body, /Profile saved\./);
  assert.match(after.body, /value="Padaria &lt;b&gt;Aurora&lt;\/b&gt;"/, "the merchant's text is escaped");
  assert.doesNotMatch(after.body, /<b>Aurora<\/b>/);
  assert.match(after.body, /value="PADARIA AUROR"/);

  // An empty soft descriptor removes it.
  expectStatus(await c.post("/panel/settings/profile", { name: "Padaria Aurora", softDescriptor: "" }), 303);
  assert.equal((await profile()).softDescriptor, null);
});

test("what the API refuses is shown next to the field, the typed values kept, and nothing is saved", async () => {
  expectStatus(await c.post("/panel/settings/profile", { name: "Padaria Aurora", softDescriptor: "AURORA" }), 303);
  const cases: [Record<string, string>, string, string][] = [
    [{ name: "Padaria Aurora", softDescriptor: "PÃO QUENTE" }, "softDescriptor", "Only letters A to Z without accents, digits and spaces."],
    [{ name: "Padaria Aurora", softDescriptor: "LOJA*SP" }, "softDescriptor", "Only letters A to Z without accents, digits and spaces."],
    [{ name: "Padaria Aurora", softDescriptor: "PADARIA AURORA" }, "softDescriptor", "At most 13 characters."],
    [{ name: "   ", softDescriptor: "AURORA" }, "name", "Required."],
    [{ name: "x".repeat(201), softDescriptor: "AURORA" }, "name", "At most 200 characters."],
  ];
  for (const [form, field, message] of cases) {
    const res = await c.post("/panel/settings/profile", form);
    assert.equal(res.statusCode, 422, `${JSON.stringify(form)}: ${res.body.slice(0, 500)}`);
    assert.equal(errorOf(res.body, field), message, JSON.stringify(form));
    assert.match(res.body, new RegExp(`id="profile-${field}" name="${field}" type="text" value="[^"]*"[^>]*aria-invalid="true"`));
    // The API refuses the same body, naming the same field.
    const api = await t.app.inject({ method: "PATCH", url: "/v1/merchant", headers: { authorization: basic(m.sandboxKey) }, payload: { name: form.name!.trim(), softDescriptor: form.softDescriptor } });
    assert.equal(api.statusCode, 422, api.body);
    assert.match(api.json().message, new RegExp(`^${field} `));
  }
  const refused = await c.post("/panel/settings/profile", { name: "Padaria Aurora", softDescriptor: "PÃO QUENTE" });
  assert.match(refused.body, /value="PÃO QUENTE"/, "the typed value stays in the field");
  assert.deepEqual(await profile(), { ...(await profile()), name: "Padaria Aurora", softDescriptor: "AURORA" });
});

test("in Portuguese, labels and messages are Portuguese", async () => {
  await c.post("/panel/language", { lang: "pt-BR", back: "/panel/settings" });
  const page = await c.get("/panel/settings");
  assert.match(page.body, /<label for="profile-softDescriptor">Nome na fatura<\/label>/);
  const res = await c.post("/panel/settings/profile", { name: "Padaria Aurora", softDescriptor: "PÃO" });
  assert.equal(errorOf(res.body, "softDescriptor"), "Apenas letras de A a Z sem acentos, dígitos e espaços.");
  await c.post("/panel/language", { lang: "en", back: "/panel" });
});

test("a cross-site or token-less post changes nothing; the split form's errors leave the profile as saved", async () => {
  const before = await profile();
  const crossSite = await c.post("/panel/settings/profile", { name: "Hijacked", softDescriptor: "EVIL" }, { "sec-fetch-site": "cross-site", origin: "https://evil.example" });
  assert.equal(crossSite.statusCode, 403);
  const noToken = await c.post("/panel/settings/profile", { name: "Hijacked", softDescriptor: "EVIL", _csrf: "" });
  assert.equal(noToken.statusCode, 403);
  assert.deepEqual(await profile(), before);

  await c.get("/panel/settings");
  const split = await c.post("/panel/settings/split", { "defaultSplit.0.merchantId": "sm_nobody", "defaultSplit.0.percentage": "10" });
  assert.equal(split.statusCode, 422);
  assert.match(split.body, new RegExp(`id="profile-name" name="name" type="text" value="${before.name}"`));
  assert.equal(errorOf(split.body, "name"), undefined);
});

test("the default split's recipient is picked by name among this environment's submerchants, and saved as its id", async () => {
  const register = async (key: string, tradeName: string, cnpj: string) => {
    const res = await t.app.inject({
      method: "POST", url: "/v1/submerchants", headers: { authorization: basic(key), "idempotency-key": `sm-${cnpj}` },
      payload: { tradeName, legalName: `${tradeName} LTDA`, companyTaxId: cnpj, contactEmail: "fin@example.com", website: "https://example.com", productType: "physical", productDescription: "Pães", averageMonthlyRevenue: 50000, averageOrderValue: 35.5 },
    });
    expectStatus(res, 201);
    return res.json().id as string;
  };
  const zeca = await register(m.sandboxKey, "Zeca <Doces>", "11.222.333/0001-81");
  const aurora = await register(m.sandboxKey, "Padaria Aurora", "45.723.174/0001-10");
  const live = await register(m.productionKey, "Loja de Produção", "06.990.590/0001-23");
  // A split goes only to an accredited submerchant: the one picked is made active.
  await activate(t, m.sandboxKey, aurora);

  const page = await c.get("/panel/settings");
  expectStatus(page, 200);
  const control = /<select id="split-defaultSplit-0-merchantId" name="defaultSplit\.0\.merchantId"[^>]*>(.*?)<\/select>/s.exec(page.body)?.[1];
  assert.ok(control, "the recipient is a select");
  const options = [...control.matchAll(/<option value="([^"]*)"[^>]*>([^<]*)<\/option>/g)].map((o) => [o[1], o[2]]);
  assert.deepEqual(options, [["", "None"], [aurora, "Padaria Aurora (45.723.174/0001-10)"], [zeca, "Zeca &lt;Doces&gt; (11.222.333/0001-81)"]]);
  assert.ok(!page.body.includes(live), "a production submerchant is not offered in the sandbox");
  // Connect's settlement, with a sentence for each.
  assert.match(page.body, /<h2 id="stl">Settlement<\/h2>[\s\S]*<strong>platform<\/strong>[\s\S]*<dt>provider<\/dt><dd>The processor pays each seller/);

  const saved = await c.post("/panel/settings/split", { "defaultSplit.0.merchantId": aurora, "defaultSplit.0.percentage": "12,5", "defaultSplit.1.merchantId": "", "defaultSplit.1.percentage": "" });
  assert.equal(saved.statusCode, 303, saved.body);
  const api = await t.app.inject({ url: "/v1/connect/settings", headers: { authorization: basic(m.sandboxKey) } });
  assert.deepEqual(api.json().defaultSplit, [{ merchantId: aurora, percentage: 12.5 }]);
  assert.match((await c.get("/panel/settings")).body, new RegExp(`<option value="${aurora}" selected>Padaria Aurora`));
  expectStatus(await c.post("/panel/settings/split", {}), 303);
});
