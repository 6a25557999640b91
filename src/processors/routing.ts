import { requiredSettings, type ProcessorDefinition, type RawOptions } from "./definition.js";
import type { AuthorizeResult, LookupResult, PaymentMethodType, ProcessorFailureKind } from "./processor.js";

// Which live processor serves which payment method, from PAYMENT_PROCESSOR or PAYMENT_ROUTES;
// the settings that choice needs; when a second processor may be tried; and a circuit
// breaker. All pure, and all from the processors' definitions: config.ts reads the environment
// and reports the problems at start.

export type ProcessorName = string;

const KNOWN_METHODS: readonly PaymentMethodType[] = [
  "credit_card", "pix", "open_finance", "qr_code", "boleto", "bank_transfer", "oxxo", "spei", "pse", "pix_automatico",
];

/** Per method, the processor to use and, optionally, the one to fail over to. */
export type RouteTable = Readonly<Partial<Record<PaymentMethodType, readonly ProcessorName[]>>>;

/**
 * PAYMENT_PROCESSOR or PAYMENT_ROUTES, the settings of the processors, and the bounds of every
 * provider call (config.ts reads them). The base URLs are the operator's, not merchant input:
 * the merchant URL guard does not apply to them.
 */
export interface LiveProcessorConfig {
  routes: RouteTable;
  /** Each processor's options by name, as its definition's settings name them (defaults filled in when absent). */
  processors: Readonly<Record<string, RawOptions>>;
  /** PROCESSOR_TIMEOUT_MS: the bound on each provider call. */
  timeoutMs: number;
  /** PROCESSOR_RECONCILE_INTERVAL_MS: how often live charges still open are read again. */
  reconcileIntervalMs: number;
  /**
   * Provider lookups that provider webhooks may cause, per second: PROCESSOR_WEBHOOK_LOOKUPS_PER_SECOND
   * in all (shared by the API processes on PostgreSQL) and PROCESSOR_WEBHOOK_LOOKUPS_PER_ADDRESS
   * per client address. A notice past them is answered 429 and settled by its retry or the reconciliation.
   */
  webhookLookups: { perSecond: number; perAddressPerSecond: number };
  /**
   * PROCESSOR_MAX_WAITING: production charges one process lets wait on a processor at once (and
   * the connections each adapter may open). Past it a charge is 503 `processor_busy` with
   * Retry-After before anything is written.
   */
  maxWaiting: number;
  /**
   * PAYOUT_PROVIDER: the processor whose Pix-out pays production payouts approved without an
   * end-to-end id; unset, the operator transfers at its own bank and approves with the transfer's id.
   */
  payoutProvider?: ProcessorName;
  /** PAYOUT_AUTO_APPROVE: each production payout request is sent through payoutProvider at once. */
  payoutAutoApprove?: boolean;
  /**
   * `pix_automatico=<name>` in PAYMENT_ROUTES (or PAYMENT_PROCESSOR naming a processor that declares
   * mandates): the processor whose mandates serve production Pix Automático subscriptions.
   */
  mandateProvider?: ProcessorName;
}

export interface ProcessorRouting {
  routes: RouteTable;
  /** The processor of production Pix Automático mandates (`pix_automatico=`), if any. */
  mandateProvider?: ProcessorName;
  /** Every processor named in a route. */
  processors: ProcessorName[];
  /** The setting variables this routing needs. */
  requiredCredentials: string[];
  /** Start-up problems, each naming the variable to fix; empty when the routing is usable. */
  problems: string[];
}

const isMethod = (name: string): name is PaymentMethodType => (KNOWN_METHODS as readonly string[]).includes(name);
type Known = ReadonlyMap<string, ProcessorDefinition>;
const byName = (definitions: readonly ProcessorDefinition[]): Known => new Map(definitions.map((d) => [d.name, d]));
const knownText = (known: Known) => [...known.keys()].join(", ");

function parseRoutesText(text: string, known: Known, problems: string[]): RouteTable {
  const routes: Partial<Record<PaymentMethodType, ProcessorName[]>> = {};
  for (const entry of text.split(",").map((e) => e.trim()).filter(Boolean)) {
    const at = entry.indexOf("=");
    const method = (at < 0 ? entry : entry.slice(0, at)).trim();
    const names = at < 0 ? [] : entry.slice(at + 1).split("|").map((n) => n.trim());
    if (!isMethod(method)) {
      problems.push(`PAYMENT_ROUTES: "${method}" is not a payment method (known: ${KNOWN_METHODS.join(", ")})`);
      continue;
    }
    if (routes[method]) {
      problems.push(`PAYMENT_ROUTES: ${method} is routed twice`);
      continue;
    }
    if (names.length === 0 || names.length > 2 || names.some((n) => n === "")) {
      problems.push(`PAYMENT_ROUTES: ${method} needs one processor or two as a|b, got "${entry}"`);
      continue;
    }
    if (names.length === 2 && names[0] === names[1]) {
      problems.push(`PAYMENT_ROUTES: ${method}=${names[0]}|${names[1]} names the same processor twice`);
      continue;
    }
    const chosen: ProcessorName[] = [];
    for (const name of names) {
      const def = known.get(name);
      if (!def) problems.push(`PAYMENT_ROUTES: "${name}" (for ${method}) is not a known processor (known: ${knownText(known)})`);
      else if (!def.methods.includes(method)) {
        problems.push(`PAYMENT_ROUTES: ${name} does not serve ${method} (it serves ${def.methods.join(", ")})`);
      } else chosen.push(name);
    }
    if (chosen.length === names.length) routes[method] = chosen;
  }
  if (Object.keys(routes).length === 0 && problems.length === 0) problems.push("PAYMENT_ROUTES routes no method; unset it to refuse live charges");
  return routes;
}

/** The methods each processor serves in these routes. */
function servedMethods(routes: RouteTable): Map<string, PaymentMethodType[]> {
  const served = new Map<string, PaymentMethodType[]>();
  for (const [method, processors] of Object.entries(routes)) {
    for (const p of processors ?? []) served.set(p, [...(served.get(p) ?? []), method as PaymentMethodType]);
  }
  return served;
}

/** The settings each routed processor needs for the methods it serves (its definition says which). */
export function requiredCredentials(routes: RouteTable, definitions: readonly ProcessorDefinition[]): string[] {
  const known = byName(definitions);
  const names = new Set<string>();
  for (const [p, methods] of servedMethods(routes)) {
    const def = known.get(p);
    if (def) for (const v of requiredSettings(def, methods)) names.add(v);
  }
  return [...names];
}

/**
 * PAYMENT_PROCESSOR (one processor for every method it serves) or PAYMENT_ROUTES (per method,
 * `credit_card=a|b,pix=b`, a and b processor names), never both. Neither: no live routes, and
 * live charges are refused.
 */
export function parseProcessorRouting(
  env: Readonly<Record<string, string | undefined>>, definitions: readonly ProcessorDefinition[],
  /** Each processor's options (config.ts read them), for the definitions' own checks. */
  options: Readonly<Record<string, RawOptions>> = {},
): ProcessorRouting {
  const known = byName(definitions);
  const KNOWN_TEXT = knownText(known);
  const problems: string[] = [];
  const single = env.PAYMENT_PROCESSOR?.trim() || undefined;
  const routesText = env.PAYMENT_ROUTES?.trim() || undefined;
  let routes: RouteTable = {};
  let mandateProvider: ProcessorName | undefined;
  if (single && routesText) {
    problems.push("PAYMENT_PROCESSOR and PAYMENT_ROUTES are both set: set one (PAYMENT_ROUTES alone can name every processor)");
  } else if (single) {
    if (single === "sandbox") {
      problems.push(`PAYMENT_PROCESSOR=sandbox is not allowed: the simulator never serves production keys (known: ${KNOWN_TEXT})`);
    } else {
      const def = known.get(single);
      if (!def) problems.push(`PAYMENT_PROCESSOR=${single} is not a known processor (known: ${KNOWN_TEXT})`);
      else routes = Object.fromEntries(def.methods.map((m) => [m, [single]]));
    }
  } else if (routesText) {
    const split = mandateRoute(routesText, known, problems);
    mandateProvider = split.mandateProvider;
    // A text of `pix_automatico=` alone routes no charge method: parseRoutesText would call it empty.
    if (split.rest !== "" || !mandateProvider) routes = parseRoutesText(split.rest, known, problems);
  }
  if (single && known.get(single)?.capabilities.mandates) mandateProvider = single;
  const processors = [...new Set([...Object.values(routes).flatMap((r) => r ?? []), ...(mandateProvider ? [mandateProvider] : [])])];
  // The mandates' processor needs what its pix needs (a recurrence is received on the account's
  // Pix key) and what its Pix Automático needs (Efí: the account a recurring charge names).
  const mandateMethods: PaymentMethodType[] = ["pix", "pix_automatico"];
  const required = problems.length > 0 ? [] : [...new Set([...requiredCredentials(routes, definitions), ...(mandateProvider ? requiredSettings(known.get(mandateProvider)!, mandateMethods) : [])])];
  for (const name of required) {
    if (!env[name]) problems.push(`${name} is required by ${single ? "PAYMENT_PROCESSOR" : "PAYMENT_ROUTES"} (${processors.join(", ")})`);
  }
  // Each routed processor's own rules over its options (a setting that needs another).
  if (problems.length === 0) {
    const served = servedMethods(routes);
    if (mandateProvider) served.set(mandateProvider, [...new Set([...(served.get(mandateProvider) ?? []), ...mandateMethods])]);
    for (const [p, methods] of served) problems.push(...(known.get(p)?.check(options[p] ?? {}, methods) ?? []));
  }
  if (problems.length > 0) return { routes: {}, processors, requiredCredentials: required, problems };
  return { routes, ...(mandateProvider ? { mandateProvider } : {}), processors, requiredCredentials: required, problems };
}

/**
 * PAYMENT_ROUTES' `pix_automatico=<name>` entry, taken out of the text: Pix Automático is no charge
 * method of the route table but a processor's mandates (one processor: a mandate lives where it
 * was made, so there is no failover).
 */
function mandateRoute(text: string, known: Known, problems: string[]): { rest: string; mandateProvider?: ProcessorName } {
  const entries = text.split(",").map((e) => e.trim()).filter(Boolean);
  const mine = entries.filter((e) => e.split("=")[0]!.trim() === "pix_automatico");
  const rest = entries.filter((e) => !mine.includes(e)).join(",");
  if (mine.length === 0) return { rest };
  if (mine.length > 1) {
    problems.push("PAYMENT_ROUTES: pix_automatico is routed twice");
    return { rest };
  }
  const name = mine[0]!.slice(mine[0]!.indexOf("=") + 1).trim();
  const mandates = [...known.values()].filter((d) => d.capabilities.mandates).map((d) => d.name).join(", ") || "none";
  if (!known.get(name)?.capabilities.mandates) {
    problems.push(`PAYMENT_ROUTES: pix_automatico=${name} must name one processor that serves Pix Automático mandates (known: ${mandates})`);
    return { rest };
  }
  return { rest, mandateProvider: name };
}

/**
 * PAYOUT_PROVIDER: a known processor that declares Pix-out, with the settings its Pix needs (a
 * payout is a Pix from the operator's account); PAYOUT_AUTO_APPROVE needs it. Problems name the variables.
 */
export function parsePayoutProvider(
  env: Readonly<Record<string, string | undefined>>, definitions: readonly ProcessorDefinition[],
  options: Readonly<Record<string, RawOptions>> = {},
): { payoutProvider?: ProcessorName; payoutAutoApprove: boolean; problems: string[] } {
  const problems: string[] = [];
  const name = env.PAYOUT_PROVIDER?.trim() || undefined;
  const auto = env.PAYOUT_AUTO_APPROVE?.trim() || "false";
  if (auto !== "true" && auto !== "false") problems.push('PAYOUT_AUTO_APPROVE must be "true" or "false"');
  if (!name) {
    if (auto === "true") problems.push("PAYOUT_AUTO_APPROVE=true needs PAYOUT_PROVIDER (the processor that sends the payouts)");
    return { payoutAutoApprove: false, problems };
  }
  const def = byName(definitions).get(name);
  const payers = definitions.filter((d) => d.capabilities.payouts).map((d) => d.name).join(", ") || "none";
  if (!def || !def.capabilities.payouts) {
    problems.push(`PAYOUT_PROVIDER=${name} is not a processor that sends Pix payouts (known: ${payers})`);
    return { payoutAutoApprove: false, problems };
  }
  for (const v of requiredSettings(def, ["pix"])) if (!env[v]) problems.push(`${v} is required by PAYOUT_PROVIDER (${name})`);
  if (problems.length === 0) problems.push(...def.check(options[name] ?? {}, ["pix"]));
  return problems.length > 0 ? { payoutAutoApprove: false, problems } : { payoutProvider: name, payoutAutoApprove: auto === "true", problems };
}

/** The processors for a method, first choice first; empty when the method has no route (a 422). */
export const routeFor = (routes: RouteTable, method: PaymentMethodType): readonly ProcessorName[] => routes[method] ?? [];

export type FailoverDecision =
  | { tryNext: true }
  /** `lookupFirst`: only after a lookup by reference at the first processor finds nothing. */
  | { tryNext: false; lookupFirst: boolean; why: string };

/**
 * Whether a charge may go to the second processor, in the same request: only when the first
 * provably made nothing. A refused connection sent nothing. A 5xx or 429 proves nothing by
 * itself (a provider can fail after creating the payment), so it needs a lookup by feira's
 * reference at the first that finds no payment. A timeout or lost answer never fails over (the
 * charge stays pending and is reconciled), and neither does any answer (a decline is final).
 */
export function failoverDecision(first: AuthorizeResult, lookupAtFirst?: LookupResult): FailoverDecision {
  if (first.outcome !== "unknown") return { tryNext: false, lookupFirst: false, why: `the first processor answered ${first.outcome}` };
  const kind = first.failure.kind;
  if (kind === "connection_refused") return { tryNext: true };
  if (kind !== "http_5xx" && kind !== "http_429") {
    return { tryNext: false, lookupFirst: false, why: `${kind}: the first processor may have made the payment` };
  }
  if (!lookupAtFirst) return { tryNext: false, lookupFirst: true, why: `${kind}: look the payment up at the first processor first` };
  if (lookupAtFirst.outcome === "not_found") return { tryNext: true };
  return { tryNext: false, lookupFirst: false, why: `${kind}, and the lookup answered ${lookupAtFirst.outcome}` };
}

/** Failures that count against a processor's breaker: it did not answer usefully. A decline or a 4xx is an answer. */
export const breakerFailure = (kind: ProcessorFailureKind): boolean => kind !== "http_4xx";

/** The route table as the operator wrote it, for the start-up log (`{credit_card: "a|b"}`). */
export function describeRoutes(routes: RouteTable | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(routes ?? {}).map(([method, names]) => [method, (names ?? []).join("|")]));
}
