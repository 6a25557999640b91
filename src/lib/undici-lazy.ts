// undici is imported on first use, not with the modules that use it: every process builds the
// webhook module (its routes) and the processor registry (its adapters), and a process that never
// delivers a webhook or calls a live processor (an API process of a sandbox-only deployment)
// would otherwise carry undici's code and its HTTP parser.
let undici: Promise<typeof import("undici")> | undefined;

/** undici, imported once, on the first call. */
export const loadUndici = () => (undici ??= import("undici"));
