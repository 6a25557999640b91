import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { addDays, calendarDate } from "../../src/lib/calendar.js";
import { methodCharge, post } from "../helpers/charges.js";
import { startLiveWorld, type LiveWorld } from "./live-shared.js";

// A live processor never drops a charge's collection terms silently (issue 48 item 3): a Pix with
// a due date, or a boleto's fine, interest or discount, routed to a processor that does not carry
// them is a 422 naming the field and the processor, and nothing reaches the provider.

let viaPagarme: LiveWorld;
let viaMercadoPago: LiveWorld;
before(async () => {
  viaPagarme = await startLiveWorld({ pix: ["pagarme"], boleto: ["pagarme"] });
  viaMercadoPago = await startLiveWorld({ pix: ["mercadopago"], boleto: ["mercadopago"] });
});
after(async () => {
  await Promise.all([viaPagarme.close(), viaMercadoPago.close()]);
});

const address = { country: "BR", postalCode: "01310-100", street: "Avenida Paulista", number: "1000", neighborhood: "Bela Vista", city: "São Paulo", state: "SP" };
const customer = { name: "Maria Silva", email: "maria@example.com", phone: "+55 11 91234-5678", document: { type: "cpf", id: "529.982.247-25" }, address };
const due = addDays(calendarDate(new Date(), "America/Sao_Paulo"), 5);

test("a Pix with a due date routed to Pagar.me or Mercado Pago: 422 naming paymentMethod.dueDate and the processor, nothing sent", async () => {
  for (const [w, name, fake] of [[viaPagarme, "pagarme", viaPagarme.pagarme], [viaMercadoPago, "mercadopago", viaMercadoPago.mercadopago]] as const) {
    const before = fake.requests.length;
    const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "pix", dueDate: due }, { customer }));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().message, `paymentMethod.dueDate: a Pix with a due date is not served by processor ${name}`);
    assert.equal(fake.requests.length, before, "nothing reached the provider");
  }
});

test("a boleto's term its processor does not carry (Pagar.me's discount, Mercado Pago's fine): 422 naming the field and the processor", async () => {
  for (const [w, name, term, field] of [[viaPagarme, "pagarme", { discount: { percent: 5, until: due } }, "discount"], [viaMercadoPago, "mercadopago", { fine: { percent: 2 } }, "fine"]] as const) {
    const res = await post(w.t, w.key, "/v1/charges", methodCharge({ type: "boleto", dueDate: due, ...term }, { customer }));
    assert.equal(res.statusCode, 422, res.body);
    assert.equal(res.json().message, `paymentMethod.${field}: a boleto's ${field} is not served by processor ${name}`);
  }
});
