import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Type } from "typebox";
import { AppError } from "../../core/errors.js";
import { errors } from "../../http/schemas.js";
import { PROCESSORS, type ProcessorRegistry } from "../../processors/registry.js";

// The operator's view of the live processors: which methods each serves and where its circuit
// breaker stands. Breakers are kept in each process's memory (the router of that process
// counts its own calls), so the answer is the answering process's; /metrics labels the same
// numbers per process for a scraper that reaches every one.

// The example shows two of the known processors, whichever the registry lists first.
const [FIRST = "first", SECOND = "second"] = PROCESSORS.map((d) => d.name);
// The registration's example: the first processor that registers its notices through its API.
const REGISTERS = PROCESSORS.find((d) => d.notices?.register)?.name ?? "name";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const Instant = Type.Union([Type.String({ format: "date-time" }), Type.Null()]);

const Breaker = Type.Object({
  status: Type.Union([Type.Literal("closed"), Type.Literal("open"), Type.Literal("half_open")], {
    description: "closed: calls go through. open: the processor is skipped (a second processor of the route serves, else the charge fails with processor_unavailable). half_open: one trial call is let through; its success closes the breaker.",
  }),
  since: { ...Instant, description: "When the breaker took this status; null while it has been closed since the process started." },
  consecutiveFailures: Type.Integer({ description: "Failures in a row (no answer, a 5xx or a 429); the breaker opens at 5." }),
  failures: Type.Integer({ description: "Every failure this process recorded since it started." }),
  lastFailureAt: { ...Instant, description: "The most recent failure, or null." },
  retryAt: { ...Instant, description: "When an open breaker lets a trial call through; null when closed." },
}, { additionalProperties: false });

const LiveProcessor = Type.Object({
  name: Type.String({ description: `The processor's name, as PAYMENT_ROUTES writes it (${PROCESSORS.map((d) => d.name).join(", ")}).` }),
  routes: Type.Array(Type.Object({
    method: Type.String({ description: "A payment method, e.g. credit_card, pix, boleto." }),
    choice: Type.Union([Type.Literal("first"), Type.Literal("second")], { description: "second: tried only when the first provably made nothing (PAYMENT_ROUTES a|b)." }),
  }, { additionalProperties: false })),
  breaker: Breaker,
}, { additionalProperties: false });

const ProcessorsResponse = Type.Object({
  processors: Type.Array(LiveProcessor, { description: "Every processor PAYMENT_PROCESSOR or PAYMENT_ROUTES names; empty when live charges are refused." }),
  pid: Type.Integer({ description: "The process that answered: each API process keeps its own breakers." }),
}, {
  additionalProperties: false,
  examples: [{
    pid: 4242,
    processors: [
      {
        name: FIRST, routes: [{ method: "credit_card", choice: "first" }, { method: "boleto", choice: "first" }],
        breaker: { status: "open", since: "2026-11-25T12:00:00.000Z", consecutiveFailures: 5, failures: 7, lastFailureAt: "2026-11-25T12:00:00.000Z", retryAt: "2026-11-25T12:00:30.000Z" },
      },
      {
        name: SECOND, routes: [{ method: "credit_card", choice: "second" }, { method: "pix", choice: "first" }],
        breaker: { status: "closed", since: null, consecutiveFailures: 0, failures: 0, lastFailureAt: null, retryAt: null },
      },
    ],
  }],
});

const Registration = Type.Object({
  name: Type.String({ description: "Which registration (Efí: `pix`, `rec` for recurrences, `cobr` for recurring charges)." }),
  outcome: Type.Union([Type.Literal("registered"), Type.Literal("refused"), Type.Literal("unknown")], { description: "refused: the provider said no (message says why, e.g. the scope the application lacks); unknown: no answer to rely on (registering again is safe)." }),
  message: Type.Optional(Type.String({ description: "Why it is not registered." })),
}, { additionalProperties: false });

const Registered = Type.Object({
  processor: Type.String({ description: "The processor's name." }),
  webhookUrl: Type.String({ description: "The URL registered at the provider, with its secret masked (`***`)." }),
  registrations: Type.Optional(Type.Array(Registration, {
    description: "Each registration on its own, when the processor makes several (Efí: the Pix notices decide the answer's status; a recurrence's or recurring charge's registration refused for a missing scope is reported here, naming the scope).",
  })),
}, {
  additionalProperties: false,
  examples: [{
    processor: REGISTERS, webhookUrl: `https://pay.example.com/v1/processors/${REGISTERS}/webhooks?hmac=***&ignorar=`,
    registrations: [
      { name: "pix", outcome: "registered" },
      { name: "rec", outcome: "refused", message: "Efí refused the recurrences' notices (Pix Automático) (403, code AcessoNegado): the Efí application lacks the scope webhookrec.write; enable it in Efí's dashboard (API, the application's scopes) and register again" },
      { name: "cobr", outcome: "registered" },
    ],
  }],
});

const Name = Type.Object({ name: Type.String({ maxLength: 32, pattern: "^[a-z][a-z0-9_]{0,31}$", description: "The processor's name, as PAYMENT_ROUTES writes it." }) });

export function processorAdminRoutes(processors: Pick<ProcessorRegistry, "liveProcessors" | "registerNotices">, publicBaseUrl: string) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();
    app.get("/v1/admin/processors", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminListProcessors", tags: ["admin"], summary: "Live processors and their circuit breakers",
        description: "Each live processor the configuration names, the payment methods it serves (first choice or failover) and its circuit breaker. "
          + "Breakers live in each API process's memory: this answer is the answering process's (`pid`); `/metrics` exports the same per process.",
        response: { 200: ProcessorsResponse, ...errors(401) },
      },
    }, async () => ({
      pid: process.pid,
      processors: processors.liveProcessors().map((p) => ({
        name: p.name, routes: p.routes,
        breaker: {
          status: p.breaker.status, since: iso(p.breaker.since), consecutiveFailures: p.breaker.consecutiveFailures,
          failures: p.breaker.failures, lastFailureAt: iso(p.breaker.lastFailureAt), retryAt: iso(p.breaker.retryAt),
        },
      })),
    }));

    // Registration through the provider's API, for processors whose definition can (Efí's
    // webhook); the others' notice URL is set in their dashboards (the notice route says how).
    app.post("/v1/admin/processors/:name/webhook", {
      config: { auth: "admin" },
      schema: {
        operationId: "adminRegisterProcessorWebhook", tags: ["admin"], summary: "Register feira's notice URL at a processor",
        description: "Registers `PUBLIC_BASE_URL/v1/processors/{name}/webhooks` (with the processor's secret, e.g. Efí's `hmac` parameter) at the processor through its API. "
          + "Repeating it is safe: the registration is replaced. A processor that makes several registrations (Efí: Pix, recurrences, recurring charges) reports each in `registrations`: "
          + "the answer is 200 when the Pix one is registered, whatever the others; a refused one says why (for Efí, the scope the application lacks). 404: no processor of that name registers notices through its API (register them in its dashboard); "
          + "409: no route and no PAYOUT_PROVIDER names the processor (its settings are not loaded); 422: the processor refused (Efí probes the URL first, so PUBLIC_BASE_URL must reach feira); "
          + "503: the processor gave no answer to rely on (send it again).",
        params: Name,
        response: { 200: Registered, ...errors(401, 404, 409, 422, 503) },
      },
    }, async (req) => {
      const { name } = req.params;
      const r = await processors.registerNotices(name, publicBaseUrl);
      switch (r.outcome) {
        case "registered":
          return { processor: name, webhookUrl: r.webhookUrl, ...(r.parts ? { registrations: r.parts } : {}) };
        case "not_registrable":
          throw new AppError("not_found", `No processor named ${name} registers its notices through its API`);
        case "not_configured":
          throw new AppError("conflict", `Processor ${name} is not configured: neither PAYMENT_PROCESSOR, PAYMENT_ROUTES nor PAYOUT_PROVIDER names it`);
        case "refused":
          throw new AppError("validation_failed", r.message);
        case "unknown":
          throw new AppError("unavailable", r.message);
      }
    });
  };
}
