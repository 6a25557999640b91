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

const NONE: ReadonlySet<string> = new Set();
const sets = new Map(Object.entries(ALLOWED).map(([route, fields]) => [route, new Set(fields)]));

/** The dotted body paths of a route (its method and pattern) that may hold a card number. */
export function cardFieldsOf(method: string, routePattern: string): ReadonlySet<string> {
  return sets.get(`${method} ${routePattern}`) ?? NONE;
}

/** Every route with such fields, for the test that keeps this list true to the routes. */
export const CARD_FIELD_ROUTES: readonly string[] = Object.keys(ALLOWED);
