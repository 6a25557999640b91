import { test } from "node:test";
import assert from "node:assert/strict";
import { isValidBoleto } from "@brazilian-utils/brazilian-utils/is-valid-boleto";
import { getBoletoInfo } from "@brazilian-utils/brazilian-utils/get-boleto-info";
import { isValidPixPayload } from "@brazilian-utils/brazilian-utils/is-valid-pix-payload";
import { barcodeToDigitableLine } from "../../src/lib/boleto.js";
import { luhnValid } from "../../src/lib/cards.js";
import { newId } from "../../src/lib/ids.js";
import { parseBrCode } from "../../src/lib/pix.js";
import { DEFAULT_EXPIRES_IN, METHOD_CURRENCIES, methodAcceptsCurrency, type AsyncMethodType } from "../../src/processors/methods.js";
import type { AsyncInstrument, AuthorizeInput, AuthorizeResult, CardInstrument, PaymentProcessor } from "../../src/processors/processor.js";
import { NO_LIVE_PROCESSORS } from "../../src/config.js";
import { defineProcessor } from "../../src/processors/definition.js";
import { createProcessorRegistry, PROCESSORS } from "../../src/processors/registry.js";
import { parseProcessorRouting } from "../../src/processors/routing.js";
import {
  buildInstructions, checkBoletoDueDate, clabeControlDigit, isValidClabe, luhnCheckDigit, oxxoReference, pixTxid,
} from "../../src/processors/sandbox/instruments.js";
import { createSandboxProcessor, SANDBOX_CARDS } from "../../src/processors/sandbox/sandbox.processor.js";
import { decodeSandboxWalletToken } from "../../src/processors/sandbox/wallet.js";

// 12:00 in São Paulo (UTC-3).
const NOW = new Date("2026-03-10T15:00:00Z");
const BASE_URL = "https://api.feira.test";
const sandbox = createSandboxProcessor();

function input(instrument: AuthorizeInput["instrument"], over: Partial<AuthorizeInput> = {}): AuthorizeInput {
  return {
    chargeId: newId("ch", NOW.getTime()),
    amountMinor: 1050,
    currency: "BRL",
    instrument,
    merchant: { id: "mer_test", name: "Loja Exemplo Ltda", city: "São Paulo", pixKey: "pix@example.com" },
    customer: null,
    now: NOW,
    publicBaseUrl: BASE_URL,
    ...over,
  };
}

const card = (number: string, over: Partial<CardInstrument> = {}): CardInstrument => ({
  kind: "card", number, brand: "visa", holderName: "MARIA SILVA", expirationMonth: "12", expirationYear: "2030",
  cvv: "123", installments: 1, threeDSMode: "none", ...over,
});

const asyncOf = (kind: AsyncMethodType, options: Record<string, unknown> = {}): AsyncInstrument => ({
  kind, expiresIn: DEFAULT_EXPIRES_IN[kind], options,
});

const CURRENCY: Record<AsyncMethodType, string> = {
  pix: "BRL", open_finance: "BRL", qr_code: "BRL", boleto: "BRL", bank_transfer: "BRL", oxxo: "MXN", spei: "MXN", pse: "COP", pix_automatico: "BRL",
};
const OPTIONS: Partial<Record<AsyncMethodType, Record<string, unknown>>> = {
  pse: { bankCode: "1007", personType: "natural", documentType: "CC", documentNumber: "1020304050" },
  pix_automatico: { dueDate: "2030-01-15", mandateId: "mdt_test" },
};

async function pending(kind: AsyncMethodType, over: Partial<AuthorizeInput> = {}, options = OPTIONS[kind] ?? {}) {
  const result = await sandbox.authorize(input(asyncOf(kind, options), { currency: CURRENCY[kind], ...over }));
  assert.equal(result.outcome, "pending", JSON.stringify(result));
  if (result.outcome !== "pending") throw new Error("unreachable");
  assert.match(result.pspRefId, /^sbx_[A-Za-z0-9]{24}$/);
  return result;
}

// --- cards -----------------------------------------------------------------------------

const EXPECTED: Array<[string, Partial<AuthorizeResult>]> = [
  ["4111111111111111", { outcome: "paid" }],
  ["5555555555554444", { outcome: "paid" }],
  ["4000000000000002", { outcome: "refused", reason: "card_declined" }],
  ["4000000000009995", { outcome: "refused", reason: "insufficient_funds" }],
  ["4000000000000119", { outcome: "failed", reason: "processing_error" }],
  ["4000000000000259", { outcome: "in_analysis" }],
  ["4000000000003220", { outcome: "paid" }], // threeDSMode "none"
  ["4000000000000101", { outcome: "refused", reason: "blocked_by_risk_rules", blocked: true }],
  ["4242424242424242", { outcome: "paid" }], // any other number
  ["6362970000457013", { outcome: "paid" }],
];

test("every sandbox test card gives its outcome", async () => {
  assert.equal(Object.keys(SANDBOX_CARDS).length, 8);
  for (const [number, expected] of EXPECTED) {
    const result = await sandbox.authorize(input(card(number)));
    for (const [key, value] of Object.entries(expected)) {
      assert.deepEqual((result as Record<string, unknown>)[key], value, `${number}: ${JSON.stringify(result)}`);
    }
    assert.match(result.pspRefId ?? "", /^sbx_[A-Za-z0-9]{24}$/, number);
    // Only the block flow sets `blocked`.
    assert.equal("blocked" in result, number === "4000000000000101", number);
  }
});

test("4000000000003220 asks for 3DS only when threeDSMode is managed", async () => {
  const charge = input(card("4000000000003220", { threeDSMode: "managed" }));
  const result = await sandbox.authorize(charge);
  assert.equal(result.outcome, "authentication_required");
  if (result.outcome !== "authentication_required") return;
  assert.deepEqual(result.details, {
    authenticationUrl: `${BASE_URL}/v1/sandbox/charges/${charge.chargeId}/authenticate`,
    threeDSVersion: "2.2.0",
  });
  // Other cards ignore the mode.
  assert.equal((await sandbox.authorize(input(card("4111111111111111", { threeDSMode: "managed" })))).outcome, "paid");
  assert.equal((await sandbox.authorize(input(card("4000000000000002", { threeDSMode: "managed" })))).outcome, "refused");
});

test("the outcome does not depend on spaces in the number, and reference ids differ", async () => {
  const result = await sandbox.authorize(input(card("4000 0000 0000 0002")));
  assert.equal(result.outcome, "refused");
  const a = await sandbox.authorize(input(card("4111111111111111")));
  const b = await sandbox.authorize(input(card("4111111111111111")));
  assert.notEqual(a.pspRefId, b.pspRefId);
});

test("capture pays; refund succeeds with a sbx_re_ reference", async () => {
  assert.deepEqual(await sandbox.capture({ chargeId: "ch_1", pspRefId: "sbx_1", amountMinor: 100 }), { outcome: "paid" });
  const refund = await sandbox.refund({ chargeId: "ch_1", pspRefId: "sbx_1", amountMinor: 100, refundId: "re_1" });
  assert.equal(refund.outcome, "succeeded");
  assert.match(refund.outcome === "succeeded" ? refund.refundRef : "", /^sbx_re_[A-Za-z0-9]{24}$/);
  assert.equal(sandbox.name, "sandbox");
});

// --- wallet tokens ---------------------------------------------------------------------

test("sandbox wallet tokens decode to their test card, expiring 12/(year + 3)", async () => {
  assert.deepEqual(decodeSandboxWalletToken("tok_sandbox_4111111111111111", NOW), {
    number: "4111111111111111", expirationMonth: "12", expirationYear: "2029",
  });
  const thisYear = new Date().getUTCFullYear();
  assert.equal(decodeSandboxWalletToken("tok_sandbox_5555555555554444")?.expirationYear, String(thisYear + 3));
  for (const bad of [
    "", "tok_visa", "tok_sandbox_", "tok_sandbox_411111111111111", "tok_sandbox_41111111111111111",
    "tok_sandbox_4111111111111112", " tok_sandbox_4111111111111111", "tok_sandbox_4111111111111111\n",
    "TOK_SANDBOX_4111111111111111", "tok_sandbox_4111-1111-1111-1111",
  ]) {
    assert.equal(decodeSandboxWalletToken(bad, NOW), null, JSON.stringify(bad));
  }
  // A wallet charge goes through the same table.
  const decoded = decodeSandboxWalletToken("tok_sandbox_4000000000009995", NOW)!;
  const result = await sandbox.authorize(input(card(decoded.number, {
    ...decoded, cvv: undefined, wallet: { type: "apple_pay", token: "tok_sandbox_4000000000009995" },
  })));
  assert.deepEqual([result.outcome, "reason" in result ? result.reason : null], ["refused", "insufficient_funds"]);
});

// --- methods table ---------------------------------------------------------------------

test("METHOD_CURRENCIES and DEFAULT_EXPIRES_IN", () => {
  assert.equal(METHOD_CURRENCIES.credit_card, "any");
  assert.equal(methodAcceptsCurrency("credit_card", "USD"), true);
  assert.equal(methodAcceptsCurrency("pix", "BRL"), true);
  assert.equal(methodAcceptsCurrency("pix", "USD"), false);
  assert.equal(methodAcceptsCurrency("oxxo", "MXN"), true);
  assert.equal(methodAcceptsCurrency("pse", "COP"), true);
  assert.equal(methodAcceptsCurrency("spei", "BRL"), false);
  assert.deepEqual(DEFAULT_EXPIRES_IN, {
    pix: 3600, open_finance: 900, qr_code: 3600, boleto: 259_200, bank_transfer: 172_800, oxxo: 259_200, spei: 172_800, pse: 900, pix_automatico: 950_400,
  });
});

test("every async method is pending with expiresAt = now + expiresIn, and refuses other currencies", async () => {
  for (const kind of Object.keys(CURRENCY) as AsyncMethodType[]) {
    const result = await pending(kind);
    assert.equal(result.details.expiresAt, result.expiresAt.toISOString(), kind);
    if (kind !== "boleto") assert.equal(result.expiresAt.getTime() - NOW.getTime(), DEFAULT_EXPIRES_IN[kind] * 1000, kind);
    const wrong = CURRENCY[kind] === "BRL" ? "USD" : "BRL";
    await assert.rejects(sandbox.authorize(input(asyncOf(kind, OPTIONS[kind]), { currency: wrong })), new RegExp(`${kind} charges must be in`));
  }
  await assert.rejects(buildInstructions(input({ ...asyncOf("pix"), expiresIn: 0 }) as never), /expiresIn/);
});

// --- pix ---------------------------------------------------------------------------------

test("pix: a valid BR Code with the charge amount and a txid derived from the charge", async () => {
  const chargeId = newId("ch", NOW.getTime());
  const result = await pending("pix", { chargeId, amountMinor: 123_456 });
  const d = result.details as { qrCode: string; qrCodeImage: string; txid: string; expiresAt: string };
  const parsed = parseBrCode(d.qrCode);
  assert.equal(parsed.crcValid, true);
  assert.equal(isValidPixPayload(d.qrCode), true);
  assert.equal(parsed.fields.get("54"), "1234.56");
  assert.equal(parsed.fields.get("53"), "986");
  assert.equal(parsed.merchantAccount.get("01"), "pix@example.com");
  assert.equal(parsed.fields.get("59"), "Loja Exemplo Ltda");
  assert.equal(parsed.fields.get("60"), "Sao Paulo");
  assert.match(d.txid, /^[A-Za-z0-9]{1,25}$/);
  assert.equal(parsed.additional.get("05"), d.txid);
  assert.equal(d.txid, pixTxid(chargeId));
  assert.ok(chargeId.endsWith(d.txid), "the txid is the tail of the charge id");
  assert.match(d.qrCodeImage, /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
  assert.equal(d.expiresAt, "2026-03-10T16:00:00.000Z");
  // Two charges in the same millisecond still get different txids (the random part is kept).
  assert.notEqual(pixTxid(newId("ch", NOW.getTime())), pixTxid(newId("ch", NOW.getTime())));
  assert.equal(pixTxid("ch_short"), "chshort");
});

// --- open finance ------------------------------------------------------------------------

test("open_finance: authorization URL, consent URN, optional ISPB", async () => {
  const chargeId = newId("ch", NOW.getTime());
  const result = await pending("open_finance", { chargeId }, { bankIspb: "60746948" });
  assert.equal(result.details.authorizationUrl, `${BASE_URL}/v1/sandbox/open-finance/${chargeId}`);
  assert.match(String(result.details.consentId), /^urn:feira:consent:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(result.details.bankIspb, "60746948");
  assert.equal(result.expiresAt.toISOString(), "2026-03-10T15:15:00.000Z");
  assert.equal("bankIspb" in (await pending("open_finance", {}, {})).details, false);
  await assert.rejects(sandbox.authorize(input(asyncOf("open_finance", { bankIspb: "123" }))), /bankIspb/);
});

// --- wallet QR code ----------------------------------------------------------------------

test("qr_code: an EMV MPM payload under feira's GUI with a valid CRC", async () => {
  const chargeId = newId("ch", NOW.getTime());
  const result = await pending("qr_code", { chargeId, amountMinor: 5 });
  const code = String(result.details.qrCode);
  const parsed = parseBrCode(code);
  assert.equal(parsed.crcValid, true);
  assert.equal(parsed.fields.get("00"), "01");
  assert.equal(parsed.fields.get("01"), "12");
  assert.equal(parsed.fields.get("54"), "0.05");
  assert.equal(parsed.fields.get("53"), "986");
  assert.equal(parsed.fields.get("58"), "BR");
  assert.equal(parsed.fields.get("59"), "Loja Exemplo Ltda");
  assert.equal(parsed.fields.get("60"), "Sao Paulo");
  assert.equal(parsed.merchantAccount.size, 0, "not a Pix code: no br.gov.bcb.pix template");
  assert.equal(parsed.fields.get("26"), `0015br.com.feira.qr01${String(chargeId.length).padStart(2, "0")}${chargeId}`);
  assert.equal(parsed.additional.get("05"), pixTxid(chargeId));
  assert.match(String(result.details.qrCodeImage), /^data:image\/png;base64,/);
  // A flipped character breaks the CRC.
  assert.equal(parseBrCode(code.replace("5802BR", "5802BX")).crcValid, false);
});

// --- boleto ------------------------------------------------------------------------------

test("boleto: valid barcode and line, due 3 days later by default, payable to the end of that day in Brasília", async () => {
  const result = await pending("boleto", { amountMinor: 15_990 });
  const d = result.details as Record<string, string>;
  assert.equal(isValidBoleto(d.digitableLine!), true);
  assert.equal(isValidBoleto(d.formattedLine!), true);
  // The library validates 44-digit barcodes of arrecadação slips only; this one is checked
  // through the line it converts to.
  assert.match(d.barcode!, /^\d{44}$/);
  assert.equal(barcodeToDigitableLine(d.barcode!), d.digitableLine);
  assert.equal(d.dueDate, "2026-03-13");
  assert.equal(result.expiresAt.toISOString(), "2026-03-14T02:59:59.999Z"); // 23:59:59.999 -03:00
  const info = getBoletoInfo(d.digitableLine!, { referenceDate: NOW });
  assert.equal(info?.amount, 15_990);
  assert.equal(info?.bankCode, "001");
  assert.equal(d.bankCode, "001");
  assert.match(d.ourNumber!, /^2718281\d{10}$/);
  assert.ok(d.barcode!.endsWith(`000000${d.ourNumber}17`), "Banco do Brasil campo livre: zeros, nosso número, carteira");
  assert.equal(d.instructions, "Não receber após o vencimento.");
  assert.equal(d.beneficiary, "Loja Exemplo Ltda");
  assert.equal("pdfUrl" in d, false);
});

test("boleto: the default due date is counted in America/Sao_Paulo", async () => {
  // 2026-03-10 01:00 UTC is still March 9 in São Paulo: due March 12, not 13.
  const late = new Date("2026-03-10T01:00:00Z");
  const result = await pending("boleto", { now: late });
  assert.equal(result.details.dueDate, "2026-03-12");
  assert.equal(result.expiresAt.toISOString(), "2026-03-13T02:59:59.999Z");
});

test("boleto: a requested due date and instructions are used; bad dates are refused", async () => {
  const result = await pending("boleto", {}, { dueDate: "2026-04-01", instructions: "  Pedido 42  " });
  assert.equal(result.details.dueDate, "2026-04-01");
  assert.equal(result.details.instructions, "Pedido 42");
  assert.equal(result.expiresAt.toISOString(), "2026-04-02T02:59:59.999Z");
  assert.equal(isValidBoleto(String(result.details.digitableLine)), true);
  // Today (in São Paulo) is still a valid due date.
  assert.equal(checkBoletoDueDate("2026-03-10", NOW), null);
  assert.match(checkBoletoDueDate("2026-03-09", NOW) ?? "", /before today/);
  assert.match(checkBoletoDueDate("2026-02-30", NOW) ?? "", /YYYY-MM-DD/);
  assert.match(checkBoletoDueDate("10/04/2026", NOW) ?? "", /YYYY-MM-DD/);
  assert.match(checkBoletoDueDate("2049-10-14", NOW) ?? "", /after 2049-10-13/);
  await assert.rejects(sandbox.authorize(input(asyncOf("boleto", { dueDate: "2026-03-09" }))), /before today/);
  await assert.rejects(sandbox.authorize(input(asyncOf("boleto"), { amountMinor: 10_000_000_000 })), /amountMinor/);
});

// --- bank transfer -----------------------------------------------------------------------

test("bank_transfer: the merchant's virtual account and a reference unique per charge", async () => {
  const a = (await pending("bank_transfer")).details;
  const b = (await pending("bank_transfer")).details;
  assert.equal(a.bankCode, "001");
  assert.equal(a.bankName, "Banco do Brasil S.A.");
  assert.equal(a.branch, "0001");
  assert.match(String(a.accountNumber), /^\d{8}-[\dX]$/);
  assert.equal(a.accountNumber, b.accountNumber, "one virtual account per merchant");
  assert.equal(a.accountHolder, "Loja Exemplo Ltda");
  assert.match(String(a.reference), /^CH[0-9A-Z]{26}$/);
  assert.notEqual(a.reference, b.reference);
  const other = (await pending("bank_transfer", { merchant: { id: "mer_other", name: "Outra", city: "Recife", pixKey: "x@example.com" } })).details;
  assert.notEqual(other.accountNumber, a.accountNumber);
});

// --- OXXO, SPEI, PSE ---------------------------------------------------------------------

test("oxxo: a 16-digit reference with a Luhn check digit, same digits as the barcode", async () => {
  const chargeId = newId("ch", NOW.getTime());
  const d = (await pending("oxxo", { chargeId, amountMinor: 50_000 })).details;
  assert.match(String(d.reference), /^\d{16}$/);
  assert.equal(luhnValid(String(d.reference)), true);
  assert.equal(d.barcode, d.reference);
  assert.equal(d.barcodeFormat, "code128");
  assert.equal(oxxoReference(chargeId), d.reference, "stable per charge");
  assert.notEqual(oxxoReference(newId("ch")), d.reference);
  assert.equal(luhnCheckDigit("7992739871"), "3"); // the textbook Luhn example
});

test("clabeControlDigit matches published CLABEs and catches every single-digit error", () => {
  for (const clabe of ["032180000118359719", "103150124152345786", "002180032240946700"]) {
    assert.equal(clabeControlDigit(clabe.slice(0, 17)), clabe[17], clabe);
    assert.equal(isValidClabe(clabe), true, clabe);
    for (let i = 0; i < 17; i++) {
      const digit = Number(clabe[i]);
      const changed = clabe.slice(0, i) + ((digit + 1) % 10) + clabe.slice(i + 1);
      assert.equal(isValidClabe(changed), false, changed);
    }
  }
  assert.equal(isValidClabe("03218000011835971"), false);
  assert.throws(() => clabeControlDigit("0321800001183597a"), /17 digits/);
});

test("spei: a valid STP CLABE per charge and a 7-digit reference", async () => {
  const a = (await pending("spei")).details;
  const b = (await pending("spei")).details;
  assert.match(String(a.clabe), /^646180\d{12}$/);
  assert.equal(isValidClabe(String(a.clabe)), true);
  assert.notEqual(a.clabe, b.clabe);
  assert.match(String(a.reference), /^\d{7}$/);
  assert.notEqual(a.reference, "0000000");
  assert.equal(a.beneficiary, "Loja Exemplo Ltda");
  assert.match(String(a.bankName), /STP/);
});

test("pse: redirect URL, bank code and a numeric CUS; the bank is required", async () => {
  const chargeId = newId("ch", NOW.getTime());
  const d = (await pending("pse", { chargeId, amountMinor: 5_000_000 })).details;
  assert.equal(d.redirectUrl, `${BASE_URL}/v1/sandbox/pse/${chargeId}`);
  assert.equal(d.bankCode, "1007");
  assert.match(String(d.cus), /^[1-9]\d{9}$/);
  assert.equal("documentNumber" in d, false, "the payer's document is not echoed");
  await assert.rejects(sandbox.authorize(input(asyncOf("pse", {}), { currency: "COP" })), /bankCode/);
});

// --- registry ----------------------------------------------------------------------------

test("registry: sandbox always gets the simulator, production never does", () => {
  const registry = createProcessorRegistry({});
  assert.equal(registry.route("sandbox")?.name, "sandbox");
  assert.equal(registry.adapter("sandbox", null)?.name, "sandbox");
  assert.equal(registry.route("production"), null);
  assert.equal(registry.adapter("production", "sandbox"), null);
  assert.match(parseProcessorRouting({ PAYMENT_PROCESSOR: "sandbox" }, PROCESSORS).problems[0]!, /PAYMENT_PROCESSOR=sandbox is not allowed/);
  assert.match(
    parseProcessorRouting({ PAYMENT_PROCESSOR: "cielo" }, PROCESSORS).problems[0]!,
    /PAYMENT_PROCESSOR=cielo is not a known processor \(known: pagarme, mercadopago, efi\)/
  );
  // Even a definition that hands out the simulator cannot make it serve production.
  const simulator = (name: string) => defineProcessor({ name, methods: ["credit_card"], settings: {}, create: () => createSandboxProcessor() });
  assert.throws(() => simulator("sandbox"), /not the simulator's "sandbox"/);
  assert.throws(
    () => createProcessorRegistry({ definitions: [simulator("fake")], live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["fake"] } } }),
    /must not be the sandbox simulator/,
  );
});

test("registry: a registered production adapter serves production keys", async () => {
  const acme: PaymentProcessor = { ...createSandboxProcessor(), name: "acme" };
  const definitions = [defineProcessor({ name: "acme", methods: ["credit_card"], settings: {}, create: () => acme })];
  const registry = createProcessorRegistry({ definitions, live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["acme"] } } });
  assert.equal(registry.adapter("production", "acme"), acme);
  assert.equal((await registry.route("production")!.authorize(input(card("4111111111111111")))).servedBy, "acme");
  assert.equal(registry.route("sandbox")?.name, "sandbox");
  assert.throws(
    () => createProcessorRegistry({ definitions, live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["other"] } } }),
    /"other", which is not a known processor \(known: acme\)/,
  );
  // Prototype keys are not processor names.
  assert.throws(() => createProcessorRegistry({ live: { ...NO_LIVE_PROCESSORS, routes: { credit_card: ["toString"] } } }), /not a known processor/);
  assert.match(parseProcessorRouting({ PAYMENT_PROCESSOR: "toString" }, PROCESSORS).problems[0]!, /not a known processor/);
});
