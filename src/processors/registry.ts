import type { LiveProcessorConfig } from "../config.js";
import type { BreakerView } from "./breaker.js";
import { createMercadoPagoProcessor } from "./mercadopago/mercadopago.processor.js";
import { createPagarmeProcessor } from "./pagarme/pagarme.processor.js";
import type { PaymentMethodType, PaymentProcessor, ProcessorRecords } from "./processor.js";
import { createRouterProcessor, type RouterProcessor } from "./router.js";
import { PROCESSOR_METHODS, type ProcessorName } from "./routing.js";
import { createSandboxProcessor } from "./sandbox/sandbox.processor.js";

// Which processor serves which environment. Sandbox keys always get the simulator.
// Production keys get the live router over the adapters PAYMENT_PROCESSOR or PAYMENT_ROUTES
// name (config.ts checked the names and credentials at start), or none (charges are then
// refused by the charges service); they are never served by the simulator, so a
// misconfigured deployment fails at startup instead of "accepting" real cards.

type Closable = PaymentProcessor & { close?(): Promise<void> };

/** The live adapters, by name, built from the operator's configuration. */
const PRODUCTION_ADAPTERS: Readonly<Record<ProcessorName, (live: LiveProcessorConfig) => Closable>> = {
  pagarme: (live) => createPagarmeProcessor({
    secretKey: live.pagarme.secretKey, baseUrl: live.pagarme.apiUrl, timeoutMs: live.timeoutMs, connections: live.maxWaiting,
  }),
  mercadopago: (live) => createMercadoPagoProcessor({
    accessToken: live.mercadopago.accessToken, publicKey: live.mercadopago.publicKey,
    baseUrl: live.mercadopago.apiUrl, timeoutMs: live.timeoutMs, connections: live.maxWaiting,
  }),
};

const SIMULATOR = "sandbox";

export interface ProcessorRegistry {
  /**
   * The processor of an environment: for a production charge already made, `processorName`
   * (its processor column) gives the adapter that served it, which every later call must use.
   */
  forEnvironment(env: "sandbox" | "production", processorName?: string | null): PaymentProcessor | null;
  /** Each live adapter's circuit breaker. */
  breakers(): Record<string, BreakerView>;
  /** Each configured live processor: the methods it serves and its breaker, in this process. */
  liveProcessors(): LiveProcessorView[];
  /** Closes the live adapters' connection pools (the app's onClose); idempotent. */
  close(): Promise<void>;
}

export interface LiveProcessorView {
  name: ProcessorName;
  /** The methods whose route names it: first choice, or second (tried only as failover). */
  routes: { method: PaymentMethodType; choice: "first" | "second" }[];
  breaker: BreakerView;
}

export function createProcessorRegistry(opts: {
  productionProcessor: string | undefined;
  /** The live routes and accounts (config.live); without routes, production charges are refused. */
  live?: LiveProcessorConfig;
  /** Replaces the built-in production adapters (tests, or a deployment's own adapter). */
  adapters?: Readonly<Record<string, () => PaymentProcessor>>;
  /** Where the sandbox simulator records its answers (a table in the app). */
  sandboxRecords?: ProcessorRecords;
}): ProcessorRegistry {
  const sandbox = createSandboxProcessor(opts.sandboxRecords);
  const routes = opts.live?.routes ?? {};
  if (!opts.adapters && Object.keys(routes).length > 0) return liveRegistry(sandbox, opts.live!);

  const adapters: Readonly<Record<string, () => PaymentProcessor>> = opts.adapters ?? {};
  const known = opts.adapters ? Object.keys(adapters).filter((name) => name !== SIMULATOR) : Object.keys(PROCESSOR_METHODS);
  const knownText = known.length > 0 ? known.join(", ") : "none yet";
  const name = opts.productionProcessor;

  if (name === SIMULATOR) {
    throw new Error(
      `PAYMENT_PROCESSOR=${SIMULATOR} is not allowed: the simulator never serves production keys. ` +
      `Known production processors: ${knownText}; leave PAYMENT_PROCESSOR unset to refuse production charges.`,
    );
  }
  const factory = name === undefined ? undefined : Object.hasOwn(adapters, name) ? adapters[name] : undefined;
  if (name !== undefined && factory === undefined) {
    const why = !opts.adapters && Object.hasOwn(PROCESSOR_METHODS, name) ? "has no configuration (its credentials are read by loadConfig)" : "is not a known processor";
    throw new Error(`PAYMENT_PROCESSOR=${name} ${why}. Known production processors: ${knownText}.`);
  }

  const production = factory ? factory() : null;
  if (production?.name === SIMULATOR) throw new Error("a production adapter must not be the sandbox simulator");
  return {
    forEnvironment: (env) => (env === "sandbox" ? sandbox : production),
    breakers: () => ({}),
    liveProcessors: () => [],
    close: async () => undefined,
  };
}

function liveRegistry(sandbox: PaymentProcessor, live: LiveProcessorConfig): ProcessorRegistry {
  const named = [...new Set(Object.values(live.routes).flatMap((r) => r ?? []))];
  const adapters: Partial<Record<ProcessorName, Closable>> = {};
  for (const name of named) adapters[name] = PRODUCTION_ADAPTERS[name](live);
  const router: RouterProcessor = createRouterProcessor({ routes: live.routes, adapters });
  let closing: Promise<void> | undefined;
  return {
    forEnvironment(env, processorName) {
      if (env === "sandbox") return sandbox;
      if (processorName && Object.hasOwn(adapters, processorName)) return adapters[processorName as ProcessorName]!;
      return router;
    },
    breakers: () => router.breakers(),
    liveProcessors() {
      const breakers = router.breakers();
      return named.map((name) => ({
        name,
        routes: Object.entries(live.routes).flatMap(([method, names]) => {
          const at = (names ?? []).indexOf(name);
          return at < 0 ? [] : [{ method: method as PaymentMethodType, choice: at === 0 ? "first" as const : "second" as const }];
        }),
        breaker: breakers[name]!,
      }));
    },
    close() {
      closing ??= Promise.all(Object.values(adapters).map((a) => a.close?.())).then(() => undefined);
      return closing;
    },
  };
}
