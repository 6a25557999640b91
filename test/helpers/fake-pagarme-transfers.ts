import type { ApiRequest, Reply } from "./fake-provider.js";

// Pagar.me's recipients' transfer settings, for the fake (docs/processors.md, "Pagar.me transfer
// settings"): CreateRecipientRequest.transfer_settings (CreateTransferSettingsRequest:
// transfer_enabled boolean, transfer_interval string, transfer_day integer, all required) and
// PATCH /recipients/{id}/transfer-settings (UpdateTransferSettingsRequest: the same three
// fields, declared as strings in the official SDK's model), answering the recipient
// (GetRecipientResponse.transfer_settings). Pagar.me's reference: transfer_interval Daily,
// Weekly or Monthly; transfer_day 0 for Daily, 1 (Monday) to 5 (Friday) for Weekly, 1 to 31 for
// Monthly. Where the documents do not say how strictly it is checked, the fake refuses anything
// else with 422, and takes "true"/"false" and digit strings where the SDK's model sends strings.

type Obj = Record<string, unknown>;
export interface TransferSettings { transfer_enabled: boolean; transfer_interval: "Daily" | "Weekly" | "Monthly"; transfer_day: number }

const INTERVALS = new Set(["Daily", "Weekly", "Monthly"]);

/** The settings a body gives, or the field errors (keyed as Pagar.me keys them, under `at`). */
export function parseTransferSettings(raw: unknown, at: string): { settings: TransferSettings } | { errors: Record<string, string[]> } {
  const b = (raw && typeof raw === "object" ? raw : {}) as Obj;
  const errors: Record<string, string[]> = {};
  const enabled = b.transfer_enabled === true || b.transfer_enabled === "true" ? true : b.transfer_enabled === false || b.transfer_enabled === "false" ? false : undefined;
  if (enabled === undefined) errors[`${at}transfer_enabled`] = ["The transfer_enabled field is required."];
  const interval = b.transfer_interval;
  if (typeof interval !== "string" || !INTERVALS.has(interval)) errors[`${at}transfer_interval`] = ["The transfer_interval field must be Daily, Weekly or Monthly."];
  const dayRaw = typeof b.transfer_day === "string" && /^\d+$/.test(b.transfer_day) ? Number(b.transfer_day) : b.transfer_day;
  const day = Number.isSafeInteger(dayRaw) ? (dayRaw as number) : undefined;
  const range = interval === "Daily" ? [0, 0] : interval === "Weekly" ? [1, 5] : [1, 31];
  if (day === undefined || day < range[0]! || day > range[1]!) errors[`${at}transfer_day`] = [`The transfer_day field must be between ${range[0]} and ${range[1]} for ${String(interval)}.`];
  if (Object.keys(errors).length > 0) return { errors };
  return { settings: { transfer_enabled: enabled!, transfer_interval: interval as TransferSettings["transfer_interval"], transfer_day: day! } };
}

/** PATCH /recipients/{id}/transfer-settings on the fake's recipients; undefined for another route. */
export function transferSettingsApi(
  req: ApiRequest, recipients: Map<string, Obj>, err: (status: number, message: string, extra?: Obj) => Reply,
): Reply | undefined {
  const m = /^\/recipients\/([\w-]+)\/transfer-settings$/.exec(req.path);
  if (!m || req.method !== "PATCH") return undefined;
  const r = recipients.get(m[1]!);
  if (!r) return err(404, "Recipient not found.");
  const parsed = parseTransferSettings(req.json, "");
  if ("errors" in parsed) return err(422, "The request is invalid.", { errors: parsed.errors });
  r.transfer_settings = parsed.settings;
  r.updated_at = new Date().toISOString();
  return { status: 200, body: r };
}
