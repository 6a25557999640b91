import type { MandateCapability } from "./capabilities.js";
import type { PaymentMethodType, PaymentProcessor } from "./processor.js";

// What a processor is to feira: one definition, exported by its folder and listed by the
// registry (registry.ts). Everything about the provider lives behind it: its settings and
// their check (Medusa's validateOptions), its adapter, how its notices are verified and read
// (Hyperswitch's IncomingWebhook: the signature, the references to re-read), and the optional
// capabilities it declares. Routing, failover, configuration and the one notice route read
// definitions only, so a new processor is its folder plus a line in the registry.

/** One setting of a processor: the variable it is read from, and when it is needed. */
export interface SettingSpec {
  /** The environment variable (PAGARME_SECRET_KEY). */
  env: string;
  /** When unset: the provider's production API for URLs; "" otherwise. */
  default?: string;
  /** An http(s) URL, checked at start wherever it is given (a trailing slash is dropped). */
  url?: true;
  /** Needed when the processor serves a route: for every method (true), or only for these. */
  required?: true | readonly PaymentMethodType[];
}

export type Settings = Readonly<Record<string, SettingSpec>>;
/** A processor's options, by setting name; an unset setting is its default or "". */
export type OptionsOf<S extends Settings> = { readonly [K in keyof S]: string };
/** Options as they travel through the configuration, before the definition reads them. */
export type RawOptions = Readonly<Record<string, string | undefined>>;

/** What every adapter gets from the operator's bounds on provider calls. */
export interface AdapterLimits {
  /** PROCESSOR_TIMEOUT_MS. */
  timeoutMs: number;
  /** PROCESSOR_MAX_WAITING: the connections an adapter may open. */
  connections: number;
}

/** A provider's notice, as the generic route received it. */
export interface IncomingNotice {
  /** What the provider appended after `/webhooks` (`pix`, `rec`), without slashes; "" for none. */
  subPath: string;
  /** The query string's parameters, first value of each. */
  query: Readonly<Record<string, string | undefined>>;
  header(name: string): string | undefined;
  /** The parsed body: the provider's word, never trusted; only references are taken from it. */
  body: unknown;
  now: Date;
}

/**
 * What a notice asks feira to read again at the provider (most precise reference first), once
 * verified. A notice never changes state by itself: the objects it names are re-read. Empty lists
 * (a provider's probe, a topic feira does not follow) are answered 200 and change nothing.
 */
export interface NoticeReferences {
  /** Payments: feira's charge id or the provider's payment id. */
  payments: readonly string[];
  /** Transfers of the payouts capability (read by that capability, when it is served). */
  payouts?: readonly string[];
  /** Recurrences of the mandates capability (Efí's idRec). */
  mandates?: readonly string[];
  /** Recurring charges of the mandates capability (Efí's cobr txid). */
  debits?: readonly string[];
  /** Disputes of the disputes capability. */
  disputes?: readonly string[];
  /**
   * The provider's account the named disputes are of, when the notice says (Mercado Pago's
   * `user_id`): a seller's account there, whose own token reads them, or the operator's own.
   */
  account?: string;
}

export type NoticeReading =
  | ({ outcome: "accepted" } & NoticeReferences)
  /** 401: not from the provider (signature, secret); 422: not a notice of its shape. */
  | { outcome: "refused"; status: 401 | 422; message: string };

/** What registering feira's notice URL at the provider asks for. */
export interface NoticeRegistration {
  /** PUBLIC_BASE_URL: feira's notice route is below it. */
  publicBaseUrl: string;
  limits: AdapterLimits;
}

/** One of several registrations a processor makes (Efí: Pix, recurrences, recurring charges), reported on its own. */
export interface NoticeRegistrationPart {
  name: string;
  outcome: "registered" | "refused" | "unknown";
  /** Why it was not registered (the provider's code, the scope it lacks), never its body. */
  message?: string;
}

export type NoticeRegistrationResult =
  /** `webhookUrl` as registered, with any secret in it masked; `parts` when the processor registers several. */
  | { outcome: "registered"; webhookUrl: string; parts?: NoticeRegistrationPart[] }
  /** The provider refused it (its code, never its body), or gave no answer to rely on. */
  | { outcome: "refused" | "unknown"; message: string };

export interface NoticeReader<O> {
  /** How to register the URL at the provider and what is checked: the route's documentation. */
  description: string;
  /** Verifies the notice (with the processor's options: its secret) and names what to re-read. */
  read(notice: IncomingNotice, options: O): NoticeReading;
  /**
   * Registers feira's notice URL at the provider through its API (POST
   * /v1/admin/processors/{name}/webhook); absent when the operator registers it in the provider's
   * dashboard.
   */
  register?(options: O, at: NoticeRegistration): Promise<NoticeRegistrationResult>;
}

/** A live adapter: its payments, and the members of the capabilities its definition declares. */
export type LiveAdapter = PaymentProcessor & {
  close?(): Promise<void>;
  /** Pix Automático's mandates and debits, when the definition declares `capabilities.mandates`. */
  mandates?: MandateCapability;
};

/** Declared by the definitions that have them; the core checks for them where they are used. */
export interface OptionalCapabilities {
  /**
   * Recurring Pix mandates (Pix Automático): its adapter serves `mandates`, so PAYMENT_ROUTES'
   * `pix_automatico=<name>` may name it; the settings its pix needs are then required.
   */
  mandates?: true;
  /**
   * Pix-out: its adapter serves `payouts` (send and read back a transfer), so PAYOUT_PROVIDER may
   * name it; the settings its pix needs are then required.
   */
  payouts?: true;
}

export interface ProcessorDefinitionOf<S extends Settings> {
  /** The name routes, charges (their processor column) and URLs use: lower case, no spaces. */
  name: string;
  /** The methods it serves (in BRL); PAYMENT_PROCESSOR=<name> routes all of them to it. */
  methods: readonly PaymentMethodType[];
  settings: S;
  /** Problems of a set of options beyond each setting's own (one needs another, a file must exist). */
  check?(options: OptionsOf<S>, methods: readonly PaymentMethodType[]): string[];
  /**
   * The adapter (card and payment calls, and the refund, cancel, capture and payout capabilities
   * it declares as members).
   */
  create(options: OptionsOf<S>, limits: AdapterLimits): LiveAdapter;
  notices?: NoticeReader<OptionsOf<S>>;
  capabilities?: OptionalCapabilities;
}

/**
 * A definition with its options' type erased, as the registry holds them: each call reads the
 * raw options through the definition's settings first (defaults filled in).
 */
export interface ProcessorDefinition {
  readonly name: string;
  readonly methods: readonly PaymentMethodType[];
  readonly settings: Settings;
  check(raw: RawOptions, methods: readonly PaymentMethodType[]): string[];
  create(raw: RawOptions, limits: AdapterLimits): LiveAdapter;
  readonly notices?: {
    description: string;
    read(notice: IncomingNotice, raw: RawOptions): NoticeReading;
    register?(raw: RawOptions, at: NoticeRegistration): Promise<NoticeRegistrationResult>;
  };
  readonly capabilities: OptionalCapabilities;
}

export function defineProcessor<S extends Settings>(def: ProcessorDefinitionOf<S>): ProcessorDefinition {
  if (!/^[a-z][a-z0-9_]{0,31}$/.test(def.name) || def.name === "sandbox") {
    throw new Error(`processor name "${def.name}" must be lower-case letters, digits or _ (and not the simulator's "sandbox")`);
  }
  const options = (raw: RawOptions): OptionsOf<S> => {
    const out: Record<string, string> = {};
    for (const [key, spec] of Object.entries(def.settings)) out[key] = raw[key] ?? spec.default ?? "";
    // Every key of the settings was just given a string: this is OptionsOf<S> by construction.
    return out as OptionsOf<S>;
  };
  const notices = def.notices;
  return {
    name: def.name,
    methods: def.methods,
    settings: def.settings,
    check: (raw, methods) => def.check?.(options(raw), methods) ?? [],
    create: (raw, limits) => def.create(options(raw), limits),
    ...(notices ? {
      notices: {
        description: notices.description,
        read: (notice, raw) => notices.read(notice, options(raw)),
        ...(notices.register ? { register: (raw: RawOptions, at: NoticeRegistration) => notices.register!(options(raw), at) } : {}),
      },
    } : {}),
    capabilities: def.capabilities ?? {},
  };
}

/** The variables a set of routes needs from one processor (the methods it serves in them). */
export function requiredSettings(def: ProcessorDefinition, methods: readonly PaymentMethodType[]): string[] {
  return Object.values(def.settings)
    .filter((s) => s.required === true || (Array.isArray(s.required) && s.required.some((m) => methods.includes(m))))
    .map((s) => s.env);
}

/** A processor's options read from the environment; `url` checks a URL and reports its problem. */
export function settingsFromEnv(def: ProcessorDefinition, env: Readonly<Record<string, string | undefined>>, url: (name: string, fallback: string) => string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, spec] of Object.entries(def.settings)) {
    out[key] = spec.url ? url(spec.env, spec.default ?? "") : env[spec.env] || spec.default || "";
  }
  return out;
}

/** The variables that give these options (the inverse of settingsFromEnv, for child processes). */
export function settingsToEnv(def: ProcessorDefinition, raw: RawOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, spec] of Object.entries(def.settings)) {
    const value = raw[key];
    if (value) env[spec.env] = value;
  }
  return env;
}
