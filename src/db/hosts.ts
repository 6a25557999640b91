import pg from "pg";

// A connection string may name several hosts, as libpq reads it (PostgreSQL docs, "Connection
// Strings", "Specifying Multiple Hosts"): postgres://u:p@h1:5432,h2:5432,h3:5432/db
// ?target_session_attrs=read-write. node-postgres does not read that form ("Invalid URL"), so it
// is read here: the hosts are tried in order, and the first whose session fits
// target_session_attrs is the one connections go to, until a connection to it fails or finds it
// no longer fits (a standby promoted, the old primary back as a standby): then the hosts are
// tried again. Every other parameter is passed to node-postgres as it was, in a single-host URL.

export interface PgHost { host: string; port: number }

/** libpq's target_session_attrs; "read-write" and "primary" are what the writer needs. */
export type SessionAttrs = "any" | "read-write" | "read-only" | "primary" | "standby" | "prefer-standby";
const ATTRS: readonly SessionAttrs[] = ["any", "read-write", "read-only", "primary", "standby", "prefer-standby"];

export interface PgUrl {
  hosts: PgHost[];
  attrs: SessionAttrs;
  /** Seconds a connection attempt to one host may take (libpq's connect_timeout), 0 for none. */
  connectTimeout: number;
  /** The URL of one host: the scheme, credentials, database and the other parameters as given. */
  urlFor(host: PgHost): string;
}

const FORM = /^(postgres(?:ql)?):\/\/(?:([^@/?]*)@)?([^/?]*)(\/[^?]*)?(?:\?(.*))?$/;

export class DatabaseUrlError extends Error {}

/** Reads a postgres:// URL with one or several hosts. */
export function parsePgUrl(url: string): PgUrl {
  const m = FORM.exec(url);
  if (!m) throw new DatabaseUrlError("not a postgres:// URL");
  const [, scheme, userinfo, hostList = "", path = "", query = ""] = m;
  const params = new URLSearchParams(query);
  const attrsRaw = params.get("target_session_attrs") ?? "any";
  if (!ATTRS.includes(attrsRaw as SessionAttrs)) throw new DatabaseUrlError(`target_session_attrs must be one of ${ATTRS.join(", ")}`);
  params.delete("target_session_attrs");
  const timeout = Number(params.get("connect_timeout") ?? "0");
  const hosts = hostList.split(",").map(parseHost);
  if (hosts.length === 0 || hosts.some((h) => !h)) throw new DatabaseUrlError("a host in the list is empty");
  const rest = params.toString();
  return {
    hosts: hosts as PgHost[],
    attrs: attrsRaw as SessionAttrs,
    connectTimeout: Number.isFinite(timeout) && timeout > 0 ? timeout : 0,
    urlFor: (h) => `${scheme}://${userinfo !== undefined ? `${userinfo}@` : ""}${h.host.includes(":") ? `[${h.host}]` : h.host}:${h.port}${path}${rest ? `?${rest}` : ""}`,
  };
}

function parseHost(text: string): PgHost | null {
  const m = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/.exec(text);
  const host = m?.[1] ?? m?.[2];
  if (!m || !host) return null;
  return { host: decodeURIComponent(host), port: m[3] ? Number(m[3]) : 5432 };
}

/** Whether `url` needs the locator: several hosts, or a session attribute to check. */
export function needsLocator(url: string): boolean {
  try {
    const parsed = parsePgUrl(url);
    return parsed.hosts.length > 1 || parsed.attrs !== "any";
  } catch {
    return false; // node-postgres reads it, and says what is wrong with it
  }
}

/** No host of the list fits: the cluster is failing over, or every host is down. SQLSTATE 08001. */
export class NoHostFits extends Error {
  readonly code = "08001";
  constructor(attrs: SessionAttrs, tried: string[]) {
    super(`No database host accepts ${attrs} sessions now (tried ${tried.join("; ")})`);
  }
}

// What a session is: a primary takes writes (transaction_read_only off, as libpq checks for
// read-write; pg_is_in_recovery() false for primary). One query answers both.
const ROLE_QUERY = "select pg_is_in_recovery() as standby, current_setting('transaction_read_only') = 'on' as read_only";

async function sessionFits(client: pg.ClientBase, attrs: SessionAttrs): Promise<boolean> {
  if (attrs === "any") return true;
  const { rows } = await client.query<{ standby: boolean; read_only: boolean }>(ROLE_QUERY);
  const role = rows[0];
  if (!role) return false;
  switch (attrs) {
    case "read-write": return !role.read_only;
    case "read-only": return role.read_only;
    case "primary": return !role.standby;
    case "standby": case "prefer-standby": return role.standby;
  }
}

export interface LocatorEvents {
  /** A host was chosen after another had been (a failover seen, or the first pick after a loss). */
  onSwitch?(from: PgHost | undefined, to: PgHost): void;
}

/**
 * Which host of a URL connections go to now. `current()` probes the hosts in order when none is
 * known (several callers share one probe), `lost(host)` forgets it after a failed connection.
 */
export class HostLocator {
  private known: PgHost | undefined;
  private last: PgHost | undefined;
  private probe: Promise<PgHost> | undefined;

  constructor(readonly url: PgUrl, private readonly events: LocatorEvents = {}) {}

  /** The host connections go to now, if one is known. */
  host(): PgHost | undefined { return this.known; }

  async current(): Promise<PgHost> {
    if (this.known) return this.known;
    this.probe ??= this.find().finally(() => { this.probe = undefined; });
    return this.probe;
  }

  lost(host: PgHost): void {
    if (this.known && this.known.host === host.host && this.known.port === host.port) this.known = undefined;
  }

  /** Checks a new connection's session; false (and the host forgotten) when it no longer fits. */
  async fits(client: pg.ClientBase, host: PgHost): Promise<boolean> {
    const attrs = this.url.attrs === "prefer-standby" ? "any" : this.url.attrs;
    if (await sessionFits(client, attrs)) return true;
    this.lost(host);
    return false;
  }

  private async find(): Promise<PgHost> {
    const tried: string[] = [];
    // prefer-standby: a standby if one answers, else any host (libpq's second pass).
    const passes: SessionAttrs[] = this.url.attrs === "prefer-standby" ? ["standby", "any"] : [this.url.attrs];
    for (const attrs of passes) {
      for (const host of this.url.hosts) {
        const client = new pg.Client({
          connectionString: this.url.urlFor(host),
          connectionTimeoutMillis: (this.url.connectTimeout || 5) * 1000,
        });
        client.on("error", () => undefined);
        try {
          await client.connect();
          if (await sessionFits(client, attrs)) {
            if (this.last && (this.last.host !== host.host || this.last.port !== host.port)) this.events.onSwitch?.(this.last, host);
            this.known = host;
            this.last = host;
            return host;
          }
          tried.push(`${host.host}:${host.port}: not ${attrs}`);
        } catch (err) {
          tried.push(`${host.host}:${host.port}: ${(err as Error).message}`);
        } finally {
          await client.end().catch(() => undefined);
        }
      }
    }
    throw new NoHostFits(this.url.attrs, tried);
  }
}

/**
 * A node-postgres Client class whose connections go to the locator's current host, for a pool
 * (pg.Pool's `Client` option) or for single clients. A connection that fails, or lands on a host
 * that no longer fits, makes the locator look again for the next one; that connection's caller
 * gets the error (a 503 to a request: src/db/unavailable.ts).
 */
export function locatingClient(locator: HostLocator): typeof pg.Client {
  return class LocatingClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
    override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
      const done = this.connectToCurrent().then(() => this);
      if (!callback) return done;
      // node-postgres calls back with (null, client) on success; pg-pool reads it that way.
      const cb = callback as (err: Error | null, c?: pg.Client) => void;
      done.then((c) => cb(null, c), (err: Error) => cb(err));
    }

    private async connectToCurrent(): Promise<void> {
      const host = await locator.current();
      this.host = host.host;
      this.port = host.port;
      // What node-postgres reads the address from when it connects (lib/client.js, _connect).
      const params = (this as unknown as { connectionParameters: { host: string; port: number } }).connectionParameters;
      params.host = host.host;
      params.port = host.port;
      try {
        await super.connect();
      } catch (err) {
        locator.lost(host);
        throw err;
      }
      let fits = false;
      try {
        fits = await locator.fits(this, host);
      } catch (err) {
        locator.lost(host);
        await this.end().catch(() => undefined);
        throw err;
      }
      if (!fits) {
        await this.end().catch(() => undefined);
        throw new NoHostFits(locator.url.attrs, [`${host.host}:${host.port}: no longer ${locator.url.attrs}`]);
      }
    }
  };
}

/** Options for a pg.Pool or pg.Client on `url`: one host as node-postgres reads it, or the locator's class. */
export function clientOptions(url: string, events?: LocatorEvents): { config: pg.PoolConfig; locator?: HostLocator } {
  if (!needsLocator(url)) return { config: { connectionString: url } };
  const parsed = parsePgUrl(url);
  const locator = new HostLocator(parsed, events);
  return {
    config: { connectionString: parsed.urlFor(parsed.hosts[0]!), Client: locatingClient(locator) },
    locator,
  };
}

/** The connection string with `applicationName` as its application_name, if one is given. */
function named(connectionString: string | undefined, applicationName: string | undefined): string | undefined {
  if (!applicationName || !connectionString) return connectionString;
  const u = new URL(connectionString);
  u.searchParams.set("application_name", applicationName);
  return u.toString();
}

/** A single connection on `url` (migrations, LISTEN, locks), to the fitting host. */
export function newClient(url: string, locator?: HostLocator, applicationName?: string): pg.Client {
  const options = locator ? { config: { connectionString: locator.url.urlFor(locator.url.hosts[0]!) }, locator } : clientOptions(url);
  // keepAlive: a LISTEN connection sits idle, and must notice a host that vanished without a reset.
  // A name given here wins over the URL's own application_name (a connection string's parameters
  // override node-postgres's other options, so it is set in the string).
  const config = { connectionString: named(options.config.connectionString, applicationName), keepAlive: true };
  if (!options.locator) return new pg.Client(config);
  const Client = locatingClient(options.locator);
  return new Client(config);
}
