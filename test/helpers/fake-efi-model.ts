import { randomBytes } from "node:crypto";
import { normalizeDocument } from "../../src/lib/documents.js";
import { crc16ccittFalse } from "../../src/lib/pix.js";
import { makeEndToEndId } from "../../src/lib/pix-end-to-end-id.js";
import { randomAlnum, type Reply } from "./fake-provider.js";

// The Efí fake's vocabulary: its two error shapes, the input checks the API Pix states, ids
// and dates on the fake's clock, and dynamic BR Codes. The rule for errors (docs/processors.md,
// "The Efí fake"): where Efí documents an error for a case, its own `{nome, mensagem}` body;
// where only the Central Bank's OpenAPI does, that problem+json (RFC 7807) body.

export type Obj = Record<string, unknown>;
export const EFI_ISPB = "09089356";

/** Efí's own error body, e.g. 409 txid_duplicado. */
export const efiError = (status: number, nome: string, mensagem: string): Reply => ({ status, body: { nome, mensagem } });

/** The Central Bank's problem+json, e.g. 400 PixDevolucaoInvalida; `violacoes` name the property at fault. */
export function problem(status: number, type: string, title: string, detail: string, violacoes: { razao: string; propriedade: string }[] = []): Reply {
  const body: Obj = { type: `https://pix.bcb.gov.br/api/v2/error/${type}`, title, status, detail };
  if (violacoes.length > 0) body.violacoes = violacoes;
  return { status, body, headers: { "content-type": "application/problem+json" } };
}
export const notFound = () => problem(404, "NaoEncontrado", "Não Encontrado", "Entidade não encontrada.");

export const obj = (v: unknown): Obj | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : undefined);
export const TXID = /^[a-zA-Z0-9]{26,35}$/;
export const ID_1_35 = /^[a-zA-Z0-9]{1,35}$/;
const VALOR = /^\d{1,10}\.\d{2}$/;

/** "12.34" -> 1234 cents, or undefined unless it is the API's `\d{1,10}\.\d{2}` and above zero. */
export function cents(v: unknown): number | undefined {
  if (typeof v !== "string" || !VALOR.test(v)) return undefined;
  const n = Number(v.replace(".", ""));
  return n > 0 ? n : undefined;
}
export const valor = (c: number) => `${Math.floor(c / 100)}.${String(c % 100).padStart(2, "0")}`;

/** Why `devedor` is not `{cpf | cnpj, nome}` with a valid document, in Efí's words; undefined when it is. */
export function devedorProblem(d: unknown, required: boolean): string | undefined {
  const dev = obj(d);
  if (!dev) return required || d !== undefined ? "Campo devedor é obrigatório e deve conter cpf ou cnpj e nome" : undefined;
  for (const type of ["cpf", "cnpj"] as const) {
    if (dev[type] === undefined) continue;
    if (typeof dev[type] !== "string" || !normalizeDocument(type, dev[type]).ok) return `Documento ${type.toUpperCase()} em devedor.${type} é inválido`;
    return typeof dev.nome === "string" && dev.nome.trim() !== "" ? undefined : "Campo devedor.nome é obrigatório quando há cpf ou cnpj";
  }
  return "Campo devedor deve conter cpf ou cnpj";
}

// ---- the clock: every date the fake writes or compares comes from the `now` option ----

export type Clock = () => Date;
export const iso = (d: Date) => d.toISOString();
/** The calendar date in Brasília (UTC-3, no daylight saving since 2019): Pix Automático's dates are local dates. */
export const brDate = (d: Date) => new Date(d.getTime() - 3 * 3_600_000).toISOString().slice(0, 10);
export function daysBetween(fromDate: string, toDate: string): number {
  return Math.round((Date.parse(`${toDate}T00:00:00Z`) - Date.parse(`${fromDate}T00:00:00Z`)) / 86_400_000);
}
export const isDate = (v: unknown): v is string => typeof v === "string" && /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(`${v}T00:00:00Z`)) && new Date(`${v}T00:00:00Z`).toISOString().startsWith(v);

// ---- ids ----

/** An end-to-end id (E...) or a devolução's return id (D...), 32 characters, dated by the fake's clock. */
export const e2eId = (at: Date, ispb = "18236120") => makeEndToEndId(ispb, at, randomAlnum(11));
export const rtrId = (at: Date) => `D${e2eId(at, EFI_ISPB).slice(1)}`;
/** "R" + R|N (retries allowed or not) + ISPB + yyyyMMdd + 11 characters, as the OpenAPI's RecId. */
export const recId = (at: Date, retries: boolean) => `R${retries ? "R" : "N"}${EFI_ISPB}${brDate(at).replace(/-/g, "")}${randomAlnum(11)}`;
export const solicRecId = (at: Date) => `SC${EFI_ISPB}${brDate(at).replace(/-/g, "")}${randomAlnum(11)}`;
export const newTxid = () => randomBytes(16).toString("hex");
export const locationUrl = (kind: "cob" | "rec") => `pix.fake-efi.example/qr/v2/${kind === "rec" ? "rec/" : ""}${randomBytes(16).toString("hex")}`;

// ---- BR Codes (EMV QRCPS, dynamic: the payload is read at the location) ----

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, "0")}${value}`;
const GUI = "br.gov.bcb.pix";

/**
 * A dynamic BR Code: field 26 carries the cob's location (25), field 80 the recurrence's, as
 * the OpenAPI's dadosQR examples do (journey 2: 80 only; journey 3: 26 and 80), and 62-05 is
 * "***" because the txid travels in the payload, not in the code. The CRC is CRC16-CCITT-FALSE.
 */
export function brCode(input: { cobLocation?: string; recLocation?: string; merchantName: string; merchantCity: string }): string {
  let s = tlv("00", "01");
  if (input.cobLocation) s += tlv("01", "12");
  s += tlv("26", tlv("00", GUI) + (input.cobLocation ? tlv("25", input.cobLocation) : ""));
  s += tlv("52", "0000") + tlv("53", "986") + tlv("58", "BR") + tlv("59", input.merchantName.slice(0, 25)) + tlv("60", input.merchantCity.slice(0, 15));
  s += tlv("62", tlv("05", "***"));
  if (input.recLocation) s += tlv("80", tlv("00", GUI) + tlv("25", input.recLocation));
  s += "6304";
  return s + crc16ccittFalse(s);
}
