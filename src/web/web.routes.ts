import { readFileSync } from "node:fs";
import type { FastifyInstance, FastifyReply } from "fastify";
import { AppError } from "../core/errors.js";
import type { PaymentLinkService } from "../modules/payment-links/payment-links.service.js";
import { renderCheckout, renderNotFound } from "./checkout.page.js";
import { PAGE_CSP } from "./page.js";

// The hosted checkout page and the hosted pages' same-origin assets (the buyer's page of a charge,
// charge-page.routes.ts, uses them too). Not part of the API document.
const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), "utf8");

/** The hosted pages' security headers: the CSP of page.ts and no sniffing, referrer or framing. */
export function secure(reply: FastifyReply): FastifyReply {
  return reply
    .header("content-security-policy", PAGE_CSP)
    .header("x-content-type-options", "nosniff")
    .header("referrer-policy", "no-referrer")
    .header("x-frame-options", "DENY")
    .header("cross-origin-opener-policy", "same-origin");
}

export function webRoutes(links: Pick<PaymentLinkService, "checkoutView">) {
  const script = asset("checkout.js");
  const style = asset("checkout.css");
  const chargeScript = asset("charge.js");
  return async (app: FastifyInstance) => {
    const hidden = { config: { auth: "public" as const }, schema: { hide: true } };

    app.get("/pay/assets/checkout.js", hidden, async (_req, reply) =>
      secure(reply).header("cache-control", "public, max-age=300").type("text/javascript; charset=utf-8").send(script));
    app.get("/pay/assets/charge.js", hidden, async (_req, reply) =>
      secure(reply).header("cache-control", "public, max-age=300").type("text/javascript; charset=utf-8").send(chargeScript));
    app.get("/pay/assets/checkout.css", hidden, async (_req, reply) =>
      secure(reply).header("cache-control", "public, max-age=300").type("text/css; charset=utf-8").send(style));

    app.get<{ Params: { id: string } }>("/pay/:id", hidden, async (req, reply) => {
      secure(reply).header("cache-control", "no-store").type("text/html; charset=utf-8");
      try {
        return reply.send(renderCheckout(await links.checkoutView(req.params.id)));
      } catch (err) {
        if (err instanceof AppError && err.code === "not_found") return reply.code(404).send(renderNotFound());
        throw err;
      }
    });
  };
}
