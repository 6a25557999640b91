// Calendar days in a time zone, without a date library. Brazilian due dates (boletos) are days
// of Brasília time, payable until the end of that day.

/** America/Sao_Paulo: Brasília time, UTC-3 all year since 2019. */
export const BRAZIL_TIME_ZONE = "America/Sao_Paulo";

/** The YYYY-MM-DD that `instant` falls on in `timeZone`. */
export function calendarDate(instant: Date, timeZone: string): string {
  // en-CA formats dates as YYYY-MM-DD.
  return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(instant);
}

function offsetMinutes(instant: Date, timeZone: string): number {
  const name = new Intl.DateTimeFormat("en-US", { timeZone, timeZoneName: "longOffset" })
    .formatToParts(instant)
    .find((p) => p.type === "timeZoneName")?.value ?? "GMT";
  const m = /^GMT([+-])(\d{2}):(\d{2})$/.exec(name);
  if (!m) return 0; // "GMT" alone is offset zero
  return (m[1] === "-" ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

/** The last millisecond of the calendar day `date` (YYYY-MM-DD) in `timeZone`. */
export function endOfDay(date: string, timeZone: string): Date {
  const [y, mo, d] = date.split("-").map(Number) as [number, number, number];
  const nextMidnightUtc = Date.UTC(y, mo - 1, d + 1);
  // Local midnight = UTC midnight minus the offset; the offset is read at the guess and
  // read again at the result, which settles it even across an offset change.
  let instant = nextMidnightUtc - offsetMinutes(new Date(nextMidnightUtc), timeZone) * 60_000;
  instant = nextMidnightUtc - offsetMinutes(new Date(instant), timeZone) * 60_000;
  return new Date(instant - 1);
}

