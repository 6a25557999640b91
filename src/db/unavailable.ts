// Errors that say the database is not there now, not that the request is wrong: its server shut
// down or crashed (a failover), it is starting, it is a standby now (a write to a demoted
// primary), or the connection to it broke. A request cut by one committed nothing after the
// break, and a retry with the same Idempotency-Key completes it once the primary takes writes, so
// it is answered 503 with Retry-After, never 500 (src/http/errors.ts).

// SQLSTATEs (PostgreSQL docs, Appendix A): class 08 (connection exception), 57P01
// admin_shutdown, 57P02 crash_shutdown, 57P03 cannot_connect_now, 25006 read_only_sql_transaction
// (a standby, or a primary that has just been demoted), 53300 too_many_connections (a new primary
// flooded by every client reconnecting at once).
const SQLSTATES = new Set(["57P01", "57P02", "57P03", "25006", "53300"]);

// What the socket says when the server went away.
const SOCKET_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ECONNABORTED", "EAI_AGAIN"]);

// node-postgres's own errors carry no code, only these messages (lib/client.js, pg-pool).
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /is not queryable/,
  /^timeout exceeded when trying to connect/,
  /^Client was closed/,
];

export function isDatabaseUnavailable(err: unknown): boolean {
  // drizzle wraps a driver's error (DrizzleQueryError, its cause); so may a service.
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || SOCKET_CODES.has(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === "string" && DRIVER_MESSAGES.some((m) => m.test(message))) return true;
  }
  return false;
}
