// Brazilian due dates (boletos) are days of Brasília time, payable until the end of that day.
// The day arithmetic is lib/calendar.ts, shared with the panel's days in the merchant's zone.

/** America/Sao_Paulo: Brasília time, UTC-3 all year since 2019. */
export const BRAZIL_TIME_ZONE = "America/Sao_Paulo";

export { calendarDate, endOfDay } from "../lib/calendar.js";
