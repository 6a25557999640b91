import { createHmac, timingSafeEqual } from "node:crypto";
import type { IncomingNotice, NoticeReading, NoticeRegistration, NoticeRegistrationPart, NoticeRegistrationResult } from "../definition.js";
import type { CallResult } from "../http-client.js";
import { createEfiClient, efiIds, type EfiClient, type EfiConnection } from "./client.js";

// Efí's notices. Efí signs nothing and, with `x-skip-mtls-checking`, presents no certificate
// feira checks; what proves a notice comes from the URL feira registered is the secret `hmac`
// query parameter in it (Efí's documented scheme). The secret is derived from the client secret
// (HMAC-SHA256), so every process of a deployment agrees on it with no further setting, and it
// reveals nothing of the client secret. A notice only names cobs (by txid, and the charge id it
// was derived from) and sends (by idEnvio): they are read back from Efí before anything changes. Efí's probe at registration,
// a POST with no `pix`, is answered 200 and names nothing.

const NOTICE_PATH = "/v1/processors/efi/webhooks";
/** What Efí may append to the URL: `/pix` (charges, devoluções, sends), `/rec`, `/cobr` (Pix Automático). */
const SUFFIXES = new Set(["", "pix", "rec", "cobr"]);
const ID = /^[A-Za-z0-9]{1,35}$/;

export interface EfiNoticeOptions extends EfiConnection {
  pixKey: string;
  apiUrl: string;
}

/** The `hmac` parameter of feira's notice URL. */
export const efiNoticeSecret = (clientSecret: string) => createHmac("sha256", clientSecret).update("feira efi notices").digest("hex").slice(0, 32);

/** The URL registered at Efí: `ignorar=` takes what Efí appends (`/pix`) as its value, out of the path. */
export const efiNoticeUrl = (publicBaseUrl: string, secret: string) => `${publicBaseUrl.replace(/\/+$/, "")}${NOTICE_PATH}?hmac=${secret}&ignorar=`;

function sameSecret(given: string | undefined, secret: string): boolean {
  const a = Buffer.from(given ?? "");
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function readEfiNotice(notice: IncomingNotice, o: { clientSecret: string }): NoticeReading {
  if (!o.clientSecret || !sameSecret(notice.query.hmac, efiNoticeSecret(o.clientSecret))) {
    return { outcome: "refused", status: 401, message: "hmac is not the secret of the URL feira registered at Efí" };
  }
  if (!SUFFIXES.has(notice.subPath)) return { outcome: "refused", status: 422, message: "the path after /webhooks must be pix, rec or cobr" };
  const body = notice.body as { pix?: unknown; recs?: unknown; cobsr?: unknown } | null | undefined;
  // Pix Automático (webhookrec, webhookcobr): only the recurrence's idRec and the recurring charge's txid are taken.
  if (body?.recs !== undefined || body?.cobsr !== undefined) {
    const mandates = refsOf(body.recs, "idRec");
    const debits = refsOf(body.cobsr, "txid");
    if (!mandates || !debits) return { outcome: "refused", status: 422, message: "recs and cobsr must be lists of at most 1000 recurrences or recurring charges" };
    // A cobr is a pix_automatico charge's payment: its txid (and the charge id it was derived from) is read back as a Pix's is.
    return { outcome: "accepted", payments: withFeiraIds(debits), mandates, debits };
  }
  const items = body?.pix;
  if (items === undefined) return { outcome: "accepted", payments: [] };
  if (!Array.isArray(items) || items.length > 1000) return { outcome: "refused", status: 422, message: "pix must be a list of at most 1000 Pix" };
  const payments = new Set<string>();
  const payouts = new Set<string>();
  for (const item of items as { txid?: unknown; endToEndId?: unknown; devolucoes?: unknown; gnExtras?: { idEnvio?: unknown } }[]) {
    // A devolução received on a sent Pix names the send: by idEnvio, or only by its end-to-end id.
    const returnedSend = item?.txid === undefined && item?.devolucoes !== undefined ? item.endToEndId : undefined;
    for (const [ref, into] of [[item?.txid, payments], [item?.gnExtras?.idEnvio, payouts], [returnedSend, payouts]] as const) {
      if (typeof ref === "string" && ID.test(ref)) into.add(ref);
    }
  }
  return { outcome: "accepted", payments: withFeiraIds(payments), payouts: withFeiraIds(payouts) };
}

/** Each id with the feira id it was derived from, if any: a notice then finds a charge whose create's answer was lost. */
function withFeiraIds(refs: Iterable<string>): string[] {
  return [...new Set([...refs].flatMap((ref) => [ref, efiIds.feiraId(ref) ?? []].flat()))];
}

/** The well-formed ids under `key` of a notice's list; null when it is not a list. */
function refsOf(list: unknown, key: "idRec" | "txid"): string[] | null {
  if (list === undefined) return [];
  if (!Array.isArray(list) || list.length > 1000) return null;
  return [...new Set(list.map((x) => (x as Record<string, unknown> | null)?.[key]).filter((v): v is string => typeof v === "string" && ID.test(v)))];
}

/**
 * Each registration feira makes at Efí: what it is, its call, and the scope the Central Bank's
 * OpenAPI 2.9.0 names for it (`security`: webhook.write, webhookrec.write, webhookcobr.write).
 */
const REGISTRATIONS = [
  { name: "pix", what: "the Pix notices", scope: "webhook.write", call: (c: EfiClient, o: EfiNoticeOptions, url: string) => c.registerWebhook(o.pixKey, url) },
  { name: "rec", what: "the recurrences' notices (Pix Automático)", scope: "webhookrec.write", call: (c: EfiClient, _o: EfiNoticeOptions, url: string) => c.registerRecWebhook("webhookrec", url) },
  { name: "cobr", what: "the recurring charges' notices (Pix Automático)", scope: "webhookcobr.write", call: (c: EfiClient, _o: EfiNoticeOptions, url: string) => c.registerRecWebhook("webhookcobr", url) },
] as const;

/** One registration's outcome in the operator's words: a 403 is a scope the application lacks (named), another 4xx Efí's refusal of the URL. */
function partOf(r: { name: string; what: string; scope: string }, result: CallResult): NoticeRegistrationPart {
  if (result.ok) return { name: r.name, outcome: "registered" };
  const f = result.failure;
  if (f.kind !== "http_4xx") return { name: r.name, outcome: "unknown", message: `Efí gave no answer to rely on for ${r.what} (${f.kind}); registering again is safe` };
  const code = `${f.status}, code ${f.providerCode ?? "none"}`;
  return {
    name: r.name, outcome: "refused",
    message: f.status === 403
      ? `Efí refused ${r.what} (${code}): the Efí application lacks the scope ${r.scope}; enable it in Efí's dashboard (API, the application's scopes) and register again`
      : `Efí refused ${r.what} (${code}): Efí probes the URL first, so PUBLIC_BASE_URL must reach feira from the internet`,
  };
}

/**
 * Registers feira's notice URL at Efí: for the account's Pix key (PUT /v2/webhook/{chave}), and
 * for recurrences and recurring charges (PUT /v2/webhookrec, /v2/webhookcobr). Each is made and
 * reported on its own: an application without Pix Automático's scopes still has its Pix notices
 * registered, and the answer names the scope that is missing. The outcome is the Pix one's.
 */
export async function registerEfiNotices(o: EfiNoticeOptions, at: NoticeRegistration): Promise<NoticeRegistrationResult> {
  const secret = efiNoticeSecret(o.clientSecret);
  const url = efiNoticeUrl(at.publicBaseUrl, secret);
  const client = createEfiClient({ ...o, baseUrl: o.apiUrl, timeoutMs: at.limits.timeoutMs, connections: 1 });
  try {
    const parts: NoticeRegistrationPart[] = [];
    for (const r of REGISTRATIONS) parts.push(partOf(r, await r.call(client, o, url)));
    const [pix] = parts;
    if (pix?.outcome === "registered") return { outcome: "registered", webhookUrl: url.replace(secret, "***"), parts };
    const others = parts.slice(1).map((p) => `${p.name}: ${p.outcome}`).join(", ");
    return { outcome: pix?.outcome ?? "unknown", message: `${pix?.message ?? "nothing was registered"} (${others})` };
  } finally {
    await client.close();
  }
}
