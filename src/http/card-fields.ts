// The only request body fields where a card number may be sent, by route: the fields meant for
// card data, and secrets that are stored hashed or sealed and never shown (a password may be any
// digits). Every other body field, key or value, is free text that a person or a program can fill,
// and the input guard (input-guard.ts) refuses it when it holds a card number: it would be stored
// and served in the clear. A route added with a card field must be listed here; the test
// test/foundation/card-text.test.ts checks that every route named here exists and that every
// body field documented as a card number or a wallet token is listed.
const CARD_METHOD = ["paymentMethod.number", "paymentMethod.wallet.token"];

const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  // Card data: the PAN (encrypted in the vault, otherwise kept only as firstSix/lastFour) and
  // the wallet token that stands for one (sandbox tokens are tok_sandbox_<card number>).
  "POST /v1/customers/:id/cards": ["number"],
  "POST /v1/charges": CARD_METHOD,
  "POST /v1/payment-links/:id/charge": CARD_METHOD,
  "POST /v1/subscriptions": ["paymentMethod.number"],
  // Secrets: hashed (passwords) or sealed (the Melhor Envio client secret), never returned.
  "POST /v1/admin/merchants": ["password"],
  "POST /v1/auth/login": ["password"],
  "POST /v1/shipping-provider/credentials": ["clientSecret"],
};

// Bodies that are a provider's word, not anyone's free text: feira stores and serves none of it
// (the route reads the references it names, and the payment is read again from the provider).
// A provider's payment carries digit runs of its own (gateway and transaction ids, end-to-end
// ids, nosso numero) that now and then pass Luhn: refusing them would leave a real payment
// unapplied until the reconciliation, and the provider retrying a notice that can never pass.
const PROVIDER_NOTICES: ReadonlySet<string> = new Set([
  "POST /v1/processors/:name/webhooks",
  "POST /v1/processors/:name/webhooks/*",
]);

const NONE: ReadonlySet<string> = new Set();
const sets = new Map(Object.entries(ALLOWED).map(([route, fields]) => [route, new Set(fields)]));

/**
 * The dotted body paths of a route (its method and pattern) that may hold a card number;
 * undefined for a provider's notice, whose body is not checked for card numbers.
 */
export function cardFieldsOf(method: string, routePattern: string): ReadonlySet<string> | undefined {
  const route = `${method} ${routePattern}`;
  if (PROVIDER_NOTICES.has(route)) return undefined;
  return sets.get(route) ?? NONE;
}

/** Every route with such fields, and every provider notice route, for the test that keeps these lists true to the routes. */
export const CARD_FIELD_ROUTES: readonly string[] = Object.keys(ALLOWED);
export const PROVIDER_NOTICE_ROUTES: readonly string[] = [...PROVIDER_NOTICES];
