import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Static, TObject } from "typebox";
import type { PanelCtx } from "./context.js";
import { readForm } from "./forms.js";
import type { PanelRequest } from "./kit.js";

// How a panel area declares its routes: each handler is given the typed request (kit.ts
// PanelRequest) instead of reading the session, the body and the query ad hoc, and each route
// names its form's schema, so no handler sees a field its form does not declare.

const HIDDEN = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };

/** The parameters a path declares: "/panel/charges/:id/sandbox/:action" has id and action. */
export type ParamsOf<U extends string> = U extends `${string}:${infer Name}/${infer Rest}`
  ? { [K in Name]: string } & ParamsOf<`/${Rest}`>
  : U extends `${string}:${infer Name}` ? { [K in Name]: string } : Record<never, string>;

type Handler<S extends TObject, P> = (r: PanelRequest<Static<S>, P>, reply: FastifyReply) => Promise<unknown>;

/** The page context the session check made; a panel route reached without it is a wiring bug. */
function contextOf(req: FastifyRequest): PanelCtx {
  if (!req.panel) throw new Error(`panel route ${req.url} ran without a session`);
  return req.panel;
}

export function panelRouter(app: FastifyInstance) {
  function route<S extends TObject, P>(method: "GET" | "POST", url: string, schema: S, handler: Handler<S, P>) {
    app.route({
      method, url, ...HIDDEN,
      handler: async (req, reply) => {
        const p = contextOf(req);
        const input = method === "GET" ? req.query : req.body;
        const read = readForm(schema, input, p.t);
        return handler({ p, params: req.params as P, ...read, files: req.panelFiles ?? {}, url: req.url, req }, reply);
      },
    });
  }
  return {
    /** A page; `query` is the schema of its query string (its filters and cursors). */
    get: <U extends string, S extends TObject>(url: U, query: S, handler: Handler<S, ParamsOf<U>>) => route("GET", url, query, handler),
    /** A form's target; `form` is the schema of its fields. */
    post: <U extends string, S extends TObject>(url: U, form: S, handler: Handler<S, ParamsOf<U>>) => route("POST", url, form, handler),
  };
}
