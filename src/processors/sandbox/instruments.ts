import { randomUUID } from "node:crypto";
import { buildBoleto } from "../../lib/boleto.js";
import { formatMajor } from "../../lib/money.js";
import { buildPixBrCode, crc16ccittFalse, qrCodeDataUrl } from "../../lib/pix.js";
import { MAX_AMOUNT_MINOR, METHOD_CURRENCIES, type AsyncMethodType } from "../methods.js";
import type { AsyncInstrument, AuthorizeInput } from "../processor.js";
import {
  accountCheckDigit, asciiText, calendarDate, derivedDigits, endOfDay, isIsoDate, oxxoReference, pixTxid, speiClabe, tlv,
} from "./references.js";

// Payment instructions of the methods that settle later, as the sandbox hands them out.
// Every code and number is well-formed (valid CRCs and check digits) so that clients can
// test their parsers and renderers against it. Sandbox charges are paid only through
// POST /v1/sandbox/charges/{id}/pay. Well-formed is not harmless, though: the Pix code
// carries the merchant's own key, and a CLABE or account number may exist at a real bank,
// so a tester who pays them with real money sends real money.

export { clabeControlDigit, isValidClabe, luhnCheckDigit, oxxoReference, pixTxid } from "./references.js";

export type InstructionsInput = AuthorizeInput & { instrument: AsyncInstrument };
type Details = Record<string, unknown>;
export interface Instructions {
  details: Details;
  expiresAt: Date;
}

/**
 * Boleto due dates are days of the payer's calendar: a boleto is payable until the end of
 * its due date in Brasília time (America/Sao_Paulo), and that instant is its expiresAt.
 */
export const BOLETO_TIME_ZONE = "America/Sao_Paulo";
// Boletos must be registered with the bank (CIP/Nuclea) before they can be paid, so a
// sandbox boleto is refused by every real bank even though its digits are valid.
const BOLETO_BANK = { code: "001", name: "Banco do Brasil S.A." };
const BOLETO_CONVENIO = "2718281"; // 7-digit convênio, BB layout "nosso número" = convênio + 10 digits
const BOLETO_CARTEIRA = "17";
// ISO date of the last day the FEBRABAN due-date factor can express (lib/boleto.ts).
const BOLETO_LAST_DUE_DATE = "2049-10-13";
const DEFAULT_BOLETO_INSTRUCTIONS = "Não receber após o vencimento.";

const TRANSFER_BANK = { code: "001", name: "Banco do Brasil S.A.", ispb: "00000000", branch: "0001" };
const SPEI_BANK_NAME = "STP (Sistema de Transferencias y Pagos)";
const QR_GUI = "br.com.feira.qr";

const secondsLater = (now: Date, seconds: number) => new Date(now.getTime() + seconds * 1000);

/**
 * Problem with a requested boleto due date, or null: a real YYYY-MM-DD day, not before
 * today in Brasília time, and within the FEBRABAN factor cycles. The charges service calls
 * this to answer 422 before authorizing; buildInstructions throws on the same problems.
 */
export function checkBoletoDueDate(dueDate: string, now: Date): string | null {
  if (!isIsoDate(dueDate)) return "dueDate must be a calendar date written YYYY-MM-DD";
  if (dueDate < calendarDate(now, BOLETO_TIME_ZONE)) return "dueDate must not be before today (America/Sao_Paulo)";
  if (dueDate > BOLETO_LAST_DUE_DATE) return `dueDate must not be after ${BOLETO_LAST_DUE_DATE}`;
  return null;
}

function optionalString(options: Record<string, unknown>, name: string): string | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (typeof value !== "string") throw new Error(`${name} must be a string`);
  return value;
}

/** The charge's Pix BR Code (a Pix, or the Pix on a boleto), under the txid derived from the charge. */
function chargeBrCode(input: InstructionsInput): { qrCode: string; txid: string } {
  const txid = pixTxid(input.chargeId);
  const qrCode = buildPixBrCode({
    key: input.merchant.pixKey,
    merchantName: input.merchant.name,
    merchantCity: input.merchant.city,
    amountMinor: input.amountMinor,
    txid,
  });
  return { qrCode, txid };
}

/**
 * A Pix; with a due date (the Central Bank's cobv) it is payable until the end of its
 * payableUntil in Brasília time, whatever expiresIn says. The sandbox's code carries the amount
 * itself: a live cobv's code is dynamic and its location answers the amount due on the day.
 */
async function pix(input: InstructionsInput, expiresAt: Date) {
  const { qrCode, txid } = chargeBrCode(input);
  const dueDate = optionalString(input.instrument.options, "dueDate");
  return { qrCode, qrCodeImage: await qrCodeDataUrl(qrCode), expiresAt: expiresAt.toISOString(), txid, ...(dueDate ? { dueDate } : {}) };
}

/** When a charge stops being payable: a Pix with a due date at the end of its last day, else expiresIn on. */
function expiryOf(input: InstructionsInput): Date {
  const { options, expiresIn } = input.instrument;
  const dueDate = input.instrument.kind === "pix" ? optionalString(options, "dueDate") : undefined;
  if (dueDate) return endOfDay(optionalString(options, "payableUntil") ?? dueDate, BOLETO_TIME_ZONE);
  return secondsLater(input.now, expiresIn);
}

function openFinance(input: InstructionsInput, expiresAt: Date) {
  const bankIspb = optionalString(input.instrument.options, "bankIspb");
  if (bankIspb !== undefined && !/^\d{8}$/.test(bankIspb)) throw new Error("bankIspb must be 8 digits");
  return {
    authorizationUrl: `${input.publicBaseUrl}/v1/sandbox/open-finance/${encodeURIComponent(input.chargeId)}`,
    // In Open Finance Brasil the payer's bank (the ASPSP) issues consent ids as URNs.
    consentId: `urn:feira:consent:${randomUUID()}`,
    ...(bankIspb === undefined ? {} : { bankIspb }),
    expiresAt: expiresAt.toISOString(),
  };
}

/**
 * A wallet-app QR code in EMV merchant-presented mode: the layout of a BR Code, with the
 * merchant account template under feira's own GUI (so no Pix app takes it for a Pix) and
 * the charge id as its reference. Dynamic (01 = 12): it pays this one charge.
 */
export function buildWalletQrCode(input: Pick<InstructionsInput, "chargeId" | "amountMinor" | "merchant">): string {
  const payload =
    tlv("00", "01") +
    tlv("01", "12") +
    tlv("26", tlv("00", QR_GUI) + tlv("01", input.chargeId)) +
    tlv("52", "0000") +
    tlv("53", "986") +
    tlv("54", formatMajor(input.amountMinor, "BRL")) +
    tlv("58", "BR") +
    tlv("59", asciiText(input.merchant.name, 25, "merchant name")) +
    tlv("60", asciiText(input.merchant.city, 15, "merchant city")) +
    tlv("62", tlv("05", pixTxid(input.chargeId))) +
    "6304";
  return payload + crc16ccittFalse(payload);
}

async function qrCode(input: InstructionsInput, expiresAt: Date) {
  if (input.amountMinor > MAX_AMOUNT_MINOR.qr_code!) throw new Error("qr_code amount does not fit EMV field 54");
  const code = buildWalletQrCode(input);
  return { qrCode: code, qrCodeImage: await qrCodeDataUrl(code), expiresAt: expiresAt.toISOString() };
}

/** What the bank's clerk reads on a boleto that says nothing: its terms after the due date. */
function defaultInstructions(options: Record<string, unknown>, dueDate: string): string {
  const until = optionalString(options, "payableUntil");
  if (!until || until === dueDate) return DEFAULT_BOLETO_INSTRUCTIONS;
  const pct = (v: unknown) => (typeof v === "number" ? String(v).replace(".", ",") : null);
  const fine = pct((options.fine as { percent?: unknown } | undefined)?.percent);
  const interest = pct((options.interest as { monthlyPercent?: unknown } | undefined)?.monthlyPercent);
  const terms = [fine && `multa de ${fine}%`, interest && `juros de ${interest}% ao mês`].filter(Boolean).join(" e ");
  const [y, m, d] = until.split("-");
  return `${terms ? `Após o vencimento, ${terms}. ` : ""}Não receber após ${d}/${m}/${y}.`;
}

async function boleto(input: InstructionsInput): Promise<Instructions> {
  const { options, expiresIn } = input.instrument;
  const requested = optionalString(options, "dueDate");
  const dueDate = requested ?? calendarDate(secondsLater(input.now, expiresIn), BOLETO_TIME_ZONE);
  const problem = checkBoletoDueDate(dueDate, input.now);
  if (problem) throw new Error(`boleto ${problem}`);
  const ourNumber = BOLETO_CONVENIO + derivedDigits("boleto", input.chargeId, 10);
  const built = buildBoleto({
    bankCode: BOLETO_BANK.code,
    amountMinor: input.amountMinor,
    dueDate: new Date(`${dueDate}T00:00:00Z`),
    // Banco do Brasil's campo livre for 7-digit convênios: six zeros, nosso número, carteira.
    ourNumber: "000000" + ourNumber + BOLETO_CARTEIRA,
  });
  // Payable until its last day (payableUntil, when the boleto carries a fine or interest).
  const expiresAt = endOfDay(optionalString(options, "payableUntil") ?? dueDate, BOLETO_TIME_ZONE);
  // The boleto with Pix: the same charge also answers a Pix under its own txid; whichever the
  // payer uses first settles it.
  const { qrCode: pixQrCode, txid } = chargeBrCode(input);
  return {
    expiresAt,
    details: {
      barcode: built.barcode,
      digitableLine: built.digitableLine,
      formattedLine: built.formattedLine,
      dueDate: built.dueDate,
      bankCode: BOLETO_BANK.code,
      bankName: BOLETO_BANK.name,
      ourNumber,
      beneficiary: input.merchant.name,
      instructions: optionalString(options, "instructions")?.trim() || defaultInstructions(options, dueDate),
      pixQrCode,
      pixQrCodeImage: await qrCodeDataUrl(pixQrCode),
      txid,
      expiresAt: expiresAt.toISOString(),
    },
  };
}

function bankTransfer(input: InstructionsInput, expiresAt: Date) {
  // One virtual account per merchant; the reference tells the charges apart, so it is the
  // charge id itself (unique by construction), upper-cased to survive bank forms.
  const account = derivedDigits("bank-transfer-account", input.merchant.id, 8);
  return {
    bankCode: TRANSFER_BANK.code,
    bankName: TRANSFER_BANK.name,
    ispb: TRANSFER_BANK.ispb,
    branch: TRANSFER_BANK.branch,
    accountNumber: `${account}-${accountCheckDigit(account)}`,
    accountType: "checking",
    accountHolder: input.merchant.name,
    reference: input.chargeId.replace(/[^A-Za-z0-9]/g, "").toUpperCase(),
    expiresAt: expiresAt.toISOString(),
  };
}

function oxxo(input: InstructionsInput, expiresAt: Date) {
  const reference = oxxoReference(input.chargeId);
  return { reference, barcode: reference, barcodeFormat: "code128", expiresAt: expiresAt.toISOString() };
}

function spei(input: InstructionsInput, expiresAt: Date) {
  // SPEI's "referencia numérica" has 7 digits and must not be zero.
  const reference = derivedDigits("spei-reference", input.chargeId, 7).replace(/^0000000$/, "0000001");
  return {
    clabe: speiClabe(input.chargeId),
    bankName: SPEI_BANK_NAME,
    beneficiary: input.merchant.name,
    reference,
    expiresAt: expiresAt.toISOString(),
  };
}

function pse(input: InstructionsInput, expiresAt: Date) {
  const bankCode = optionalString(input.instrument.options, "bankCode");
  if (!bankCode || !/^\d{1,10}$/.test(bankCode)) throw new Error("pse bankCode is required and must be digits");
  // The CUS (Código Único de Seguimiento) is PSE's numeric transaction id; never starts with 0.
  const digits = derivedDigits("pse-cus", input.chargeId, 10);
  return {
    redirectUrl: `${input.publicBaseUrl}/v1/sandbox/pse/${encodeURIComponent(input.chargeId)}`,
    bankCode,
    cus: String((Number(digits[0]) % 9) + 1) + digits.slice(1),
    expiresAt: expiresAt.toISOString(),
  };
}

/**
 * A period's debit under a Pix Automático mandate: no code for the payer to read, since the
 * payer's bank debits it on its due date (a day in Brasília time, as the Central Bank's cobr's
 * calendario.dataDeVencimento). The txid is the cobr's, as a live one would carry.
 */
function pixAutomatico(input: InstructionsInput, expiresAt: Date) {
  const dueDate = optionalString(input.instrument.options, "dueDate");
  if (!dueDate || !isIsoDate(dueDate)) throw new Error("pix_automatico dueDate must be a calendar date written YYYY-MM-DD");
  const mandateId = optionalString(input.instrument.options, "mandateId");
  return { dueDate, ...(mandateId ? { mandateId } : {}), txid: pixTxid(input.chargeId), expiresAt: expiresAt.toISOString() };
}

// A Record, so that a new method kind does not compile until it has its instructions.
const BUILDERS: Record<Exclude<AsyncMethodType, "boleto">, (input: InstructionsInput, expiresAt: Date) => Details | Promise<Details>> = {
  pix,
  open_finance: openFinance,
  qr_code: qrCode,
  bank_transfer: bankTransfer,
  oxxo,
  spei,
  pse,
  pix_automatico: pixAutomatico,
};

/** Payment instructions of one charge, and when they stop being payable. */
export async function buildInstructions(input: InstructionsInput): Promise<Instructions> {
  const kind: AsyncMethodType = input.instrument.kind;
  const currencies = METHOD_CURRENCIES[kind];
  if (currencies !== "any" && !currencies.includes(input.currency)) {
    throw new Error(`${kind} charges must be in ${currencies.join(" or ")}, got ${input.currency}`);
  }
  const { expiresIn } = input.instrument;
  if (!Number.isInteger(expiresIn) || expiresIn < 1) throw new Error(`expiresIn must be a positive integer of seconds, got ${expiresIn}`);
  if (kind === "boleto") return boleto(input);

  const expiresAt = expiryOf(input);
  const details = await BUILDERS[kind](input, expiresAt);
  return { details, expiresAt };
}
