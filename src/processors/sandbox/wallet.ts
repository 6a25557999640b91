import { luhnValid } from "../../lib/cards.js";

// Sandbox stand-in for Apple Pay / Google Pay tokens. A real processor decrypts the wallet's
// payment data (a network token and cryptogram); the simulator accepts tokens that carry a
// test card number in the clear, so wallet charges go through the same card table.
const TOKEN = /^tok_sandbox_(\d{16})$/;
// Wallet tokens carry their own expiry; these cards are valid for three more years.
const EXPIRY_YEARS = 3;

export interface DecodedWalletCard {
  number: string;
  expirationMonth: string;
  expirationYear: string;
}

/** `tok_sandbox_<16-digit Luhn-valid PAN>` -> that card, expiring 12/(this year + 3); else null. */
export function decodeSandboxWalletToken(token: string, now: Date = new Date()): DecodedWalletCard | null {
  const number = TOKEN.exec(token)?.[1];
  if (number === undefined || !luhnValid(number)) return null;
  return { number, expirationMonth: "12", expirationYear: String(now.getUTCFullYear() + EXPIRY_YEARS) };
}
