import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import type { RouteTable } from "../../src/processors/routing.js";
import { buildTestApp, seedMerchant, type TestApp } from "../helpers/app.js";
import { methodCharge, post } from "../helpers/charges.js";
import { startFakeMercadoPago, type FakeMercadoPago } from "../helpers/fake-mercadopago.js";
import { startFakePagarme, type FakePagarme } from "../helpers/fake-pagarme.js";
import { fakeAccounts } from "./live-shared.js";

// A live processor never drops a charge's collection terms silently (issue 48 item 3): a Pix with
// a due date, or a boleto's fine, interest or discount, routed to a processor that does not carry
// them is a 422 naming the field and the processor, and nothing reaches the provider.

interface World { t: TestApp; key: string }
let pagarme: FakePagarme;
let mercadopago: FakeMercadoPago;
let viaPagarme: World;
let viaMercadoPago: World;

async function world(routes: RouteTable): Promise<World> {
  const t = await buildTestApp({ live: { ...NO_LIVE_PROCESSORS, routes, timeoutMs: 5_000, processors: fakeAccounts(pagarme, mercadopago) } });
  return { t, key: (await seedMerchant(t)).productionKey };
}

before(async () => {
  [pagarme, mercadopago] = await Promise.all([startFakePagarme(), startFakeMercadoPago()]);
  viaPagarme = await world({ pix: ["pagarme"], boleto: ["pagarme"] });
  viaMercadoPago = await world({ pix: ["mercadopago"], boleto: ["mercadopago"] });
});
after(async () => {
  await Promise.all([viaPagarme.t.close(), viaMercadoPago.t.close()]);
  await Promise.all([pagarme.close(), mercadopago.close()]);
});

const address = { country: "BR", postalCode: "01310-100", street: "Avenida Paulista", number: "1000", neighborhood: "Bela Vista", city: "São Paulo", state: "SP" };
const customer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" }, address };
const due = addDays(calendarDate(new Date(), "America/Sao_Paulo"), 5);

test("a Pix with a due date routed to Pagar.me or Mercado Pago: 422 naming paymentMethod.dueDate and the processor, nothing sent", async () => {
  for (const [w, name, fake] of [[viaPagarme, "pagarme", pagarme], [viaMercadoPago, "mercadopago", mercadopago]] as const) {
    const before = fake.requests.length;
    const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "pix", dueDate: due }, { customer }));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().message, `paymentMethod.dueDate: a Pix with a due date is not served by processor ${name}`);
    assert.equal(fake.requests.length, before, "nothing reached the provider");
  }
});

test("a boleto's fine routed to a processor that does not send it yet: 422 naming the field and the processor", async () => {
  for (const [w, name] of [[viaPagarme, "pagarme"], [viaMercadoPago, "mercadopago"]] as const) {
    const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "boleto", dueDate: due, fine: { percent: 2 } }, { customer }));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().message, `paymentMethod.fine: a boleto's fine is not served by processor ${name}`);
  }
});
