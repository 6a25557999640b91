import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { create as createQr, type QRCodeMaskPattern } from "qrcode";
import { buildPixBrCode } from "../../src/lib/pix.js";
import { createQrMatrixM, maskPenalty } from "../../src/lib/qr-mask.js";

// The library's own penalty rules, to compare mask by mask; they read only size, get and data.
interface Scored { size: number; data: Uint8Array; get(row: number, col: number): number }
type Rule = (m: Scored) => number;
const rules = createRequire(import.meta.url)("qrcode/lib/core/mask-pattern.js") as Record<
  "getPenaltyN1" | "getPenaltyN2" | "getPenaltyN3" | "getPenaltyN4",
  Rule
>;

// mulberry32: the same inputs on every run.
function seeded(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const DDDS = ["11", "21", "31", "41", "48", "51", "61", "71", "81", "85", "92"];
const WORDS = ["Loja", "Padaria", "São", "João", "Açaí", "Mercado", "Café", "Irmãos", "Ótica", "Ltda", "ME", "Comércio", "Bem-Estar"];
const CITIES = ["SAO PAULO", "Rio de Janeiro", "Belo Horizonte", "Florianópolis", "Brasília", "Goiânia", "Maceió", "Curitiba"];
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

function brCodes(count: number, next: () => number): string[] {
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => pick([...alphabet])).join("");
  // Mod-11 check digits for CPF (weights from 10 or 11 down) and CNPJ (2..9 from the right).
  const checkDigit = (digits: number[], weights: number[]) => {
    const rest = digits.reduce((s, d, i) => s + d * weights[i]!, 0) % 11;
    return rest < 2 ? 0 : 11 - rest;
  };
  const cpf = () => {
    const d = Array.from({ length: 9 }, () => int(10));
    d[0] = 1 + int(9); // not all one digit
    d[1] = (d[0] + 1) % 10;
    d.push(checkDigit(d, [10, 9, 8, 7, 6, 5, 4, 3, 2]));
    d.push(checkDigit(d, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2]));
    return d.join("");
  };
  const cnpj = () => {
    const d = [...Array.from({ length: 8 }, () => int(10)), 0, 0, 0, 1 + int(9)];
    d[0] = 1 + int(9);
    d.push(checkDigit(d, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
    d.push(checkDigit(d, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]));
    return d.join("");
  };
  const keys = [
    () => `${chars(ALNUM.toLowerCase(), 1 + int(30))}@${pick(["example.com", "loja.com.br", "mail.net"])}`,
    () => `+55${pick(DDDS)}9${chars("0123456789", 8)}`,
    () => [8, 4, 4, 4, 12].map((n) => chars("0123456789abcdef", n)).join("-"),
    cpf,
    cnpj,
  ];
  const words = (n: number) => Array.from({ length: n }, () => pick(WORDS)).join(" ");
  return Array.from({ length: count }, () =>
    buildPixBrCode({
      key: pick(keys)(),
      merchantName: words(1 + int(5)),
      merchantCity: pick(CITIES),
      // Log-uniform from 1 centavo to 10^10 reais.
      amountMinor: Math.max(1, Math.floor(10 ** (next() * 12))),
      txid: chars(ALNUM, 1 + int(25)),
      description: next() < 0.3 ? words(1 + int(8)) : undefined,
    }),
  );
}

// Numeric, alphanumeric and byte-mode texts, lengths skewed short so every version from 1 to
// the mid-20s shows up without the large ones (slow in the library) dominating the run.
function randomTexts(count: number, next: () => number): string[] {
  const alphabets: Array<[string, number]> = [
    ["0123456789", 1900],
    ["0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:", 1150],
    [`${ALNUM} !"#&'()*,;<=>?@[]^_{|}~çãéüß€`, 700],
  ];
  return Array.from({ length: count }, () => {
    const [alphabet, longest] = alphabets[Math.floor(next() * alphabets.length)]!;
    const length = 1 + Math.floor(longest * next() ** 2);
    return Array.from({ length }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
  });
}

function assertSameAsLibrary(texts: string[]): Set<number> {
  const versions = new Set<number>();
  for (const text of texts) {
    const lib = createQr(text, { errorCorrectionLevel: "M" });
    const ours = createQrMatrixM(text);
    versions.add(lib.version);
    assert.equal(ours.maskPattern, lib.maskPattern, `mask for ${JSON.stringify(text)}`);
    assert.equal(ours.size, lib.modules.size);
    assert.ok(Buffer.from(ours.modules).equals(Buffer.from(lib.modules.data)), `modules for ${JSON.stringify(text)}`);
  }
  return versions;
}

test("BR Codes: the same mask and the same modules as the library's automatic choice", () => {
  const versions = assertSameAsLibrary(brCodes(2000, seeded(1)));
  assert.ok(versions.size >= 3, `BR Codes covered versions ${[...versions].sort((a, b) => a - b)}`);
});

test("random texts of versions 1 to 20 and beyond: the same mask and modules as the library", () => {
  const versions = assertSameAsLibrary(randomTexts(1000, seeded(2)));
  for (let v = 1; v <= 20; v++) assert.ok(versions.has(v), `version ${v} not covered: ${[...versions].sort((a, b) => a - b)}`);
});

test("maskPenalty equals the library's N1 + N2 + N3 + N4 for every mask", () => {
  const next = seeded(3);
  for (const text of [...brCodes(60, next), ...randomTexts(60, next)]) {
    for (let p = 0; p < 8; p++) {
      // With a fixed mask the library's matrix is the one getBestMask scored for that mask.
      const { modules } = createQr(text, { errorCorrectionLevel: "M", maskPattern: p as QRCodeMaskPattern });
      const expected =
        rules.getPenaltyN1(modules) + rules.getPenaltyN2(modules) + rules.getPenaltyN3(modules) + rules.getPenaltyN4(modules);
      assert.equal(maskPenalty(modules.data, modules.size), expected, `mask ${p} of ${JSON.stringify(text)}`);
    }
  }
});
