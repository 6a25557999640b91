// QR symbol for a text at error correction M, with the mask chosen here instead of by the
// `qrcode` library. The library (1.5.4) spent about 0.45 of the 0.65 ms of CPU a BR Code's
// symbol cost choosing the mask (bench/qr.ts): for each of the 8 patterns it masked a BitMatrix
// and scored it through get(row, col) calls. The result must stay identical to its automatic
// choice, module for module (the choice is what keeps codes easy for cameras to read), so the
// library still builds the symbol (version, segments, error correction, function patterns)
// with the fixed mask 0, and only the choice is redone here on flat arrays. The scoring copies
// the arithmetic of its lib/core/mask-pattern.js, not the ISO 18004 text (they differ: N3 does
// not see the quiet zone as light, N4 rounds the dark share up); test/lib/qr-mask.test.ts
// compares both for thousands of codes.
import { create as createQr, type QRCodeMaskPattern } from "qrcode";

export interface QrMatrix {
  size: number;
  /** size * size modules, row by row, 1 = dark. */
  modules: Uint8Array;
  maskPattern: number;
}

const MASK_COUNT = 8;

// The library's getMaskAt: whether pattern p flips the module at (row i, column j).
const MASK_RULES: ReadonlyArray<(i: number, j: number) => boolean> = [
  (i, j) => (i + j) % 2 === 0,
  (i) => i % 2 === 0,
  (_i, j) => j % 3 === 0,
  (i, j) => (i + j) % 3 === 0,
  (i, j) => (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0,
  (i, j) => ((i * j) % 2) + ((i * j) % 3) === 0,
  (i, j) => (((i * j) % 2) + ((i * j) % 3)) % 2 === 0,
  (i, j) => (((i * j) % 3) + ((i + j) % 2)) % 2 === 0,
];

// The 30 format-information modules (15 bits, each written twice) as setupFormatInfo in the
// library's qrcode.js places them: flat indices, bit i at [2i] and [2i + 1].
function formatIndices(size: number): Uint32Array {
  const out = new Uint32Array(30);
  for (let i = 0; i < 15; i++) {
    const row = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    const col = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 14 - i;
    out[2 * i] = row * size + 8;
    out[2 * i + 1] = 8 * size + col;
  }
  return out;
}

// Format words (ECC level M, mask p) read back from 8 tiny symbols the library makes with a
// fixed mask: its own FormatInfo.getEncodedBits without importing its internals.
let formatWords: Uint16Array | undefined;
function formatWordsM(): Uint16Array {
  if (formatWords) return formatWords;
  const words = new Uint16Array(MASK_COUNT);
  for (let p = 0; p < MASK_COUNT; p++) {
    const { modules } = createQr("0", { errorCorrectionLevel: "M", maskPattern: p as QRCodeMaskPattern });
    const at = formatIndices(modules.size);
    for (let i = 0; i < 15; i++) words[p]! |= (modules.data[at[2 * i]!]! & 1) << i;
  }
  return (formatWords = words);
}

// Per symbol size (one size per QR version, and the version fixes which modules are function
// patterns), the modules each mask flips: 1 where it flips, 0 elsewhere and on reserved modules,
// which masks never touch. Each array is padded to whole 32-bit words so that masking is a XOR
// of words. At most 40 sizes, 3.7 MB if every version shows up; a BR Code is version 5 to 10
// (100 kB).
interface Layout {
  masks: Uint32Array[];
  formatAt: Uint32Array;
}
const layoutBySize = new Map<number, Layout>();
function layoutFor(size: number, reserved: Uint8Array): Layout {
  let layout = layoutBySize.get(size);
  if (layout) return layout;
  const words = Math.ceil((size * size) / 4);
  const masks = MASK_RULES.map((flips) => {
    const mask = new Uint8Array(words * 4);
    for (let i = 0; i < size; i++) {
      for (let j = 0; j < size; j++) if (!reserved[i * size + j] && flips(i, j)) mask[i * size + j] = 1;
    }
    return new Uint32Array(mask.buffer);
  });
  layout = { masks, formatAt: formatIndices(size) };
  layoutBySize.set(size, layout);
  return layout;
}

// `unmasked` XOR mask p on the data modules, with p's format word in the format modules.
function applyMask(out: Uint32Array, unmasked: Uint32Array, layout: Layout, p: number): void {
  const mask = layout.masks[p]!;
  for (let k = 0; k < out.length; k++) out[k] = unmasked[k]! ^ mask[k]!;
  const word = formatWordsM()[p]!;
  const bytes = new Uint8Array(out.buffer);
  for (let i = 0; i < 15; i++) {
    const bit = (word >> i) & 1;
    bytes[layout.formatAt[2 * i]!] = bit;
    bytes[layout.formatAt[2 * i + 1]!] = bit;
  }
}

// N1 and N3 points earned at a module, indexed by the last 11 modules of its line (the
// newest in bit 0). N1: a run of L >= 5 same-coloured modules scores 3 + (L - 5) = L - 2,
// counted as 1 at each module that ends 5 of one colour (L - 4 of them) plus 2 where the 6th
// module back has the other colour (once per run). N3: 40 where the window is 10111010000 or
// 00001011101, nothing beyond the symbol's edge counting. A table rather than the library's
// branches: the modules are close to random, so those branches were mispredicted half the time.
const LINE_POINTS = (() => {
  const points = new Uint8Array(2048);
  for (let w = 0; w < 2048; w++) {
    const five = w & 0x1f;
    const six = w & 0x3f;
    if (five === 0 || five === 0x1f) points[w]! += 1;
    if (six === 0x20 || six === 0x1f) points[w]! += 2;
    if (w === 0x5d0 || w === 0x05d) points[w]! += 40;
  }
  return points;
})();

/**
 * The library's getPenaltyN1 + N2 + N3 + N4 for a masked symbol, in one pass:
 * - N1 and N3 (LINE_POINTS) on every row and every column: row a and column a are read side
 *   by side.
 * - N2: every 2x2 block of one colour scores 3, overlapping blocks all counting.
 * - N4: 10 per step of Math.ceil(dark% / 5) away from 10, in the library's floating point.
 */
export function maskPenalty(m: Uint8Array, size: number): number {
  let linePoints = 0;
  let blocks = 0;
  let dark = 0;
  for (let a = 0; a < size; a++) {
    const rowStart = a * size;
    // Row 0 has no row above: its blocks are counted against itself and dropped below.
    const above = a === 0 ? rowStart : rowStart - size;
    // A virtual module of the other colour before each line, so that a run starting the line
    // scores its 2. Until the 11th module only the 6 newest bits index the table, which holds
    // no N3 pattern below 64: the library looks for the pattern from the 11th module on.
    let row = 1 - m[rowStart]!;
    let col = 1 - m[a]!;
    // pair: dark modules in column b of rows a - 1 and a (0-2). Two neighbouring pairs make a
    // one-colour block when they sum to 0 or 4; the initial 1 completes none.
    let pair = 1;
    let rowBlocks = 0;
    for (let b = 0; b < size; b++) {
      const r = m[rowStart + b]!;
      const window = b < 10 ? 0x3f : 0x7ff;
      row = ((row << 1) & 0x7ff) | r;
      col = ((col << 1) & 0x7ff) | m[b * size + a]!;
      linePoints += LINE_POINTS[row & window]! + LINE_POINTS[col & window]!;
      dark += r;
      const next = m[above + b]! + r;
      rowBlocks += 1 - ((((pair + next) & 3) + 3) >> 2);
      pair = next;
    }
    if (a > 0) blocks += rowBlocks;
  }
  const k = Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
  return linePoints + blocks * 3 + k * 10;
}

/** The symbol `create(text, { errorCorrectionLevel: "M" })` makes, mask choice included. */
export function createQrMatrixM(text: string): QrMatrix {
  const { modules: lib } = createQr(text, { errorCorrectionLevel: "M", maskPattern: 0 });
  const size = lib.size;
  const layout = layoutFor(size, lib.reservedBit);
  const words = layout.masks[0]!.length;
  // Undo mask 0; the format modules still hold mask 0's word, and applyMask overwrites them.
  const unmasked = new Uint32Array(words);
  new Uint8Array(unmasked.buffer).set(lib.data);
  const mask0 = layout.masks[0]!;
  for (let k = 0; k < words; k++) unmasked[k]! ^= mask0[k]!;

  let best = new Uint32Array(words);
  let work = new Uint32Array(words);
  let bestPattern = 0;
  let lowest = Infinity;
  for (let p = 0; p < MASK_COUNT; p++) {
    applyMask(work, unmasked, layout, p);
    const penalty = maskPenalty(new Uint8Array(work.buffer, 0, size * size), size);
    // Strictly lower, as in the library's loop: on a tie the lower mask number stays.
    if (penalty < lowest) {
      lowest = penalty;
      bestPattern = p;
      [best, work] = [work, best];
    }
  }
  return { size, modules: new Uint8Array(best.buffer, 0, size * size), maskPattern: bestPattern };
}
