import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { errors } from "../../../http/schemas.js";
import { toMajor } from "../../../lib/money.js";
import type { SandboxActions } from "./sandbox-actions.js";

// The pages a payer reaches from a sandbox Open Finance authorizationUrl or PSE redirectUrl:
// a stand-in for the bank, with Approve and Reject. Keyless like a real bank redirect, and
// only for sandbox charges.
const METHODS = { "open-finance": "open_finance", pse: "pse" } as const;
const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<meta name="viewport" content="width=device-width,initial-scale=1">
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}</style>
</head><body><h1>${escape(title)}</h1>${body}</body></html>`;
}

export function sandboxBankRoutes(charges: Pick<SandboxActions, "findSandbox" | "bankDecision">) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.addContentTypeParser("application/x-www-form-urlencoded", { parseAs: "string" }, (_req, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    });
    const Html = (body: string, title = "Sandbox bank") => Type.String({ description: "An HTML page.", examples: [page(title, body)] });
    const CHARGE = "ch_01jd3mg9m1p3r5t7w9y1a3c5e7";
    const Params = Type.Object({ bank: Type.Union([Type.Literal("open-finance"), Type.Literal("pse")]), id: Type.String({ maxLength: 64 }) });

    app.get("/v1/sandbox/:bank/:id", {
      config: { auth: "public" },
      schema: {
        operationId: "sandboxBankPage", tags: ["sandbox"], summary: "Sandbox bank page (Open Finance / PSE)",
        description: "Where a sandbox authorizationUrl or redirectUrl leads: shows the charge and lets the payer approve or reject it.",
        params: Params,
        response: {
          200: Html(`<p>Pay <strong>80 BRL</strong> for charge <code>${CHARGE}</code>?</p><form method="post"><button name="decision" value="approve">Approve</button><button name="decision" value="reject">Reject</button></form>`),
          404: Html("<p>No such sandbox payment.</p>", "Not found"),
        },
      },
    }, async (req, reply) => {
      const c = await charges.findSandbox(req.params.id);
      reply.type("text/html; charset=utf-8");
      if (!c || c.paymentMethodType !== METHODS[req.params.bank]) return reply.code(404).send(page("Not found", "<p>No such sandbox payment.</p>"));
      const amount = `${toMajor(c.amount, c.currency)} ${c.currency}`;
      const form = c.status === "pending"
        ? `<form method="post"><button name="decision" value="approve">Approve</button><button name="decision" value="reject">Reject</button></form>`
        : `<p>This payment is ${escape(c.status)}.</p>`;
      return page("Sandbox bank", `<p>Pay <strong>${escape(amount)}</strong> for charge <code>${escape(c.id)}</code>?</p>${form}`);
    });

    app.post("/v1/sandbox/:bank/:id", {
      config: { auth: "public", idempotent: false },
      schema: {
        operationId: "sandboxBankDecision", tags: ["sandbox"], summary: "Approve or reject on the sandbox bank page",
        params: Params,
        body: Type.Object({ decision: Type.Union([Type.Literal("approve"), Type.Literal("reject")]) }, { examples: [{ decision: "approve" }] }),
        response: { 200: Html("<p>The payment is paid.</p>"), ...errors(404, 409, 422) },
      },
    }, async (req, reply) => {
      const c = await charges.bankDecision(req.params.id, METHODS[req.params.bank], req.body.decision);
      return reply.type("text/html; charset=utf-8").send(page("Sandbox bank", `<p>The payment is ${escape(c.status)}.</p>`));
    });
  };
}
