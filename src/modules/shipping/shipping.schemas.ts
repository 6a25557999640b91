import { Type } from "typebox";

// Wire shapes of the shipping integration. No response carries the client
// secret or a token.
const Cep = Type.String({ minLength: 8, maxLength: 9, description: "CEP: 00000-000 or 00000000.", examples: ["01310-100"] });

export const CredentialsBody = Type.Object({
  clientId: Type.String({ minLength: 1, maxLength: 200, description: "Client ID of the merchant's app at Melhor Envio." }),
  clientSecret: Type.String({ minLength: 1, maxLength: 500, description: "Client Secret of that app; stored sealed, never returned." }),
}, { additionalProperties: false, examples: [{ clientId: "7421", clientSecret: "q8Vt...secret" }] });

export const IntegrationStatus = Type.Object({
  connected: Type.Boolean({ description: "True while the integration is active." }),
  status: Type.Union([Type.Literal("active"), Type.Literal("inactive")]),
  provider: Type.Literal("melhor_envio"),
  hasCredentials: Type.Boolean(),
  clientId: Type.Union([Type.String(), Type.Null()]),
  originPostalCode: Type.Union([Type.String(), Type.Null()], { description: "Digits only." }),
  enabledServices: Type.Array(Type.Integer()),
  tokenExpiresAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
}, {
  examples: [{
    connected: true, status: "active", provider: "melhor_envio", hasCredentials: true, clientId: "7421",
    originPostalCode: "01310100", enabledServices: [1, 2], tokenExpiresAt: "2026-12-23T10:00:00.000Z",
  }],
});

export const AuthorizeResponse = Type.Object({
  url: Type.String({ description: "Send the merchant's browser here to approve feira at Melhor Envio." }),
  expiresAt: Type.String({ format: "date-time", description: "The state in the URL works once, until this time (10 minutes)." }),
}, {
  examples: [{
    url: "https://sandbox.melhorenvio.com.br/oauth/authorize?response_type=code&client_id=7421&redirect_uri=https%3A%2F%2Fpay.example.com%2Fv1%2Fshipping-provider%2Foauth%2Fcallback&scope=shipping-calculate&state=eyJ...",
    expiresAt: "2026-11-23T10:10:00.000Z",
  }],
});

export const CallbackQuery = Type.Object({
  code: Type.Optional(Type.String({ maxLength: 2000 })),
  state: Type.Optional(Type.String({ maxLength: 2000 })),
  error: Type.Optional(Type.String({ maxLength: 200 })),
  error_description: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const Service = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  company: Type.Object({ id: Type.Integer(), name: Type.String() }),
});
export const ServiceList = Type.Array(Service, {
  examples: [[{ id: 1, name: "PAC", company: { id: 1, name: "Correios" } }, { id: 2, name: "SEDEX", company: { id: 1, name: "Correios" } }]],
});

export const SettingsBody = Type.Object({
  originPostalCode: Cep,
  enabledServices: Type.Array(Type.Integer({ minimum: 1, maximum: 1_000_000 }), { maxItems: 100, description: "Service ids from GET /v1/shipping-provider/services." }),
}, { additionalProperties: false, examples: [{ originPostalCode: "01310-100", enabledServices: [1, 2] }] });
