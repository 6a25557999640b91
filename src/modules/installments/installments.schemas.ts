import { Type } from "typebox";

// The wire shapes of the installment settings and the quote. The rate travels as a percent with
// at most two decimals (2.99) and is kept in hundredths of a percent (299).

export const InstallmentSettings = Type.Object({
  maxInstallments: Type.Integer({ minimum: 1, maximum: 12, description: "The most installments a card buyer may choose, 1 to 12." }),
  interestFreeInstallments: Type.Integer({ minimum: 1, maximum: 12, description: "Up to this many installments (1 to maxInstallments) the buyer pays the price; beyond them, the price table's interest." }),
  monthlyInterestPercent: Type.Number({ minimum: 0, maximum: 9.99, multipleOf: 0.01, description: "The monthly rate the buyer pays beyond the interest-free installments, 0 to 9.99 (2.99 is 2.99 % a month), at most two decimals." }),
}, { additionalProperties: false, examples: [{ maxInstallments: 12, interestFreeInstallments: 3, monthlyInterestPercent: 1.99 }] });

export const InstallmentPlan = Type.Object({
  installments: Type.Integer({ minimum: 1, maximum: 12 }),
  installmentAmount: Type.Number({ description: "Each installment, in currency units; the last one takes the rounding difference, so installments x installmentAmount may differ from totalAmount by a few cents." }),
  totalAmount: Type.Number({ description: "What the buyer pays in all, in currency units: the price when interestFree, else n x PMT of the price table rounded once, half up." }),
  interestFree: Type.Boolean(),
});

export const InstallmentQuery = Type.Object({
  amount: Type.Number({ exclusiveMinimum: 0, description: "The price, in currency units (49.9 is R$ 49,90)." }),
  currency: Type.String({ minLength: 3, maxLength: 3, description: "ISO 4217, e.g. BRL." }),
}, { additionalProperties: false });

export const InstallmentQuote = Type.Object({ data: Type.Array(InstallmentPlan) }, {
  examples: [{
    data: [
      { installments: 1, installmentAmount: 1000, totalAmount: 1000, interestFree: true },
      { installments: 2, installmentAmount: 500, totalAmount: 1000, interestFree: true },
      { installments: 3, installmentAmount: 333.33, totalAmount: 1000, interestFree: true },
      { installments: 4, installmentAmount: 262.56, totalAmount: 1050.24, interestFree: false },
    ],
  }],
});
