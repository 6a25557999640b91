import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../../core/errors.js";
import { errors } from "../../../http/schemas.js";
import { tooManyRequests } from "../../../http/lockout.js";
import type { IncomingNotice } from "../../../processors/definition.js";
import type { ProcessorRegistry } from "../../../processors/registry.js";
import type { NoticeGate } from "./provider-notices.js";

// Where the providers tell feira that something changed: one route for every processor, with
// the sub-paths some providers append (`/pix`). The processor's definition verifies the notice
// (a signature, a secret) and names what to read again; the body is never trusted, the payment
// is read again from the provider (provider-sync.ts). Unknown, repeated and late notices are
// answered 200 and change nothing twice, so a provider never retries a notice feira already has.

const Received = Type.Object({
  received: Type.Boolean({ description: "Always true: the notice was taken; the payment was read again from the provider when it names a live charge." }),
}, { description: "The notice was accepted.", examples: [{ received: true }] });

const LIMIT_TEXT = "Each notice that names a live charge makes feira read the payment at the provider: notices for one charge that arrive together share one read, "
  + "and reads are limited per client address and in all (PROCESSOR_WEBHOOK_LOOKUPS_PER_ADDRESS, PROCESSOR_WEBHOOK_LOOKUPS_PER_SECOND); "
  + "past them the notice gets a 429 with Retry-After, and the provider's retry or feira's reconciliation applies the change.";

const Name = Type.String({ maxLength: 32, description: "The processor's name, as PAYMENT_ROUTES writes it." });
const Params = Type.Object({ name: Name });
const SubPathParams = Type.Object({
  name: Name,
  "*": Type.String({ maxLength: 64, description: "What the provider appended to the registered URL (`pix`, `rec`, `cobr`)." }),
});
// The provider's parameters (a reference, a topic, a secret): its definition reads them.
const Query = Type.Object({}, { additionalProperties: true });
const Body = Type.Optional(Type.Unknown({
  description: "The provider's notice; only the references its definition takes from it are used, and the objects they name are read again from the provider.",
  examples: [{ type: "order.paid", data: { id: "or_56GXnk6T0eU88qMm", code: "ch_01jd3k2m4nabcdefghjkmnpqrs" } }],
}));

const first = (v: unknown): string | undefined => {
  const one = Array.isArray(v) ? v[0] : v;
  return typeof one === "string" ? one : undefined;
};

function incoming(req: FastifyRequest, subPath: string): IncomingNotice {
  const query = Object.fromEntries(Object.entries((req.query ?? {}) as Record<string, unknown>).map(([k, v]) => [k, first(v)]));
  return { subPath: subPath.replace(/^\/+|\/+$/g, ""), query, header: (name) => first(req.headers[name.toLowerCase()]), body: req.body, now: new Date() };
}

/** What reads back the payout transfers a notice names (by the processor's transfer ids). */
export type PayoutNotices = (processor: string, transferIds: readonly string[]) => Promise<void>;

/** What reads back the Pix Automático recurrences a notice names (the subscriptions' live mandates). */
export type MandateNotices = (processor: string, refs: { mandates?: readonly string[] }) => Promise<void>;


/** What reads back the disputes a notice names (by the provider's dispute ids). */
export type DisputeNotices = (processor: string, disputeRefs: readonly string[], account?: string) => Promise<void>;

export function providerWebhookRoutes(
  gate: NoticeGate, processors: Pick<ProcessorRegistry, "definitions" | "readNotice">, payouts?: PayoutNotices, mandates?: MandateNotices,
  disputes?: DisputeNotices,
) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    const each = processors.definitions.flatMap((d) => (d.notices ? [`- ${d.notices.description}`] : []));

    /** Verifies and reads a notice, then reads what it names within the gate's bounds (past them, a 429 the provider retries). */
    async function receive(req: FastifyRequest, reply: FastifyReply, name: string, subPath: string) {
      const reading = processors.readNotice(name, incoming(req, subPath));
      if (!reading) throw new AppError("not_found", `No processor named ${name} takes notices`);
      if (reading.outcome === "refused") throw new AppError(reading.status === 401 ? "unauthorized" : "validation_failed", reading.message);
      const admission = await gate.notice(name, reading.payments, req.ip);
      if (!admission.admitted) throw tooManyRequests(reply, admission.retryInMs, "Too many payment notices to read now; send this one again later");
      // A payout's transfer is read back only when a payout of this processor is still being sent under that id.
      if (payouts && reading.payouts?.length) await payouts(name, reading.payouts);
      // A recurrence is read back only when a live mandate of feira's has that reference.
      if (mandates && reading.mandates?.length) await mandates(name, { mandates: reading.mandates });
      // A dispute (Mercado Pago's chargeback) is read back and applied to the live charge of its payment.
      if (disputes && reading.disputes?.length) await disputes(name, reading.disputes, reading.account);
      return { received: true };
    }

    const common = { tags: ["charges"], querystring: Query, body: Body, response: { 200: Received, ...errors(401, 404, 422, 429) } };
    app.post("/v1/processors/:name/webhooks", {
      config: { auth: "public", idempotent: false },
      schema: {
        ...common, params: Params, operationId: "processorNotice", summary: "A processor's notice",
        description: "Register `$PUBLIC_BASE_URL/v1/processors/{name}/webhooks` at the provider; a path the provider appends to it (`/pix`) is taken too. "
          + "The processor's definition checks that the notice comes from the provider (else 401, and nothing changes) and names what to read again; "
          + "the body is never trusted. A name that takes no notices is 404.\n\n" + each.join("\n") + "\n\n" + LIMIT_TEXT,
      },
    }, async (req, reply) => receive(req, reply, req.params.name, ""));
    // The same notice with what a provider appends to the registered URL (`/pix`, `/rec`, `/cobr`);
    // documented by the route above (OpenAPI has no wildcard path parameter).
    app.post("/v1/processors/:name/webhooks/*", {
      config: { auth: "public", idempotent: false },
      schema: { ...common, params: SubPathParams, hide: true },
    }, async (req, reply) => receive(req, reply, req.params.name, req.params["*"]));
  };
}
