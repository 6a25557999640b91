import { createBreaker, DEFAULT_BREAKER, type Breaker, type BreakerOptions, type BreakerView } from "./breaker.js";
import type { AuthorizeInput, AuthorizeResult, ChargeRoute, PaymentMethodType, PaymentProcessor, PaymentState } from "./processor.js";
import { sellersAt, sendsSplitFor, takesSplit } from "./provider-split.js";
import { breakerFailure, failoverDecision, routeFor, type ProcessorName, type RouteTable } from "./routing.js";

// The live processor of production keys: per method, the adapter its route names, with a
// circuit breaker per adapter and the provably safe failover of `a|b` (routing.ts). What was
// charged is served from then on by the adapter that made it (the charge records its name):
// the router only authorizes (it is a ChargeRoute, not an adapter), and the registry hands out
// the adapter by name for the rest.

export interface RouterProcessor extends ChargeRoute {
  /** Each adapter's breaker, for metrics and the admin. */
  breakers(): Record<string, BreakerView>;
}

/** No adapter of the route could be asked (every breaker open): nothing was sent anywhere. */
const ALL_SKIPPED: AuthorizeResult = {
  outcome: "failed", reason: "processing_error", providerCode: "processor_unavailable",
  failure: { kind: "connection_refused", message: "every processor of this payment method is failing; try again later" },
};

export function createRouterProcessor(opts: {
  routes: RouteTable;
  adapters: Readonly<Partial<Record<ProcessorName, PaymentProcessor>>>;
  now?: () => number;
  breaker?: BreakerOptions;
}): RouterProcessor {
  const now = opts.now ?? Date.now;
  const breakers = new Map<string, Breaker>();
  for (const name of Object.keys(opts.adapters)) breakers.set(name, createBreaker(now, opts.breaker ?? DEFAULT_BREAKER));
  const adapterOf = (name: ProcessorName): PaymentProcessor => {
    const a = opts.adapters[name];
    if (!a) throw new Error(`no adapter for ${name}, which a route names`);
    return a;
  };
  const route = (method: PaymentMethodType) => routeFor(opts.routes, method);
  const methodOf = (input: AuthorizeInput): PaymentMethodType =>
    input.instrument.kind === "card" ? "credit_card" : input.instrument.kind;

  async function authorize(input: AuthorizeInput): Promise<AuthorizeResult & { servedBy?: string }> {
    const names = route(methodOf(input));
    if (input.resumed) {
      const earlier = await madeEarlier(input, names);
      if (earlier) return earlier;
    }
    let last: (AuthorizeResult & { servedBy: string }) | undefined;
    for (const [i, name] of names.entries()) {
      const adapter = adapterOf(name);
      const breaker = breakers.get(name)!;
      // A skipped processor was sent nothing: the next one may serve. The second choice also
      // has its own rules (a Pix at some providers needs a phone); when it refuses them, the
      // first's answer stands.
      if (!breaker.allow()) continue;
      // Provider settlement: a processor where a seller of the split has no account cannot
      // take the charge (the charge path checked the first; a failover skips the others).
      if (!takesSplit(input.split, name, sendsSplitFor(adapter.sendsSplit, methodOf(input)), adapter.splitSellers)) continue;
      if (i > 0 && adapter.checkInstrument(instrumentCheck(input)) !== null) break;
      const r = await adapter.authorize(input);
      breaker.record(r.outcome === "unknown" && breakerFailure(r.failure.kind) ? "failure" : "success");
      last = { ...r, servedBy: name };
      if (r.outcome !== "unknown" || i === names.length - 1) return last;
      let decision = failoverDecision(r);
      // A payment made on a seller's account is found with the seller's account only (sellersAt).
      if (!decision.tryNext && decision.lookupFirst) decision = failoverDecision(r, await adapter.lookup({ chargeId: input.chargeId, ...sellersAt(input.split, name) }));
      // The payment may exist at this processor: pending here, settled by lookup at it.
      if (!decision.tryNext) return last;
    }
    // Every breaker open: nothing was sent anywhere. The charge still names a processor of its
    // route (its first), never the router, which serves no later call.
    return last ?? { ...ALL_SKIPPED, servedBy: names[0] };
  }

  /**
   * A resumed charge may already be a payment at any processor of its route: the attempt that
   * died may have failed over (the first answered 5xx and had nothing, the second took the
   * payment, the process was killed before its commit). Authorizing again would start at the
   * first processor, healthy by now, and take a second payment. So every processor of the route
   * is asked (lookups, whatever its breaker says) and a payment found is adopted, served by the
   * processor that holds it. A processor that cannot answer may hold one too: the charge is
   * then left unknown (pending) at it, for the reconciliation, and nothing new is authorized.
   * Only when every processor says it has nothing does the authorization run as usual. A payment
   * found is adopted through its adapter's `adopt` when it declares one (the steps of the
   * authorization the earlier attempt did not reach, such as a provider split's link).
   */
  async function madeEarlier(input: AuthorizeInput, names: readonly ProcessorName[]): Promise<(AuthorizeResult & { servedBy: string }) | undefined> {
    const found = await Promise.all(names.map(async (name) => ({ name, state: await adapterOf(name).lookup({ chargeId: input.chargeId, ...sellersAt(input.split, name) }) })));
    for (const { name, state } of found) {
      if (state.outcome === "not_found" || state.outcome === "unknown") continue;
      const adapter = adapterOf(name);
      const result = adopted(state);
      return { ...(adapter.adopt ? await adapter.adopt(input, result) : result), servedBy: name };
    }
    const unanswered = found.find((f) => f.state.outcome === "unknown");
    if (unanswered?.state.outcome === "unknown") return { outcome: "unknown", failure: unanswered.state.failure, servedBy: unanswered.name };
    return undefined;
  }

  const first = (method: PaymentMethodType): PaymentProcessor | undefined => {
    const name = route(method)[0];
    return name ? adapterOf(name) : undefined;
  };

  return {
    name: "router",
    candidates: route,
    sendsSplitAt: (name, method) => sendsSplitFor(adapterOf(name).sendsSplit, method),
    splitSellersAt: (name) => adapterOf(name).splitSellers,
    supports: (method, currency) => first(method)?.supports(method, currency) ?? false,
    checkInstrument: (input) => first(input.method)?.checkInstrument(input) ?? null,
    authorize,
    breakers: () => Object.fromEntries([...breakers].map(([name, b]) => [name, b.view()])),
  };
}

/** A payment found by lookup as the answer of an authorization; refunded or charged back is read again later. */
function adopted(state: PaymentState & { refundedMinor?: number }): Exclude<AuthorizeResult, { outcome: "unknown" }> {
  const { refundedMinor: _refunded, ...rest } = state;
  if (rest.outcome === "refunded" || rest.outcome === "charged_back") {
    return { outcome: "in_analysis", pspRefId: rest.pspRefId, ...(rest.providerCode ? { providerCode: rest.providerCode } : {}) };
  }
  return rest;
}

function instrumentCheck(input: AuthorizeInput) {
  const i = input.instrument;
  return {
    method: i.kind === "card" ? "credit_card" as const : i.kind,
    currency: input.currency, amountMinor: input.amountMinor,
    options: i.kind === "card" ? {} : i.options,
    customer: input.customer, now: input.now,
  };
}
