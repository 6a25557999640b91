import assert from "node:assert/strict";
import { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { basic, buildTestApp, expectStatus, seedMerchant, type SeededMerchant, type TestApp } from "../helpers/app.js";
import { submerchantBody } from "../connect/helpers.js";
import { openDispute, paidCard } from "../disputes/helpers.js";
import { signIn } from "./panel-client.js";

// Issue 46 item 15: the panel read a whole multipart upload (10 MB a file) before it checked the
// session, so anyone could make it buffer uploads without signing in (12 uploads of 50 MB took an
// API process from 361 to 705 MB). As the API refuses a request without credentials before its
// body is read, the panel now checks the session from the headers first: a signed-out upload is
// sent to sign-in, and a cross-site one refused, with almost none of its body read.

let t: TestApp;
let m: SeededMerchant;
let sm: string;
let dispute: string;
before(async () => {
  t = await buildTestApp();
  m = await seedMerchant(t, { connectEnabled: true });
  const created = await t.app.inject({ method: "POST", url: "/v1/submerchants", headers: { authorization: basic(m.sandboxKey) }, payload: submerchantBody() });
  expectStatus(created, 201);
  sm = created.json().id;
  dispute = (await openDispute(t, m.sandboxKey, (await paidCard(t, m.sandboxKey, 20)).id)).id;
});
after(async () => t?.close());

const TOTAL = 40 * 1024 * 1024;
const CHUNK = 64 * 1024;

/** A multipart body of TOTAL bytes, made as it is read, counting what the server pulled. */
function upload(field: string) {
  const head = Buffer.from(`--b\r\nContent-Disposition: form-data; name="${field}"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4\n`);
  const tail = Buffer.from("\r\n--b--\r\n");
  const filler = Buffer.alloc(CHUNK, 0x20);
  let sent = 0;
  const body = new Readable({
    read() {
      if (sent === 0) { sent += head.length; this.push(head); return; }
      if (sent >= TOTAL) { this.push(tail); this.push(null); return; }
      sent += filler.length;
      this.push(filler);
    },
  });
  return { body, pulled: () => sent };
}

const targets = () => [`/panel/connect/${sm}/documents`, `/panel/disputes/${dispute}/evidence`];

test("a signed-out upload is sent to sign-in before its body is read", async () => {
  for (const url of targets()) {
    const { body, pulled } = upload(url.endsWith("evidence") ? "files" : "cnpj_card");
    const res = await t.app.inject({
      method: "POST", url, payload: body,
      headers: { "content-type": "multipart/form-data; boundary=b", origin: "http://localhost:3000", "sec-fetch-site": "same-origin" },
    });
    assert.equal(res.statusCode, 303, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    assert.match(String(res.headers.location), /^\/panel\/login/);
    assert.ok(pulled() < 1024 * 1024, `${url}: ${pulled()} bytes of ${TOTAL} were read before the answer`);
    body.destroy();
  }
});

test("a cross-site upload with the merchant's cookie is refused before its body is read", async () => {
  const c = await signIn(t, m.email, m.password);
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  for (const url of targets()) {
    const { body, pulled } = upload("files");
    const res = await t.app.inject({
      method: "POST", url, payload: body,
      headers: { "content-type": "multipart/form-data; boundary=b", origin: "https://evil.example", "sec-fetch-site": "cross-site", cookie },
    });
    assert.equal(res.statusCode, 403, `${url}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    assert.ok(pulled() < 1024 * 1024, `${url}: ${pulled()} bytes of ${TOTAL} were read before the answer`);
    body.destroy();
  }
});
