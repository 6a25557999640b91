import { lastFour, type AccountCapability, type AccountState } from "../accounts.js";

// A seller's own Efí account for Efí's Pix split (docs/processors.md): the split configuration
// sends the seller's share to `favorecido.{cnpj, conta}`, the seller's CNPJ and Efí account
// number. Efí's API has no call that reads another account holder's account, so the account is
// active once given; Efí refuses a split configuration naming an account that does not match
// the CNPJ, and that refusal reaches the charge.

const ACCOUNT = /^\d{1,12}$/;

const active = (account: string): AccountState => ({ outcome: "active", externalId: account, providerStatus: "given" });

export const efiAccounts: AccountCapability = {
  check: (body) => (typeof body.account === "string" && ACCOUNT.test(body.account) ? [] : ["account must be the seller's Efí account number (1 to 12 digits)"]),
  shown: (body): Record<string, string> => (typeof body.account === "string" ? { account: lastFour(body.account) } : {}),
  open: async (_holder, body) => active(String(body.account)),
  find: async (_holder, externalId) => (externalId ? active(externalId) : { outcome: "not_found" }),
};
