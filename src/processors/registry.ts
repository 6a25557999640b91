import type { BreakerView } from "./breaker.js";
import type { MandateCapability } from "./capabilities.js";
import type { IncomingNotice, LiveAdapter, NoticeReading, NoticeRegistrationResult, ProcessorDefinition } from "./definition.js";
import { efi } from "./efi/efi.definition.js";
import { mercadopago } from "./mercadopago/mercadopago.definition.js";
import { pagarme } from "./pagarme/pagarme.definition.js";
import type { ChargeRoute, PaymentMethodType, PaymentProcessor, PayoutCapability, ProcessorRecords } from "./processor.js";
import { createRouterProcessor, type RouterProcessor } from "./router.js";
import type { LiveProcessorConfig, RouteTable } from "./routing.js";
import { createSandboxProcessor } from "./sandbox/sandbox.processor.js";

/**
 * The live processors feira knows: one line per processor, its folder's definition. This is the
 * only place outside a processor's folder that names it; configuration, routing, failover, the
 * notice route and the admin read these definitions.
 */
export const PROCESSORS: readonly ProcessorDefinition[] = [
  pagarme,
  mercadopago,
  efi,
];

// Which processor serves which environment. Sandbox keys always get the simulator. Production
// keys get the live router over the adapters PAYMENT_PROCESSOR or PAYMENT_ROUTES name (config.ts
// checked the names and settings at start), or none (charges are then refused by the charges
// service); they are never served by the simulator, so a misconfigured deployment fails at
// startup instead of "accepting" real cards.

type Environment = "sandbox" | "production";

const SIMULATOR = "sandbox";

export interface ProcessorRegistry {
  /** The definitions this registry was built from (PROCESSORS, or a deployment's or test's own). */
  readonly definitions: readonly ProcessorDefinition[];
  /** What a new charge of the environment goes through: the simulator, or the live router; null when no live route is configured. */
  route(env: Environment): ChargeRoute | null;
  /**
   * The adapter that served a charge (its processor column), which every later call about it must
   * use; the simulator for sandbox; null when that processor is not configured in this process.
   */
  adapter(env: Environment, processorName: string | null | undefined): PaymentProcessor | null;
  /**
   * What sends the environment's payouts by Pix, and its name (recorded on the payout, so that its
   * transfer is read back where it was sent): the simulator in the sandbox, PAYOUT_PROVIDER's
   * adapter in production; null when no processor does (the operator transfers itself).
   */
  payouts(env: Environment): PayoutSender | null;
  /**
   * Production Pix Automático: the mandates of the processor `pix_automatico=` names, and its name;
   * null in the sandbox (the simulated payer's bank) and when no route names one.
   */
  mandates(env: Environment): { processor: string; capability: MandateCapability } | null;
  /** Reads a notice of the named processor with its options; undefined when no processor of that name takes notices. */
  readNotice(name: string, notice: IncomingNotice): NoticeReading | undefined;
  /**
   * Registers feira's notice URL at the named processor with its options; `not_registrable` when
   * no processor of that name registers notices through its API, `not_configured` when no route
   * names it (its settings were not checked at start).
   */
  registerNotices(name: string, publicBaseUrl: string): Promise<NoticeRegistrationResult | { outcome: "not_registrable" | "not_configured" }>;
  /** Each live adapter's circuit breaker. */
  breakers(): Record<string, BreakerView>;
  /** Each configured live processor: the methods it serves and its breaker, in this process. */
  liveProcessors(): LiveProcessorView[];
  /** Closes the live adapters' connection pools (the app's onClose); idempotent. */
  close(): Promise<void>;
}

export interface PayoutSender extends PayoutCapability {
  readonly processor: string;
}

export interface LiveProcessorView {
  name: string;
  /** The methods whose route names it: first choice, or second (tried only as failover). */
  routes: { method: PaymentMethodType; choice: "first" | "second" }[];
  breaker: BreakerView;
}

export function createProcessorRegistry(opts: {
  /** The live routes and each processor's options (config.live); without routes, production charges are refused. */
  live?: LiveProcessorConfig;
  /** The processors this deployment knows; PROCESSORS unless a deployment or a test adds its own. */
  definitions?: readonly ProcessorDefinition[];
  /** Where the sandbox simulator records its answers (a table in the app). */
  sandboxRecords?: ProcessorRecords;
}): ProcessorRegistry {
  const definitions = opts.definitions ?? PROCESSORS;
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const sandbox = createSandboxProcessor(opts.sandboxRecords);
  // A production Pix Automático period's charge (pix_automatico) goes through the charge path to
  // the processor whose mandates serve it (`pix_automatico=`): its debit is made under its mandate.
  const routes: RouteTable = { ...opts.live?.routes, ...(opts.live?.mandateProvider ? { pix_automatico: [opts.live.mandateProvider] } : {}) };
  const optionsOf = (name: string) => opts.live?.processors[name] ?? {};
  const limits = { timeoutMs: opts.live?.timeoutMs ?? 15_000, connections: opts.live?.maxWaiting ?? 1024 };

  const named = [...new Set(Object.values(routes).flatMap((r) => r ?? []))];
  const payoutProvider = opts.live?.payoutProvider;
  const mandateProvider = opts.live?.mandateProvider;
  const adapters = new Map<string, LiveAdapter>();
  // The payout and mandate providers' adapters exist even when no charge route names them.
  for (const name of [...new Set([...named, ...[payoutProvider, mandateProvider].filter((n): n is string => Boolean(n))])]) {
    const def = byName.get(name);
    if (!def) throw new Error(`a route names "${name}", which is not a known processor (known: ${[...byName.keys()].join(", ")})`);
    const adapter = def.create(optionsOf(name), limits);
    // The charge records the adapter's name: it must be the one its later calls are routed by.
    if (adapter.name === SIMULATOR) throw new Error("a production adapter must not be the sandbox simulator");
    if (adapter.name !== name) throw new Error(`processor ${name}'s adapter calls itself ${adapter.name}`);
    adapters.set(name, adapter);
  }
  const router: RouterProcessor | null = named.length > 0
    ? createRouterProcessor({ routes, adapters: Object.fromEntries(named.map((n) => [n, adapters.get(n)!])) })
    : null;
  const senderOf = (processor: string, adapter: PaymentProcessor | undefined): PayoutSender | null => {
    const capability = adapter?.payouts;
    return capability ? { processor, oneAtATime: capability.oneAtATime === true, send: (t) => capability.send(t), read: (t) => capability.read(t) } : null;
  };
  const sandboxPayouts = senderOf(SIMULATOR, sandbox);
  const livePayouts = payoutProvider ? senderOf(payoutProvider, adapters.get(payoutProvider)) : null;
  if (payoutProvider && !livePayouts) throw new Error(`PAYOUT_PROVIDER names ${payoutProvider}, whose adapter sends no payouts`);
  const liveMandates = mandateProvider ? adapters.get(mandateProvider)?.mandates : undefined;
  if (mandateProvider && !liveMandates) throw new Error(`pix_automatico names ${mandateProvider}, whose adapter serves no mandates`);
  let closing: Promise<void> | undefined;

  return {
    definitions,
    route: (env) => (env === "sandbox" ? sandbox : router),
    adapter(env, processorName) {
      if (env === "sandbox") return sandbox;
      return processorName ? adapters.get(processorName) ?? null : null;
    },
    // Without PAYOUT_PROVIDER, live payouts are approved by the admin with the end-to-end id of the operator's transfer.
    payouts: (env) => (env === "sandbox" ? sandboxPayouts : livePayouts),
    mandates: (env) => (env === "production" && mandateProvider && liveMandates ? { processor: mandateProvider, capability: liveMandates } : null),
    readNotice(name, notice) {
      return byName.get(name)?.notices?.read(notice, optionsOf(name));
    },
    async registerNotices(name, publicBaseUrl) {
      const register = byName.get(name)?.notices?.register;
      if (!register) return { outcome: "not_registrable" };
      if (!adapters.has(name)) return { outcome: "not_configured" };
      return register(optionsOf(name), { publicBaseUrl, limits });
    },
    breakers: () => router?.breakers() ?? {},
    liveProcessors() {
      const breakers = router?.breakers() ?? {};
      return named.map((name) => ({
        name,
        routes: Object.entries(routes).flatMap(([method, names]) => {
          const at = (names ?? []).indexOf(name);
          return at < 0 ? [] : [{ method: method as PaymentMethodType, choice: at === 0 ? "first" as const : "second" as const }];
        }),
        breaker: breakers[name]!,
      }));
    },
    close() {
      closing ??= Promise.all([...adapters.values()].map((a) => a.close?.())).then(() => undefined);
      return closing;
    },
  };
}
