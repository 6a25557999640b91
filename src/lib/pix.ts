// Pix BR Code ("copia e cola") for charges: EMV QRCPS merchant-presented mode, static form
// (key in 26-01, amount in 54, txid in 62-05), as described in the BCB BR Code manual.
// Generation is delegated to @brazilian-utils (which folds text to ASCII, truncates name and
// city to 25/15 and normalises the key to its DICT form); the CRC and the TLV reader below
// are written independently so that tests and the sandbox can check its output.
// Subpath imports: the package root bundles ~650 kB of tables we do not need.
import { generatePixPayload } from "@brazilian-utils/brazilian-utils/generate-pix-payload";
import { getPixKeyInfo } from "@brazilian-utils/brazilian-utils/get-pix-key-info";
import { crc32, deflateSync } from "node:zlib";
import { createQrMatrixM } from "./qr-mask.js";

export interface PixBrCodeInput {
  key: string;
  merchantName: string;
  merchantCity: string;
  amountMinor: number;
  txid: string;
  description?: string;
}

export interface ParsedBrCode {
  fields: Map<string, string>;
  merchantAccount: Map<string, string>;
  additional: Map<string, string>;
  crcValid: boolean;
}

// Field 54 holds at most 13 characters, so "9999999999.99" is the largest amount.
const MAX_AMOUNT_MINOR = 999_999_999_999;
const TXID_MAX = 25;
const PIX_GUI = "br.gov.bcb.pix";

// A static txid is 1-25 chars of [A-Za-z0-9] (Manual de Padrões §2.6.2). Callers that need
// to match incoming payments must store this sanitized value, not their own id.
export function sanitizeTxid(txid: string): string {
  return txid.replace(/[^A-Za-z0-9]/g, "").slice(0, TXID_MAX);
}

// "1050" -> "10.50" with integer arithmetic only: no float ever decides a digit.
function formatAmount(amountMinor: number): string {
  const units = Math.floor(amountMinor / 100);
  const cents = amountMinor % 100;
  return `${units}.${String(cents).padStart(2, "0")}`;
}

function hasAsciiText(s: string): boolean {
  // Same folding rule as the library: NFD, then drop everything outside printable ASCII.
  return s.normalize("NFD").replace(/[^\u0021-\u007E]/g, "").length > 0;
}

export function buildPixBrCode(input: PixBrCodeInput): string {
  const { key, merchantName, merchantCity, amountMinor, description } = input;
  if (!Number.isSafeInteger(amountMinor) || amountMinor < 1 || amountMinor > MAX_AMOUNT_MINOR) {
    throw new Error(`Pix amountMinor must be an integer from 1 to ${MAX_AMOUNT_MINOR}, got ${amountMinor}`);
  }
  const txid = sanitizeTxid(input.txid);
  if (txid.length === 0) throw new Error("Pix txid has no [A-Za-z0-9] characters left after sanitizing");
  if (getPixKeyInfo(key) === null) {
    throw new Error("Pix key is not a valid CPF, CNPJ, e-mail, mobile phone or random (EVP) key");
  }
  if (!hasAsciiText(merchantName)) throw new Error("Pix merchantName has no ASCII characters left");
  if (!hasAsciiText(merchantCity)) throw new Error("Pix merchantCity has no ASCII characters left");

  const amountText = formatAmount(amountMinor);
  // amountMinor / 100 is the double nearest to the exact decimal, far closer than the
  // 0.005 that toFixed(2) inside the library would need to go wrong at <= 1e10; the check
  // after generation makes that an enforced invariant rather than an argument.
  const code = generatePixPayload({
    key,
    merchantName,
    merchantCity,
    amount: amountMinor / 100,
    txid,
    description,
  });
  if (code === null) {
    throw new Error("Pix BR Code generation failed: @brazilian-utils generatePixPayload rejected the input");
  }
  const parsed = parseBrCode(code);
  if (parsed.fields.get("54") !== amountText || parsed.additional.get("05") !== txid || !parsed.crcValid) {
    throw new Error("Pix BR Code generation produced a code that does not carry the requested amount and txid");
  }
  return code;
}

// CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, xorout 0) over the UTF-8
// bytes of `s`; for a BR Code, `s` is everything up to and including "6304".
export function crc16ccittFalse(s: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(s, "utf8")) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, "0");
}

// Flat TLV list: 2-digit id, 2-digit decimal length, value. Throws on malformed input
// rather than guessing, since a half-read code would pass silently otherwise.
function parseTlv(s: string, where: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < s.length) {
    const head = s.slice(i, i + 4);
    if (!/^\d{4}$/.test(head)) throw new Error(`malformed BR Code ${where} at position ${i}`);
    const id = head.slice(0, 2);
    const len = Number(head.slice(2));
    const value = s.slice(i + 4, i + 4 + len);
    if (value.length !== len) throw new Error(`BR Code ${where} field ${id} is truncated`);
    if (out.has(id)) throw new Error(`BR Code ${where} repeats field ${id}`);
    out.set(id, value);
    i += 4 + len;
  }
  return out;
}

export function parseBrCode(code: string): ParsedBrCode {
  const fields = parseTlv(code, "payload");
  // The Pix template may sit in any of 26-51; the GUI is compared case-insensitively
  // because the BR Code manual's own example writes it as BR.GOV.BCB.PIX.
  let merchantAccount = new Map<string, string>();
  for (let id = 26; id <= 51; id++) {
    const value = fields.get(String(id));
    if (value === undefined) continue;
    const sub = parseTlv(value, `template ${id}`);
    if (sub.get("00")?.toLowerCase() === PIX_GUI) {
      merchantAccount = sub;
      break;
    }
  }
  const additionalRaw = fields.get("62");
  const additional = additionalRaw === undefined ? new Map<string, string>() : parseTlv(additionalRaw, "template 62");

  // The CRC must be the last object, and it covers its own "6304" header.
  const crcValid =
    /6304[0-9A-Fa-f]{4}$/.test(code) &&
    [...fields.keys()].at(-1) === "63" &&
    crc16ccittFalse(code.slice(0, -4)) === code.slice(-4).toUpperCase();
  return { fields, merchantAccount, additional, crcValid };
}

/**
 * The BR Code as a QR image, a `data:image/png;base64,...` URL (paymentDetails.qrCodeImage): error correction
 * M, 4 pixels per module, a quiet zone of 4 modules. The QR matrix is the `qrcode` library's,
 * with its mask choice redone by src/lib/qr-mask.ts (same choice, same modules; it was 0.45 of
 * the 0.77 ms this took). The PNG is written here as a 1-bit grayscale image, which is what a
 * QR code is. The library's own PNG renderer fills an RGBA buffer and tries five row filters
 * per row through pngjs: 4 of the 5 ms of CPU a Pix charge spent on its image
 * (bench/RESULTS.md). This takes about 0.4 ms (bench/qr.ts).
 */
export function qrCodeDataUrl(text: string): string {
  const { size, modules } = createQrMatrixM(text);
  const scale = 4;
  const margin = 4;
  const width = (size + 2 * margin) * scale;
  const rowBytes = Math.ceil(width / 8);
  // One filter byte (0: none) then the row's bits, 1 = white. Every pixel row of a module row
  // is the same, so each module row is drawn once and copied `scale` times.
  const raw = Buffer.alloc((rowBytes + 1) * width);
  const line = Buffer.alloc(rowBytes + 1);
  for (let y = 0; y < size + 2 * margin; y++) {
    line.fill(0xff);
    line[0] = 0;
    const r = y - margin;
    if (r >= 0 && r < size) {
      for (let c = 0; c < size; c++) {
        if (!modules[r * size + c]) continue;
        for (let x = (c + margin) * scale, end = x + scale; x < end; x++) line[1 + (x >> 3)]! &= ~(0x80 >> (x & 7));
      }
    }
    for (let k = 0; k < scale; k++) line.copy(raw, (y * scale + k) * (rowBytes + 1));
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(width, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // grayscale; compression, filter and interlace methods 0
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(raw)),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString("base64")}`;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, "ascii");
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}
