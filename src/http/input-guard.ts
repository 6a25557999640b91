import type { FastifyInstance } from "fastify";
import { AppError } from "./errors.js";

// What no route schema says and every route needs: PostgreSQL text refuses NUL characters and
// its UTF-8 refuses lone UTF-16 surrogates ("\ud800" is valid JSON), so either would fail an
// insert after the processor was called; and a value nested thousands of levels deep would
// overflow the stack of whatever recursive code (serializers, hashing) met it later. One walk,
// with an explicit stack, checks every string and key of headers, params and the query string
// (before authentication) and of the body (before schema validation and any route hook).
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

/**
 * The first problem of a parsed value, as a message naming the field, or null. `root` is the
 * prefix of the field names: "" for the body, "querystring", "params", "headers".
 */
export function findInputProblem(value: unknown, root: string, maxDepth = MAX_DEPTH): string | null {
  const stack: Node[] = [{ value, depth: 0, parent: null, key: null }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const v = node.value;
    if (typeof v === "string") {
      const bad = badText(v);
      if (bad) return `${pathOf(node, root)} must not contain ${bad}`;
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    if (node.depth >= maxDepth) {
      // Named by its top-level field (the full path would be 32 segments long).
      let top = node;
      while (top.parent?.key != null) top = top.parent;
      return `${Array.isArray(value) ? root || "body" : pathOf(top, root)} nests deeper than ${maxDepth} levels`;
    }
    for (const key of Object.keys(v)) {
      const bad = badText(key);
      if (bad) return `${pathOf(node, root)} has a field name with ${bad}`;
      stack.push({ value: (v as Record<string, unknown>)[key], depth: node.depth + 1, parent: node, key });
    }
  }
  return null;
}

function check(value: unknown, root: string): void {
  const problem = findInputProblem(value, root);
  if (problem) throw new AppError("validation_failed", problem);
}

export function registerInputGuard(app: FastifyInstance): void {
  // Registered before the auth, rate-limit and idempotency hooks, so a refused request has
  // touched nothing. Unknown routes are left to the not-found handler.
  app.addHook("onRequest", async (req) => {
    if (!req.routeOptions.url) return;
    check(req.headers, "headers");
    check(req.params, "params");
    check(req.query, "querystring");
  });
  app.addHook("preValidation", async (req) => {
    if (req.routeOptions.url) check(req.body, "");
  });
}
