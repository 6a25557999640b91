import { test } from "node:test";
import assert from "node:assert/strict";
import { createBreaker } from "../../src/processors/breaker.js";
import type { AuthorizeResult, ProcessorFailureKind } from "../../src/processors/processor.js";
import { PROCESSORS } from "../../src/processors/registry.js";
import { describeRoutes, failoverDecision, parseProcessorRouting, requiredCredentials } from "../../src/processors/routing.js";

const CREDS = {
  PAGARME_SECRET_KEY: "sk_x", MERCADOPAGO_ACCESS_TOKEN: "APP_USR-x", MERCADOPAGO_WEBHOOK_SECRET: "whsec", MERCADOPAGO_PUBLIC_KEY: "APP_USR-pk",
};

test("PAYMENT_ROUTES becomes a route table with failover order", () => {
  const r = parseProcessorRouting({ ...CREDS, PAYMENT_ROUTES: "credit_card=pagarme|mercadopago, pix=mercadopago,boleto=pagarme" }, PROCESSORS);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.routes, { credit_card: ["pagarme", "mercadopago"], pix: ["mercadopago"], boleto: ["pagarme"] });
  assert.deepEqual(r.processors.sort(), ["mercadopago", "pagarme"]);
});

test("PAYMENT_PROCESSOR routes every method the processor serves", () => {
  const r = parseProcessorRouting({ PAGARME_SECRET_KEY: "sk", PAYMENT_PROCESSOR: "pagarme" }, PROCESSORS);
  assert.deepEqual(r.problems, []);
  assert.deepEqual(r.routes, { credit_card: ["pagarme"], pix: ["pagarme"], boleto: ["pagarme"] });
  assert.deepEqual(r.requiredCredentials, ["PAGARME_SECRET_KEY"]);
});

test("neither variable: no live routes and no problem", () => {
  assert.deepEqual(parseProcessorRouting({}, PROCESSORS), { routes: {}, processors: [], requiredCredentials: [], problems: [] });
});

test("bad routes are start-up problems naming PAYMENT_ROUTES", () => {
  for (const [text, expected] of [
    ["oxxo=pagarme", /PAYMENT_ROUTES: pagarme does not serve oxxo/],
    ["credit_card=stripe", /PAYMENT_ROUTES: "stripe" \(for credit_card\) is not a known processor/],
    ["bitcoin=pagarme", /PAYMENT_ROUTES: "bitcoin" is not a payment method/],
    ["pix=mercadopago,pix=pagarme", /PAYMENT_ROUTES: pix is routed twice/],
    ["pix=pagarme|pagarme", /names the same processor twice/],
    ["pix=a|b|c", /PAYMENT_ROUTES: pix needs one processor or two/],
    ["pix", /PAYMENT_ROUTES: pix needs one processor/],
    [" , ", /PAYMENT_ROUTES routes no method/],
  ] as const) {
    const r = parseProcessorRouting({ ...CREDS, PAYMENT_ROUTES: text }, PROCESSORS);
    assert.ok(r.problems.some((p) => expected.test(p)), `${text}: ${JSON.stringify(r.problems)}`);
    assert.deepEqual(r.routes, {});
  }
  assert.match(parseProcessorRouting({ PAYMENT_PROCESSOR: "sandbox" }, PROCESSORS).problems[0]!, /PAYMENT_PROCESSOR=sandbox is not allowed/);
  assert.match(parseProcessorRouting({ PAYMENT_PROCESSOR: "cielo" }, PROCESSORS).problems[0]!, /PAYMENT_PROCESSOR=cielo is not a known processor/);
  assert.match(parseProcessorRouting({ ...CREDS, PAYMENT_PROCESSOR: "pagarme", PAYMENT_ROUTES: "pix=pagarme" }, PROCESSORS).problems[0]!, /both set/);
});

test("required credentials: Mercado Pago's public key only when it serves cards; a missing one is named", () => {
  assert.deepEqual(requiredCredentials({ pix: ["mercadopago"] }, PROCESSORS).sort(), ["MERCADOPAGO_ACCESS_TOKEN", "MERCADOPAGO_WEBHOOK_SECRET"]);
  assert.deepEqual(
    requiredCredentials({ credit_card: ["pagarme", "mercadopago"] }, PROCESSORS).sort(),
    ["MERCADOPAGO_ACCESS_TOKEN", "MERCADOPAGO_PUBLIC_KEY", "MERCADOPAGO_WEBHOOK_SECRET", "PAGARME_SECRET_KEY"],
  );
  const r = parseProcessorRouting({ PAYMENT_ROUTES: "pix=mercadopago", MERCADOPAGO_ACCESS_TOKEN: "t" }, PROCESSORS);
  assert.deepEqual(r.problems, ["MERCADOPAGO_WEBHOOK_SECRET is required by PAYMENT_ROUTES (mercadopago)"]);
  const p = parseProcessorRouting({ PAYMENT_PROCESSOR: "pagarme" }, PROCESSORS);
  assert.deepEqual(p.problems, ["PAGARME_SECRET_KEY is required by PAYMENT_PROCESSOR (pagarme)"]);
});

const unknown = (kind: ProcessorFailureKind, status?: number): AuthorizeResult => ({ outcome: "unknown", failure: { kind, status, message: kind } });

test("failover: only when the first processor provably made nothing", () => {
  assert.deepEqual(failoverDecision(unknown("connection_refused")), { tryNext: true });
  // 5xx / 429: a lookup first, and only "not found" lets the second processor try.
  for (const [kind, status] of [["http_5xx", 503], ["http_429", 429]] as const) {
    const d = failoverDecision(unknown(kind, status));
    assert.equal(d.tryNext, false);
    assert.equal(!d.tryNext && d.lookupFirst, true);
    assert.deepEqual(failoverDecision(unknown(kind, status), { outcome: "not_found" }), { tryNext: true });
    assert.equal(failoverDecision(unknown(kind, status), { outcome: "paid", pspRefId: "p" }).tryNext, false);
    assert.equal(failoverDecision(unknown(kind, status), { outcome: "unknown", failure: { kind: "timeout", message: "" } }).tryNext, false);
  }
  // Never after a timeout or a lost answer, even if a lookup found nothing (it may not be indexed yet).
  for (const kind of ["timeout", "lost", "bad_response"] as const) {
    const d = failoverDecision(unknown(kind), { outcome: "not_found" });
    assert.deepEqual(d.tryNext, false);
    assert.equal(!d.tryNext && d.lookupFirst, false);
  }
  // Never after an answer: a decline is final.
  assert.equal(failoverDecision({ outcome: "refused", reason: "card_declined" }, { outcome: "not_found" }).tryNext, false);
  assert.equal(failoverDecision({ outcome: "failed", reason: "processing_error" }).tryNext, false);
});

test("breaker: opens after the threshold, lets one trial through after openMs, closes on success", () => {
  let t = 1_000;
  const b = createBreaker(() => t, { failureThreshold: 3, openMs: 10_000 });
  assert.equal(b.allow(), true);
  b.record("failure");
  b.record("failure");
  assert.equal(b.view().status, "closed");
  b.record("success");
  assert.equal(b.view().consecutiveFailures, 0);
  for (let i = 0; i < 3; i++) b.record("failure");
  assert.deepEqual(b.view(), { status: "open", since: 1_000, consecutiveFailures: 3, failures: 5, lastFailureAt: 1_000, retryAt: 11_000 });
  assert.equal(b.allow(), false);
  t = 11_000;
  assert.equal(b.view().status, "half_open");
  assert.equal(b.view().since, 11_000, "half open since the open period ended");
  assert.equal(b.allow(), true, "one trial");
  assert.equal(b.allow(), false, "only one at a time");
  b.record("failure");
  assert.equal(b.view().status, "open", "a failed trial reopens");
  t = 21_000;
  assert.equal(b.allow(), true);
  b.record("success");
  assert.deepEqual(b.view(), { status: "closed", since: 21_000, consecutiveFailures: 0, failures: 6, lastFailureAt: 11_000, retryAt: null });
  // A trial that never reports back stops blocking after openMs.
  for (let i = 0; i < 3; i++) b.record("failure");
  t = 31_000;
  assert.equal(b.allow(), true);
  t = 40_000;
  assert.equal(b.allow(), false);
  t = 41_000;
  assert.equal(b.allow(), true);
});

test("the start-up log shows the routes as the operator wrote them", () => {
  const r = parseProcessorRouting({ ...CREDS, PAYMENT_ROUTES: "credit_card=pagarme|mercadopago,pix=mercadopago" }, PROCESSORS);
  assert.deepEqual(describeRoutes(r.routes), { credit_card: "pagarme|mercadopago", pix: "mercadopago" });
  assert.deepEqual(describeRoutes(parseProcessorRouting({}, PROCESSORS).routes), {});
});

test("pix_automatico=efi names the processor of live mandates, which needs the settings of Efí's Pix; a processor without mandates is refused", () => {
  const efi = { EFI_CLIENT_ID: "id", EFI_CLIENT_SECRET: "s", EFI_CERTIFICATE: "cert.pem", EFI_PIX_KEY: "k", EFI_ACCOUNT_NUMBER: "4815162", EFI_ACCOUNT_TYPE: "CORRENTE" };
  const r = parseProcessorRouting({ ...CREDS, ...efi, PAYMENT_ROUTES: "credit_card=pagarme,pix_automatico=efi" }, PROCESSORS);
  assert.deepEqual(r.problems, []);
  assert.equal(r.mandateProvider, "efi");
  assert.deepEqual(r.routes, { credit_card: ["pagarme"] }, "no charge method named pix_automatico");
  assert.ok(r.requiredCredentials.includes("EFI_PIX_KEY"));
  const missing = parseProcessorRouting({ PAYMENT_ROUTES: "pix_automatico=efi" }, PROCESSORS);
  assert.ok(missing.problems.some((p) => /EFI_CLIENT_ID is required/.test(p)), missing.problems.join("; "));
  assert.equal(parseProcessorRouting({ ...efi, PAYMENT_PROCESSOR: "efi" }, PROCESSORS).mandateProvider, "efi");
  for (const [text, expected] of [
    ["pix_automatico=pagarme", /pix_automatico=pagarme must name one processor that serves Pix Automático mandates \(known: efi\)/],
    ["pix_automatico=efi,pix_automatico=efi", /pix_automatico is routed twice/],
  ] as const) {
    const bad = parseProcessorRouting({ ...CREDS, ...efi, PAYMENT_ROUTES: text }, PROCESSORS);
    assert.ok(bad.problems.some((p) => expected.test(p)), `${text}: ${bad.problems.join("; ")}`);
    assert.equal(bad.mandateProvider, undefined);
  }
});

test("pix_automatico=efi needs the account a recurring charge names (recebedor: EFI_ACCOUNT_NUMBER, EFI_ACCOUNT_TYPE); Efí's Pix alone does not", () => {
  const pix = { EFI_CLIENT_ID: "id", EFI_CLIENT_SECRET: "s", EFI_CERTIFICATE: "cert.pem", EFI_PIX_KEY: "k" };
  assert.deepEqual(parseProcessorRouting({ ...pix, PAYMENT_ROUTES: "pix=efi" }, PROCESSORS).problems, []);
  for (const routing of [{ PAYMENT_ROUTES: "pix=efi,pix_automatico=efi" }, { PAYMENT_PROCESSOR: "efi" }]) {
    const missing = parseProcessorRouting({ ...pix, ...routing }, PROCESSORS);
    for (const v of ["EFI_ACCOUNT_NUMBER", "EFI_ACCOUNT_TYPE"]) assert.ok(missing.problems.some((p) => p.startsWith(`${v} is required`)), missing.problems.join("; "));
    assert.equal(missing.problems.some((p) => p.startsWith("EFI_ACCOUNT_BRANCH")), false, "the branch is optional (CobRSolicitada's agencia)");
    assert.equal(missing.mandateProvider, undefined);
  }
  const account = { EFI_ACCOUNT_NUMBER: "4815162", EFI_ACCOUNT_TYPE: "CORRENTE_X", EFI_ACCOUNT_BRANCH: "00001" };
  const env = { ...pix, ...account, PAYMENT_ROUTES: "pix_automatico=efi" };
  const bad = parseProcessorRouting(env, PROCESSORS, { efi: { accountNumber: account.EFI_ACCOUNT_NUMBER, accountType: account.EFI_ACCOUNT_TYPE, accountBranch: account.EFI_ACCOUNT_BRANCH } });
  assert.ok(bad.problems.some((p) => /EFI_ACCOUNT_TYPE must be one of CORRENTE, POUPANCA, PAGAMENTO/.test(p)), bad.problems.join("; "));
  assert.ok(bad.problems.some((p) => /EFI_ACCOUNT_BRANCH must be/.test(p)), bad.problems.join("; "));
});
