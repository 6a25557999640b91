import { Type } from "typebox";

// Wire schemas of a submerchant's accounts at processors (provider settlement).

const Nullable = <T extends ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ProviderAccount = Type.Object({
  processor: Type.String({ description: "The processor's name as routes name it: sandbox, or a live processor (Pagar.me, Efí, Mercado Pago)." }),
  id: Nullable(Type.String({ description: "The account's id at the processor (Pagar.me's recipient id, Mercado Pago's user id); an Efí account number shows its last four digits only. null until the processor made it." })),
  status: Type.Union([Type.Literal("pending"), Type.Literal("active"), Type.Literal("refused")]),
  reason: Nullable(Type.String({ description: "The processor's reason for a refusal." })),
  details: Type.Record(Type.String(), Type.String(), { description: "What may be shown: a bank account's last four digits, the bank code." }),
  updatedAt: Type.String({ format: "date-time" }),
  authorizeUrl: Type.Optional(Type.String({ description: "Mercado Pago: where the seller authorizes the marketplace's application (the state in it expires)." })),
  authorizeUrlExpiresAt: Type.Optional(Type.String({ format: "date-time", description: "When the state in authorizeUrl expires (10 minutes); ask again for a new one." })),
}, {
  examples: [{ processor: "sandbox", id: "sbx_acct_01jd5a8w2n7q3k9x4c6v8b0m2p", status: "active", reason: null, details: { bankAccount: "****6789", bank: "341" }, updatedAt: "2026-12-01T12:00:00.000Z" }],
});

export const ProviderAccountList = Type.Object({
  data: Type.Array(ProviderAccount),
  hasMore: Type.Boolean({ description: "Always false: one account per processor, all in one page (as a customer's cards)." }),
}, { examples: [{ data: [{ processor: "sandbox", id: "sbx_acct_01jd5a8w2n7q3k9x4c6v8b0m2p", status: "active", reason: null, details: {}, updatedAt: "2026-12-01T12:00:00.000Z" }], hasMore: false }] });

const Digits = (description: string, pattern: string) => Type.String({ description, pattern, maxLength: 20 });

export const BankAccount = Type.Object({
  holderName: Type.String({ minLength: 1, maxLength: 30 }),
  holderDocument: Type.String({ minLength: 11, maxLength: 18, description: "The holder's CPF or CNPJ." }),
  bank: Type.String({ description: "The 3-digit bank code (COMPE).", maxLength: 20 }),
  branch: Type.String({ maxLength: 20 }),
  branchDigit: Type.Optional(Type.String({ maxLength: 20 })),
  account: Type.String({ maxLength: 20 }),
  accountDigit: Type.String({ maxLength: 20 }),
  type: Type.String({ description: "checking or savings.", maxLength: 20 }),
}, { additionalProperties: false });

export const OpenProviderAccountBody = Type.Object({
  processor: Type.String({ minLength: 1, maxLength: 32, description: "sandbox (sandbox keys), or a live processor configured for this environment (Pagar.me takes bankAccount, Efí account, Mercado Pago nothing: it answers authorizeUrl)." }),
  bankAccount: Type.Optional(BankAccount),
  account: Type.Optional(Digits("Efí: the seller's own Efí account number.", "^.*$")),
}, {
  additionalProperties: false,
  examples: [
    { processor: "sandbox" },
    { processor: "sandbox", bankAccount: { holderName: "Aurora Alimentos LTDA", holderDocument: "11222333000181", bank: "341", branch: "1234", account: "123456789", accountDigit: "0", type: "checking" } },
  ],
});

export const OAuthCallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 512 })),
  state: Type.Optional(Type.String({ maxLength: 500 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
});

export const ProcessorParams = Type.Object({ id: Type.String({ maxLength: 64 }), processor: Type.String({ maxLength: 32 }) });
