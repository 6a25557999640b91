import type { RequestCtx } from "../../core/context.js";
import type { Lang, T } from "./i18n/i18n.js";
import type { Session } from "./session.js";

/** What every signed-in panel page has: the session, the services' context, language, formatting. */
export interface PanelCtx {
  session: Session;
  /** The same context an API call of this merchant and environment carries. */
  ctx: RequestCtx;
  t: T;
  lang: Lang;
  csrf: string;
  merchant: { id: string; name: string; email: string; connectEnabled: boolean };
  /** The merchant's IANA time zone (Settings): every date, day and "today" of the panel is in it. */
  timeZone: string;
  /** A notice (and at most one secret) carried over a redirect, shown once. */
  flash: Flash | null;
  money(minor: number, currency: string): string;
  units(units: number, currency: string): string;
  /** An instant in the merchant's zone; a bare YYYY-MM-DD is a day already, shown as it is. */
  date(iso: string | Date | null | undefined, withTime?: boolean): string;
}

export interface Flash {
  notice?: string;
  /** A secret shown this once (a new webhook secret or API key); never stored elsewhere. */
  secret?: { label: string; value: string }[];
}

export type FieldErrors = Record<string, string>;

/** A file of a multipart form, with the name the browser gave it. */
export interface Upload { name: string; content: Buffer }

declare module "fastify" {
  interface FastifyRequest {
    panel?: PanelCtx;
    /** A multipart form's files by field name, in the order sent (a multiple input sends several). */
    panelFiles?: Record<string, Upload[]>;
  }
}
