import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { freshDatabase } from "./db.js";
import { feiraEntry } from "./feira-bundle.js";

export { tempDir } from "./temp-dirs.js";

// Runs feira as a real child process (npm start, or node on the bundle of src/main.ts), for the
// tests that must see what an operator sees: the printed first-start lines, the lock file,
// exit codes and signals.

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** A port that was free a moment ago (the kernel picks it; the race is harmless here). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/**
 * The environment of a child server: this process's, minus everything feira reads, plus
 * `env`. Without an explicit DATABASE_URL the child uses PGlite in its DATA_DIR.
 */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    "PORT", "HOST", "DATA_DIR", "DATABASE_URL", "DATABASE_POOL_MODE", "DATABASE_DIRECT_URL", "ADMIN_API_KEY", "JWT_SECRET", "ENCRYPTION_KEY",
    "PUBLIC_BASE_URL", "PANEL_URL", "NODE_ENV", "LOG_LEVEL", "WEBHOOK_RETRY_SCALE", "NODE_TEST_CONTEXT", "METRICS_TOKEN",
  ]) delete out[name];
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

export interface ServerProcess {
  child: ChildProcess;
  /** Everything printed so far, stdout and stderr. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `re` in the output; rejects on exit or timeout. */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** The exit code (or signal name) of the direct child, once it and its descendants have ended. */
  exited: Promise<number | string>;
  /** SIGTERM to the whole process group; SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<number | string>;
}

/**
 * Starts `command args` in its own process group (so that `npm start`, its shell, tsx and
 * node all receive the signal, as they would from a terminal or a service manager).
 */
export function startProcess(command: string, args: string[], env: NodeJS.ProcessEnv): ServerProcess {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  const listeners = new Set<() => void>();
  child.stdout!.on("data", (chunk: Buffer) => { out += chunk.toString(); for (const l of listeners) l(); });
  child.stderr!.on("data", (chunk: Buffer) => { err += chunk.toString(); for (const l of listeners) l(); });
  // "close", not "exit": it comes once every process holding the pipes has ended, so for
  // `npm start` it waits for the server itself, not only for npm.
  const exited = new Promise<number | string>((resolve) => {
    child.once("close", (code, signal) => {
      resolve(code ?? signal ?? "unknown");
      for (const l of listeners) l();
    });
  });
  let ended = false;
  void exited.then(() => { ended = true; });

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };

  return {
    child,
    output: () => out + err,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(re, timeoutMs = 180_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = (out + err).match(re);
          if (m) return done(() => resolve(m));
          if (ended) return done(() => reject(new Error(`process exited before printing ${re}:\n${out}${err}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`timed out waiting for ${re}:\n${out}${err}`))), timeoutMs);
        const done = (fn: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          fn();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 15_000) {
      if (ended) return exited;
      signalGroup("SIGTERM");
      const timer = setTimeout(() => signalGroup("SIGKILL"), graceMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** `npm start`, exactly as the README says. */
export const npmStart = (env: NodeJS.ProcessEnv) => startProcess("npm", ["start"], env);

/**
 * The server without npm in between: its pid is the server's, signals go straight to it. It runs
 * the suite's bundle of src/main.ts (feira-bundle.ts), as startFeira does: a start through tsx
 * costs several times the CPU, and only `npm start` needs to be the README's command.
 */
export const nodeMain = async (env: NodeJS.ProcessEnv, args: string[] = []) =>
  startProcess(process.execPath, [...await feiraEntry(), ...args], env);

/** Polls GET url until it answers 200. */
export async function waitForHttp(url: string, timeoutMs = 180_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
      last = `${res.status} ${await res.text()}`;
    } catch (e) {
      last = String(e);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms (last: ${last})`);
}

export const basicAuth = (key: string) => `Basic ${Buffer.from(`${key}:`).toString("base64")}`;

/**
 * The database of the child servers of one test file, following the suite's engine: on PGlite
 * nothing (the child uses its DATA_DIR); with DATABASE_URL, a fresh PostgreSQL database of its
 * own, dropped after the file, with the secrets every process on PostgreSQL must be given.
 * Call at the top of the file; the returned function gives the environment once `before` ran.
 */
export function childDatabaseEnv(): () => Record<string, string | undefined> {
  let env: Record<string, string | undefined> = {};
  let drop: (() => Promise<void>) | undefined;
  before(async () => {
    if (!process.env.DATABASE_URL) return;
    const database = await freshDatabase();
    drop = () => database.close();
    env = { DATABASE_URL: database.url, JWT_SECRET: randomBytes(32).toString("hex"), ENCRYPTION_KEY: randomBytes(32).toString("base64") };
  });
  after(async () => { await drop?.(); });
  return () => env;
}
