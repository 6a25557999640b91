import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { submerchantBody } from "../connect/helpers.js";
import { signIn, type PanelClient } from "./panel-client.js";

// A malformed multipart body is the client's mistake: the KYC upload answers a 4xx in the error
// shape, never a 500, from the panel and from the API, whatever is broken (signed out, the panel
// sends it to sign-in without reading it, upload-session.test.ts):
// no boundary, another boundary than the body's, a body cut short, an empty body, a part whose
// header never ends (a huge one too), request headers over 16 KiB. Nothing is stored.

let t: TestApp;
let m: SeededMerchant;
let c: PanelClient;
let sm: string;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  c = await signIn(t, m.email, m.password);
  const created = await t.app.inject({ method: "POST", url: "/v1/submerchants", headers: { authorization: basic(m.sandboxKey) }, payload: submerchantBody() });
  expectStatus(created, 201);
  sm = created.json().id;
});
after(async () => t?.close());

const part = (headers: string, body: string) => `--b\r\n${headers}\r\n\r\n${body}\r\n`;
const pdfPart = part('Content-Disposition: form-data; name="cnpj_card"; filename="c.pdf"\r\nContent-Type: application/pdf', "%PDF-1.4 abc");
const MALFORMED: [string, string, string][] = [
  ["no boundary", "multipart/form-data", `${pdfPart}--b--\r\n`],
  ["an empty boundary", "multipart/form-data; boundary=", `${pdfPart}--b--\r\n`],
  ["another boundary than the body's", "multipart/form-data; boundary=zzz", `${pdfPart}--b--\r\n`],
  ["a body cut short inside a file", "multipart/form-data; boundary=b", pdfPart.slice(0, -6)],
  ["a part header that never ends", "multipart/form-data; boundary=b", '--b\r\nContent-Disposition: form-data; name="cnpj_card"; filename="c.pdf"'],
  ["a part header of 200 kB that never ends", "multipart/form-data; boundary=b", `--b\r\nContent-Disposition: form-data; name="cnpj_card"; filename="c.pdf"\r\nX-Pad: ${"a".repeat(200_000)}`],
  ["a part with no header", "multipart/form-data; boundary=b", "--b\r\nnonsense\r\n\r\n"],
  ["an empty body", "multipart/form-data; boundary=b", ""],
];

function assert4xx(res: { statusCode: number; body: string }, label: string): void {
  assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
}

for (const [name, type, payload] of MALFORMED) {
  test(`${name}: a 4xx from the panel and from the API; signed out, sign-in`, async () => {
    const browser = { "content-type": type, origin: "http://localhost:3000", "sec-fetch-site": "same-origin" };
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
    const panel = await t.app.inject({ method: "POST", url: `/panel/connect/${sm}/documents`, headers: { ...browser, cookie }, payload });
    assert4xx(panel, "panel");
    const signedOut = await t.app.inject({ method: "POST", url: `/panel/connect/${sm}/documents`, headers: browser, payload });
    assert.equal(signedOut.statusCode, 303, `signed out: ${signedOut.body.slice(0, 300)}`);
    const api = await t.app.inject({ method: "POST", url: `/v1/submerchants/${sm}/documents`, headers: { "content-type": type, authorization: basic(m.sandboxKey) }, payload });
    assert4xx(api, "api");
    assert.deepEqual(Object.keys(api.json()).sort(), ["code", "error", "message", "statusCode"]);
  });
}

test("request headers over 16 KiB: 431 in the error shape, from Node's parser, before any route", async () => {
  const address = await t.app.listen({ port: 0, host: "127.0.0.1" });
  const res = await fetch(`${address}/panel/connect/${sm}/documents`, {
    method: "POST", headers: { "content-type": "multipart/form-data; boundary=b", "x-pad": "a".repeat(20_000) }, body: `${pdfPart}--b--\r\n`,
  });
  assert.equal(res.status, 431);
  assert.equal((await res.json()).code, "headers_too_large");
});

test("nothing was stored", async () => {
  const docs = await t.app.inject({ method: "GET", url: `/v1/submerchants/${sm}/documents`, headers: { authorization: basic(m.sandboxKey) } });
  expectStatus(docs, 200);
  assert.equal(docs.json().documents.length, 0, docs.body);
});
