import { Type } from "typebox";

// The balance as the wire shows it: GET /v1/balance (the caller's) and GET
// /v1/submerchants/{id}/balance (a master's submerchant's), one schema for both.

export const Amounts = Type.Array(Type.Object({ currency: Type.String(), amount: Type.Integer({ description: "Cents (minor units)." }) }));
const AtProvider = Type.Array(Type.Object({
  processor: Type.String({ description: "The processor that holds the money in the seller's own account there (provider settlement)." }),
  currency: Type.String(),
  amount: Type.Integer({ description: "Cents (minor units): the shares it paid to the seller, less what refunds and disputes took back." }),
}));

export const Balance = Type.Object({ available: Amounts, pending: Amounts, atProvider: AtProvider }, {
  examples: [{ available: [{ currency: "BRL", amount: 4761 }], pending: [{ currency: "BRL", amount: 11881 }], atProvider: [{ processor: "sandbox", currency: "BRL", amount: 9000 }] }],
});

/** A master's submerchant's: the balance and what split rules with hold: true keep held. */
export const SubmerchantBalance = Type.Object({ available: Amounts, pending: Amounts, held: Amounts, atProvider: AtProvider }, {
  examples: [{ available: [{ currency: "BRL", amount: 4761 }], pending: [{ currency: "BRL", amount: 11881 }], held: [{ currency: "BRL", amount: 2500 }], atProvider: [{ processor: "sandbox", currency: "BRL", amount: 9000 }] }],
});
