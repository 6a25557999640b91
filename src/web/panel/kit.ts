import type { FastifyReply, FastifyRequest } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { LoginThrottle } from "../../http/rate-limit.js";
import type { Services } from "../../services.js";
import type { Html } from "../html.js";
import type { FieldErrors, Flash, PanelCtx, Upload } from "./context.js";
import type { SessionKeys } from "./session.js";

// What every page of the panel is given (panel.routes.ts makes it, areas.ts hands it to each
// area): types only, so that the areas never import the file that mounts them.

export interface PanelDeps {
  services: Services;
  config: Config;
  /** Where the sessions are kept (session-store.ts). */
  db: Db;
  loginThrottle: LoginThrottle;
}

export interface PanelKit {
  deps: PanelDeps;
  keys: SessionKeys;
  /** Sends a page: the security headers, no caching. */
  html(reply: FastifyReply, page: Html, status?: number): FastifyReply;
  /** 303 to `to`, carrying a flash (a notice, a secret shown once) in a sealed cookie. */
  redirect(reply: FastifyReply, p: PanelCtx, to: string, flash?: Flash): FastifyReply;
}

/**
 * A signed-in panel request as a route sees it: the page context (merchant, environment, CSRF
 * token, language; made once by the session check), the path's parameters, and the form (the
 * POST body, or a list page's query) already read through the route's form schema.
 */
export interface PanelRequest<F, P = Record<never, string>> {
  p: PanelCtx;
  params: P;
  form: F;
  /** The fields the form's schema refused, by name; null when it took them all. */
  errors: FieldErrors | null;
  /** The form as sent, to show a refused form again. */
  sent: Record<string, unknown>;
  /** The files of a multipart form, by field name (empty file inputs left out). */
  files: Record<string, Upload[]>;
  url: string;
  req: FastifyRequest;
}
