import type { AccountCapability } from "../accounts.js";

// The simulator's sellers' accounts: active at once under an id derived from the submerchant, so
// provider settlement runs offline end to end.

export const sandboxAccounts: AccountCapability = {
  check: () => [],
  shown: () => ({}),
  open: async (holder) => ({ outcome: "active", externalId: `acct_sandbox_${holder.code}`, providerStatus: "active" }),
  find: async (holder) => ({ outcome: "active", externalId: `acct_sandbox_${holder.code}`, providerStatus: "active" }),
  // The simulator pays each seller exactly the shares feira computed and keeps no books: what it
  // holds for a seller is what feira booked there, so its reconciliation always agrees.
  // The simulator pays on any schedule feira can express.
  transfers: { check: () => null, apply: async () => ({ outcome: "applied" }) },
  balance: async ({ currency, booked }) => ({ outcome: "read", amountMinor: booked, currency }),
};
