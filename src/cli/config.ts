import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { generateWebhookSecret } from "../modules/webhooks/signing.js";

// The CLI's own settings: the key, the server and the local signing secret of `feira listen`.
// The file holds a secret key, so it is written 0600 in a 0700 directory.
export interface CliConfig {
  apiKey?: string;
  baseUrl?: string;
  /** Signs what `feira listen` forwards; made once per config file so receivers keep working. */
  webhookSecret?: string;
}

export const DEFAULT_BASE_URL = "http://localhost:3000";

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.FEIRA_CONFIG ?? path.join(os.homedir(), ".config", "feira", "config.json");
}

export function readConfig(file: string): CliConfig {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as CliConfig;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new Error(`Cannot read ${file}: ${(err as Error).message}`);
  }
}

export function writeConfig(file: string, config: CliConfig): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // writeFileSync's mode applies only when it creates the file
}

/** The config's listen secret, made and saved on first use. */
export function ensureWebhookSecret(file: string): string {
  const config = readConfig(file);
  if (config.webhookSecret) return config.webhookSecret;
  const webhookSecret = generateWebhookSecret();
  writeConfig(file, { ...config, webhookSecret });
  return webhookSecret;
}
