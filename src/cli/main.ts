import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { ApiError, call, type Connection } from "./api.js";
import { configPath, DEFAULT_BASE_URL, ensureWebhookSecret, readConfig, writeConfig } from "./config.js";
import { FatalError, INCLUDE_POSTBACK_FLAG, listen, POSTBACK_ONLY_EVENTS } from "./listen.js";
import { ADMIN_TRIGGERS, trigger, TRIGGERS } from "./trigger.js";

const USAGE = `feira: the command line of a feira server

  feira login [--api-key sk_test_...] [--url ${DEFAULT_BASE_URL}]
      Checks the key against the server and stores it (with the URL) in the config file.
  feira listen --forward-to http://localhost:4242/webhooks [--events charge.paid,charge.refunded] [${INCLUDE_POSTBACK_FLAG}]
      Streams your events and POSTs each to the URL, signed with a local secret (printed): what a webhook
      endpoint would receive. ${INCLUDE_POSTBACK_FLAG} also forwards the events that go only to postback
      URLs (${POSTBACK_ONLY_EVENTS.join(", ")}).
  feira trigger <event> [--admin-key adm_...]
      Creates sandbox objects that produce the event: ${Object.keys(TRIGGERS).join(", ")}.
      ${ADMIN_TRIGGERS.join(" and ")} also need the operator's admin key (--admin-key or FEIRA_ADMIN_KEY):
      they use a Connect submerchant (made, accredited and funded on first use) and have the admin decide its payout.

Options for every command: --api-key, --url (default: the config, then ${DEFAULT_BASE_URL}).
The config file is ~/.config/feira/config.json (FEIRA_CONFIG overrides it), mode 0600.
Environment: FEIRA_API_KEY and FEIRA_URL override the config; FEIRA_ADMIN_KEY is the admin key (never stored).
`;

export async function run(argv: string[], out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      "api-key": { type: "string" },
      "admin-key": { type: "string" },
      url: { type: "string" },
      "forward-to": { type: "string" },
      events: { type: "string" },
      "include-postback-events": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command || command === "help") {
    out(USAGE);
    return command || values.help ? 0 : 2;
  }
  const file = configPath();
  const config = readConfig(file);
  const baseUrl = values.url || process.env.FEIRA_URL || config.baseUrl || DEFAULT_BASE_URL;
  const apiKey = values["api-key"] || process.env.FEIRA_API_KEY || config.apiKey;

  switch (command) {
    case "login": {
      const key = values["api-key"] ?? (await ask("Secret key (sk_test_... or sk_live_...): "));
      // A key the server refuses is not stored; an unreachable server is reported.
      await call({ baseUrl, apiKey: key }, "GET", "/v1/customers?limit=1");
      writeConfig(file, { ...readConfig(file), apiKey: key, baseUrl });
      out(`Logged in to ${baseUrl} with ${key.slice(0, 8)}...${key.slice(-4)}; saved to ${file}`);
      return 0;
    }
    case "listen": {
      const forwardTo = values["forward-to"];
      if (!forwardTo) throw new UsageError("listen needs --forward-to <url>, e.g. --forward-to http://localhost:4242/webhooks");
      const connection = needKey(baseUrl, apiKey);
      const stop = new AbortController();
      process.once("SIGINT", () => stop.abort());
      process.once("SIGTERM", () => stop.abort());
      const events = values.events ? values.events.split(",").map((e) => e.trim()).filter(Boolean) : [];
      const includePostbackEvents = values["include-postback-events"] ?? false;
      const postbackOnly = events.filter((e) => POSTBACK_ONLY_EVENTS.includes(e));
      if (postbackOnly.length > 0 && !includePostbackEvents) {
        throw new UsageError(`${postbackOnly.join(", ")} go only to postback URLs, never to webhook endpoints: add ${INCLUDE_POSTBACK_FLAG} to forward them`);
      }
      await listen({ connection, forwardTo, secret: ensureWebhookSecret(file), events, includePostbackEvents, print: out, signal: stop.signal });
      return 0;
    }
    case "trigger": {
      const event = rest[0];
      if (!event) throw new UsageError(`trigger needs an event: ${Object.keys(TRIGGERS).join(", ")}`);
      const adminKey = values["admin-key"] || process.env.FEIRA_ADMIN_KEY || undefined;
      const result = await trigger(needKey(baseUrl, apiKey), event, { adminKey });
      for (const line of result.created) out(`Created ${line}`);
      for (const line of result.notes) out(line);
      out(`Trigger succeeded: ${event} is on its way (see feira listen or GET /v1/events).`);
      return 0;
    }
    default:
      throw new UsageError(`Unknown command "${command}".\n\n${USAGE}`);
  }
}

class UsageError extends Error {}

function needKey(baseUrl: string, apiKey: string | undefined): Connection {
  if (!apiKey) throw new UsageError("No key: run `feira login`, or pass --api-key, or set FEIRA_API_KEY");
  return { baseUrl, apiKey };
}

async function ask(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export async function main(argv = process.argv.slice(2)): Promise<void> {
  try {
    process.exitCode = await run(argv);
  } catch (err) {
    const message = err instanceof ApiError && err.status === 401
      ? `The server refused the key: ${err.body}`
      : err instanceof TypeError && err.cause instanceof Error
        ? `Cannot reach the server: ${err.cause.message} (is it running? --url sets where)`
        : (err as Error).message;
    process.stderr.write(`feira: ${message}\n`);
    process.exitCode = err instanceof UsageError || err instanceof FatalError ? 2 : 1;
  }
}
