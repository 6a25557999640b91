// The Pix end-to-end id (EndToEndId) that the paying institution gives every Pix transfer, as the
// Central Bank of Brazil defines it: 32 characters, `E` + the payer institution's 8-digit ISPB +
// the date and time of the order in UTC, yyyyMMddHHmm + 11 letters or digits
// (ExxxxxxxxyyyyMMddHHmmkkkkkkkkkkk; docs/processors.md, "Payouts in production", has the sources).
// The settlement system accepts the date-time up to 12 hours either side of when it processed
// the transfer, so that is the slack allowed when an id is checked against a payout's dates.

export const END_TO_END_ID_LENGTH = 32;
export const END_TO_END_SLACK_MS = 12 * 60 * 60 * 1000;

const FIELD = "endToEndId";
const SHAPE = "E, the paying institution's 8-digit ISPB, the transfer's date and time in UTC as yyyyMMddHHmm, and 11 letters or digits";

/** The UTC date-time of yyyyMMddHHmm, or null when it names no real minute (2026-02-30, 24:00). */
function dateTimeOf(stamp: string): Date | null {
  if (!/^\d{12}$/.test(stamp)) return null;
  const [y, mo, d, h, mi] = [stamp.slice(0, 4), stamp.slice(4, 6), stamp.slice(6, 8), stamp.slice(8, 10), stamp.slice(10, 12)].map(Number) as [number, number, number, number, number];
  const at = new Date(Date.UTC(y, mo - 1, d, h, mi));
  // Date.UTC rolls over (month 13, day 30 of February, hour 24): a real date-time survives the round trip.
  const same = at.getUTCFullYear() === y && at.getUTCMonth() === mo - 1 && at.getUTCDate() === d && at.getUTCHours() === h && at.getUTCMinutes() === mi;
  return same ? at : null;
}

/** When the transfer was ordered, from a well-formed id (see endToEndIdProblem). */
export function endToEndIdDate(id: string): Date | null {
  return dateTimeOf(id.slice(9, 21));
}

/**
 * Why `id` is not a Pix end-to-end id, in a sentence that names the field, or null when it is
 * one. Each rule has its own message, so the operator knows which part was mistyped.
 */
export function endToEndIdProblem(id: string): string | null {
  if (id.length !== END_TO_END_ID_LENGTH) return `${FIELD} must be ${END_TO_END_ID_LENGTH} characters (${SHAPE}); got ${id.length}`;
  if (id[0] !== "E") return `${FIELD} must start with the letter E (${SHAPE})`;
  if (!/^\d{8}$/.test(id.slice(1, 9))) return `${FIELD} characters 2 to 9 must be the 8-digit ISPB of the paying institution`;
  if (!endToEndIdDate(id)) return `${FIELD} characters 10 to 21 must be the transfer's date and time in UTC as yyyyMMddHHmm; ${id.slice(9, 21)} is not a real date and time`;
  if (!/^[A-Za-z0-9]{11}$/.test(id.slice(21))) return `${FIELD} characters 22 to 32 must be 11 letters or digits`;
  return null;
}

/**
 * Why a well-formed id cannot be the transfer of something requested at `requestedAt` and
 * recorded at `now`: dated after now, or before the request (each with the 12 hours of slack).
 */
export function endToEndIdTimeProblem(id: string, requestedAt: Date, now: Date): string | null {
  const at = endToEndIdDate(id);
  if (!at) return endToEndIdProblem(id);
  const shown = at.toISOString().slice(0, 16).replace("T", " ");
  if (at.getTime() > now.getTime() + END_TO_END_SLACK_MS) return `${FIELD} is dated ${shown} UTC, later than now: it is not the id of a transfer already made`;
  if (at.getTime() < requestedAt.getTime() - END_TO_END_SLACK_MS) {
    return `${FIELD} is dated ${shown} UTC, before the payout was requested (${requestedAt.toISOString()}): it is the id of another transfer`;
  }
  return null;
}

/** An id of that shape; `suffix` is the 11 letters or digits (the simulator draws them). */
export function makeEndToEndId(ispb: string, at: Date, suffix: string): string {
  const iso = at.toISOString(); // 2026-11-25T14:07:44.000Z
  const stamp = iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16);
  return `E${ispb}${stamp}${suffix}`;
}
