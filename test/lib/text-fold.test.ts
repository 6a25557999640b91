import { test } from "node:test";
import assert from "node:assert/strict";
import { foldOrigins, foldText } from "../../src/lib/text-fold.js";

// The folding the card-number detector reads rests on two facts of Unicode, checked here over every
// code point, so that a Unicode upgrade of Node that broke one would fail here and not let a
// spelling of a card number through.

// The planes where Unicode has assigned characters: 0 to 3, and 14 (tags, variation selectors).
const codePoints = function* () {
  for (let cp = 0; cp < 0x40000; cp++) if (cp < 0xd800 || cp > 0xdfff) yield cp;
  for (let cp = 0xe0000; cp < 0xe1000; cp++) yield cp;
};

test("decimal digits come in whole sets of ten, and each folds to its ASCII digit", () => {
  const DECIMAL = /^\p{Nd}$/u;
  let stretch = 0;
  let sets = 0;
  for (const cp of codePoints()) {
    const ch = String.fromCodePoint(cp);
    if (DECIMAL.test(ch)) {
      assert.equal(foldText(ch), String(stretch % 10), `U+${cp.toString(16)}`);
      stretch++;
      continue;
    }
    assert.equal(stretch % 10, 0, `the stretch of digits before U+${cp.toString(16)} is not whole sets of ten`);
    if (stretch > 0) sets += stretch / 10;
    stretch = 0;
  }
  assert.ok(sets > 60, `${sets} sets of digits`);
});

test("a character kept as it is never becomes a digit or an invisible character under NFKC", () => {
  const DIGIT_OR_INVISIBLE = /[\p{Nd}\p{Cf}]/u;
  for (const cp of codePoints()) {
    if (cp < 0x80) continue;
    const ch = String.fromCodePoint(cp);
    if (foldText(ch) !== ch) continue;
    assert.doesNotMatch(ch.normalize("NFKC"), DIGIT_OR_INVISIBLE, `U+${cp.toString(16)} is kept, yet NFKC makes it ${ch.normalize("NFKC")}`);
    assert.doesNotMatch(ch, DIGIT_OR_INVISIBLE, `U+${cp.toString(16)} is kept`);
  }
});

test("plain text comes back as the same string; folded text knows where each character came from", () => {
  const plain = "Maria Conceição, São Paulo 01310-100 東京 👍";
  assert.equal(foldText(plain), plain);
  const text = "a４\u200b٢😀𝟏ⅻ½";
  const folded = foldText(text);
  assert.equal(folded, "a42😀1xii1⁄2");
  const { from, to } = foldOrigins(text);
  assert.equal(from.length, folded.length);
  // Each folded unit points at its original character: "𝟏" (two units) at 6..8, "½" at 9..10.
  assert.deepEqual([from[folded.indexOf("1")], to[folded.indexOf("1")]], [6, 8]);
  assert.deepEqual([from[folded.length - 1], to[folded.length - 1]], [9, 10]);
  assert.deepEqual(foldOrigins("ab"), { from: [0, 1], to: [1, 2] });
});
