import type { PaymentProcessor, ProcessorRecords } from "./processor.js";
import { createSandboxProcessor } from "./sandbox/sandbox.processor.js";

// Which processor serves which environment. Sandbox keys always get the simulator.
// Production keys get the adapter named by PAYMENT_PROCESSOR, or none (charges are then
// refused by the charges service); they are never served by the simulator, so a
// misconfigured deployment fails at startup instead of "accepting" real cards.

/** Adapters that may serve production, by name. Real acquirers are added here. */
const PRODUCTION_ADAPTERS: Readonly<Record<string, () => PaymentProcessor>> = {};

const SIMULATOR = "sandbox";

export interface ProcessorRegistry {
  forEnvironment(env: "sandbox" | "production"): PaymentProcessor | null;
}

export function createProcessorRegistry(opts: {
  productionProcessor: string | undefined;
  /** Replaces the built-in production adapters (tests, or a deployment's own adapter). */
  adapters?: Readonly<Record<string, () => PaymentProcessor>>;
  /** Where the sandbox simulator records its answers (a table in the app). */
  sandboxRecords?: ProcessorRecords;
}): ProcessorRegistry {
  const adapters = opts.adapters ?? PRODUCTION_ADAPTERS;
  const known = Object.keys(adapters).filter((name) => name !== SIMULATOR);
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
    throw new Error(`PAYMENT_PROCESSOR=${name} is not a known processor. Known production processors: ${knownText}.`);
  }

  const sandbox = createSandboxProcessor(opts.sandboxRecords);
  const production = factory ? factory() : null;
  if (production?.name === SIMULATOR) throw new Error("a production adapter must not be the sandbox simulator");
  return {
    forEnvironment: (env) => (env === "sandbox" ? sandbox : production),
  };
}
