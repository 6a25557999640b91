import { test } from "node:test";
import assert from "node:assert/strict";
import { luhnValid } from "../../src/lib/cards.js";
import { maskCardNumbers, redactDeep } from "../../src/lib/redact.js";

test("Luhn-valid runs of 13 to 19 digits are masked to the first six and last four", () => {
  const cases: [string, string][] = [
    ["4111111111111111", "411111******1111"],
    ["Charge 4111111111111111 not found", "Charge 411111******1111 not found"],
    ["4111 1111 1111 1111", "411111******1111"],
    ["5555-5555-5555-4444", "555555******4444"],
    ["378282246310005", "378282*****0005"], // Amex, 15 digits
    ["6011000990139424", "601100******9424"],
    ["4222222222222", "422222***2222"], // 13 digits
    ["cards 4111111111111111,5555555555554444.", "cards 411111******1111,555555******4444."],
  ];
  for (const [input, masked] of cases) assert.equal(maskCardNumbers(input), masked, input);
});

test("a card number followed by more digits (a CVV) is still found among the groups", () => {
  assert.equal(maskCardNumbers("4111 1111 1111 1111 123"), "411111******1111 123");
  assert.equal(maskCardNumbers("ref 12 4111-1111-1111-1111"), "ref 12 411111******1111");
});

test("what is not a card number is left alone, as the same string", () => {
  for (const s of [
    "4111111111111112", // fails Luhn
    "411111111111", // 12 digits
    "41111111111111111111", // 20 digits, unseparated
    "23793381286000000000300000000400184340000010000", // a boleto barcode
    "411111******1111", // already masked
    "ch_01m83vqv3jkenw3273kvhefegv",
    "2026-11-22T10:00:00.000Z",
    "4111  1111 1111 1111", // a double space ends a run
    "",
  ]) assert.equal(maskCardNumbers(s), s, s);
});

test("luhnValid", () => {
  assert.equal(luhnValid("79927398713"), true);
  assert.equal(luhnValid("79927398710"), false);
});

test("redactDeep masks strings, keys and card-number integers in plain objects and arrays", () => {
  const input = {
    msg: "paid with 4111111111111111",
    nested: { list: ["5555555555554444", 1, null, true], "4000000000000002": "key" },
    pan: 4111111111111111,
    amount: 1795425223677, // a 13-digit integer that fails Luhn stays a number
  };
  assert.deepEqual(redactDeep(input), {
    msg: "paid with 411111******1111",
    nested: { list: ["555555******4444", 1, null, true], "400000******0002": "key" },
    pan: "411111******1111",
    amount: 1795425223677,
  });
  assert.equal(input.msg, "paid with 4111111111111111", "the input is not changed");
});

test("redactDeep keeps class instances, survives cycles and any depth", () => {
  const err = new Error("x");
  const date = new Date(0);
  const out = redactDeep({ err, date });
  assert.equal(out.err, err);
  assert.equal(out.date, date);

  const cyclic: Record<string, unknown> = { a: "4111111111111111" };
  cyclic.self = cyclic;
  assert.deepEqual(redactDeep(cyclic), { a: "411111******1111", self: "[redacted: too large or circular]" });

  let deep: Record<string, unknown> = { pan: "4111111111111111" };
  for (let i = 0; i < 100_000; i++) deep = { d: deep };
  let walked = redactDeep(deep, 200_000);
  for (let i = 0; i < 100_000; i++) walked = walked.d as Record<string, unknown>;
  assert.equal(walked.pan, "411111******1111");
});
