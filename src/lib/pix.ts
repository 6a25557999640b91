// Pix BR Code ("copia e cola") for charges: EMV QRCPS merchant-presented mode, static form
// (key in 26-01, amount in 54, txid in 62-05), as described in the BCB BR Code manual.
// Generation is delegated to @brazilian-utils (which folds text to ASCII, truncates name and
// city to 25/15 and normalises the key to its DICT form); the CRC and the TLV reader below
// are written independently so that tests and the sandbox can check its output.
// Subpath imports: the package root bundles ~650 kB of tables we do not need.
import { generatePixPayload } from "@brazilian-utils/brazilian-utils/generate-pix-payload";
import { getPixKeyInfo } from "@brazilian-utils/brazilian-utils/get-pix-key-info";
import { toDataURL } from "qrcode";

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

export function qrCodeDataUrl(text: string): Promise<string> {
  return toDataURL(text, { errorCorrectionLevel: "M" });
}
