// Calendar days and wall-clock times in an IANA time zone, without a date library: Intl knows
// every zone's offsets, past and future. A day here is a YYYY-MM-DD of the zone's calendar;
// its first instant is found, not assumed: a zone whose clocks jump at midnight (Brasília's
// daylight saving until 2019 began at 00:00) has days that start at 01:00.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The YYYY-MM-DD that `instant` falls on in `timeZone`. */
export function calendarDate(instant: Date, timeZone: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(instant);
}

/** Minutes the zone's clock is ahead of UTC at `instant` (Brasília: -180). */
export function offsetMinutes(instant: Date, timeZone: string): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(instant)
    .find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!m) return 0; // "GMT" alone is offset zero
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** Whether `text` is a real calendar date written YYYY-MM-DD. */
export function isIsoDate(text: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}

/** The day `n` days after `date` (before, when negative): calendar arithmetic, no instants. */
export function addDays(date: string, n: number): string {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  return new Date(Date.UTC(y, mo - 1, d + n)).toISOString().slice(0, 10);
}

/** Whole calendar days from `from` to `to` (YYYY-MM-DD both); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** The first instant of the calendar day `date` (YYYY-MM-DD) in `timeZone`. */
export function startOfDay(date: string, timeZone: string): Date {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  const wall = Date.UTC(y, mo - 1, d);
  // Midnight read with the offsets in force a day before and a day after: one of them is the
  // offset at midnight unless the zone changes it twice within two days, which none does.
  const candidates = [wall - offsetMinutes(new Date(wall - 24 * HOUR), timeZone) * MINUTE, wall - offsetMinutes(new Date(wall + 24 * HOUR), timeZone) * MINUTE]
    .sort((a, b) => a - b);
  const exact = candidates.find((t) => t + offsetMinutes(new Date(t), timeZone) * MINUTE === wall);
  if (exact !== undefined) return new Date(exact); // the earlier one, when a fall-back repeats midnight
  // Midnight does not exist (the clock jumped over it): the day starts at the jump, the first
  // minute between the two candidates that is already on `date`.
  let [lo, hi] = candidates as [number, number];
  while (hi - lo > MINUTE) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE) * MINUTE;
    if (calendarDate(new Date(mid), timeZone) >= date) hi = mid;
    else lo = mid;
  }
  return new Date(hi);
}

/** The last millisecond of the calendar day `date` (YYYY-MM-DD) in `timeZone`. */
export function endOfDay(date: string, timeZone: string): Date {
  return new Date(startOfDay(addDays(date, 1), timeZone).getTime() - 1);
}

/** `instant` as ISO 8601 in the zone's wall-clock time with its offset: 2026-12-07T22:30:00.000-03:00. */
export function isoInZone(instant: Date, timeZone: string): string {
  const offset = offsetMinutes(instant, timeZone);
  const local = new Date(instant.getTime() + offset * MINUTE).toISOString().slice(0, 23);
  const abs = Math.abs(offset);
  return `${local}${offset < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/**
 * The zone's canonical IANA name (Brazil/East is America/Sao_Paulo, GMT is UTC), or null when
 * `name` is no IANA zone this runtime knows. A bare offset ("+03:00"), which newer runtimes
 * also accept, is refused: it keeps no daylight-saving rules.
 */
export function canonicalTimeZone(name: string): string | null {
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: name }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}
