import type { FastifyReply } from "fastify";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { LoginThrottle } from "../../http/rate-limit.js";
import type { Services } from "../../services.js";
import type { Flash, PanelCtx } from "./context.js";
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
  html(reply: FastifyReply, body: string, status?: number): FastifyReply;
  /** 303 to `to`, carrying a flash (a notice, a secret shown once) in a sealed cookie. */
  redirect(reply: FastifyReply, p: PanelCtx, to: string, flash?: Flash): FastifyReply;
}
