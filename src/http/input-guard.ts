import type { FastifyRequest } from "fastify";
import { holdsCardNumber } from "../lib/card-text.js";
import { cardFieldsOf } from "./card-fields.js";
import { AppError, type ErrorCode } from "../core/errors.js";

// What no route schema says and every route needs: PostgreSQL text refuses NUL characters and
// its UTF-8 refuses lone UTF-16 surrogates ("\ud800" is valid JSON), so either would fail an
// insert after the processor was called; and a value nested thousands of levels deep would
// overflow the stack of whatever recursive code (serializers, hashing) met it later. One walk,
// with an explicit stack, checks every string and key of headers, params and the query string
// (before authentication) and of the body (before schema validation and any route hook).
// The body walk also refuses a card number in any field but the few meant for one
// (card-fields.ts): otherwise it would be stored and served in the clear.
export const MAX_DEPTH = 32;

// With the u flag a well-formed pair is one code point; only a lone surrogate is in Cs.
const NUL_OR_LONE_SURROGATE = /\u0000|\p{Cs}/u;

interface Node {
  value: unknown;
  depth: number;
  parent: Node | null;
  key: string | null;
}

// Field names reach the message; a hostile one is shortened and made printable.
const printable = (key: string) => key.slice(0, 40).replace(/[^\x20-\x7e]/g, "?");

function pathOf(node: Node | null, root: string): string {
  const parts: string[] = [];
  for (let n = node; n && n.key !== null; n = n.parent) parts.push(printable(n.key));
  if (root) parts.push(root);
  return parts.reverse().join(".") || "body";
}

function badText(text: string): string | null {
  if (!NUL_OR_LONE_SURROGATE.test(text)) return null;
  return text.includes("\u0000") ? "NUL characters" : "invalid Unicode (a lone UTF-16 surrogate)";
}

export interface InputProblem {
  code: Extract<ErrorCode, "validation_failed" | "card_number_in_text">;
  message: string;
}

const problem = (message: string): InputProblem => ({ code: "validation_failed", message });
// Never the number itself: the message names the field only.
const cardIn = (what: string): InputProblem => ({
  code: "card_number_in_text",
  message: `${what} a card number; card numbers are accepted only in the card fields (paymentMethod.number, the card vault's number)`,
});

export interface InputGuardOptions {
  maxDepth?: number;
  /** Set for a body: card numbers are refused in every field but these dotted paths. */
  cardFields?: ReadonlySet<string>;
}

/**
 * The first problem of a parsed value, with a message naming the field, or null. `root` is the
 * prefix of the field names: "" for the body, "querystring", "params", "headers".
 */
export function findInputProblem(value: unknown, root: string, options: InputGuardOptions = {}): InputProblem | null {
  const { maxDepth = MAX_DEPTH, cardFields } = options;
  const stack: Node[] = [{ value, depth: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (v === null || typeof v !== "object") {
      const bad = typeof v === "string" ? badText(v) : null;
      if (bad) return problem(`${pathOf(node, root)} must not contain ${bad}`);
      if (cardFields && holdsCardNumber(v)) {
        const path = pathOf(node, root);
        if (!cardFields.has(path)) return cardIn(`${path} holds`);
      }
      continue;
    }
    if (node.depth >= maxDepth) {
      // Named by its top-level field (the full path would be 32 segments long).
      let top = node;
      while (top.parent?.key != null) top = top.parent;
      return problem(`${Array.isArray(value) ? root || "body" : pathOf(top, root)} nests deeper than ${maxDepth} levels`);
    }
    for (const key of Object.keys(v)) {
      const bad = badText(key);
      if (bad) return problem(`${pathOf(node, root)} has a field name with ${bad}`);
      if (cardFields && !Array.isArray(v) && holdsCardNumber(key)) return cardIn(`${pathOf(node, root)} has a field name that holds`);
      stack.push({ value: (v as Record<string, unknown>)[key], depth: node.depth + 1, parent: node, key });
    }
  }
  return null;
}

function check(value: unknown, root: string, cardFields?: ReadonlySet<string>): void {
  const found = findInputProblem(value, root, { cardFields });
  if (found) throw new AppError(found.code, found.message);
}

/** onRequest (src/http/hooks.ts): headers, params and query. Unknown routes are the not-found handler's. */
export async function guardHeadersAndQuery(req: FastifyRequest): Promise<void> {
  if (!req.routeOptions.url) return;
  check(req.headers, "headers");
  check(req.params, "params");
  check(req.query, "querystring");
}

/**
 * preValidation: the body as parsed (JSON, or a form). A multipart body (KYC uploads, a
 * dispute's evidence) is not read yet: its parts are guarded as they are read (multipart.ts).
 */
export async function guardBody(req: FastifyRequest): Promise<void> {
  if (req.routeOptions.url) check(req.body, "", cardFieldsOf(req.method, req.routeOptions.url));
}
