import type { FastifyInstance } from "fastify";
import type { ChargePage } from "../modules/charges/index.js";
import { pickLang } from "./panel/i18n/i18n.js";
import { renderChargeNotFound, renderChargePage } from "./charge.page.js";
import { secure } from "./web.routes.js";

// GET /r/{token}: the buyer's page of a charge, no key (the token is the key). Not part of the
// API document. The language: ?lang=pt-BR|en (what an e-mail in the merchant's language links
// with), else the browser's Accept-Language, else Portuguese, as the buyers are Brazilian.
export function chargePageRoutes(pages: Pick<ChargePage, "view">) {
  return async (app: FastifyInstance) => {
    const hidden = { config: { auth: "public" as const }, schema: { hide: true } };
    app.get<{ Params: { token: string }; Querystring: { lang?: string } }>("/r/:token", hidden, async (req, reply) => {
      const lang = pickLang(req, req.query.lang, "pt-BR");
      // The page shows the charge as it is now, and its link is the buyer's alone: no cache.
      secure(reply).header("cache-control", "no-store").type("text/html; charset=utf-8");
      const view = await pages.view(req.params.token);
      return view ? reply.send(await renderChargePage(view, lang)) : reply.code(404).send(renderChargeNotFound(lang));
    });
  };
}
