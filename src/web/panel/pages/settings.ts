import { SOFT_DESCRIPTOR_MAX } from "../../../modules/merchants/merchants.schemas.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { SPLIT_ROWS } from "../panel.schemas.js";
import { csrfInput, dl, field, formErrors, select } from "../ui.js";

// Settings: the merchant's profile (name and default soft descriptor; e-mail and Connect access
// are the operator's, shown only) and the default split of charges that carry none (Connect).

export type Form = { errors?: FieldErrors; values?: Record<string, unknown> };
type Profile = { id: string; email: string; name: string; softDescriptor: string | null; timezone: string; connectEnabled: boolean };

/** The runtime's IANA zones, Brazil's first (where most merchants are), the current one kept if the list lacks it. */
function zoneOptions(current: unknown): [string, string][] {
  const all = Intl.supportedValuesOf("timeZone");
  const brazil = [...BRAZIL_ZONES].filter((z) => all.includes(z));
  const chosen = typeof current === "string" && current && !all.includes(current) ? [current] : [];
  return [...chosen, ...brazil, ...all.filter((z) => !BRAZIL_ZONES.has(z))].map((z): [string, string] => [z, z.replace(/_/g, " ")]);
}
const BRAZIL_ZONES = new Set(["America/Sao_Paulo", "America/Bahia", "America/Fortaleza", "America/Recife", "America/Belem", "America/Manaus", "America/Cuiaba", "America/Campo_Grande", "America/Porto_Velho", "America/Boa_Vista", "America/Rio_Branco", "America/Noronha"]);
type Share = { merchantId: string; percentage?: number };

function profileForm(p: PanelCtx, profile: Profile, { errors, values }: Form): Html {
  const { t } = p;
  const value = (k: "name" | "softDescriptor" | "timezone") => (values ? values[k] ?? (k === "timezone" ? profile.timezone : undefined) : profile[k]);
  return html`<section class="card" aria-labelledby="pr"><h2 id="pr">${t("settings.profile")}</h2>${dl([
    [t("col.email"), profile.email], [t("col.id"), html`<code>${profile.id}</code>`],
    [t("nav.connect"), t(profile.connectEnabled ? "settings.connectOn" : "settings.connectOff")],
  ])}<p class="hint">${t("settings.profileHint")}</p>${formErrors(p, errors)}
<form method="post" action="/panel/settings/profile">${csrfInput(p)}
${field({ name: "name", label: t("col.name"), value: value("name"), errors, required: true, attrs: { maxlength: 200, autocomplete: "organization" }, prefix: "profile" })}
${field({ name: "softDescriptor", label: t("settings.softDescriptor"), value: value("softDescriptor"), errors, hint: t("settings.softDescriptorHint", { n: SOFT_DESCRIPTOR_MAX }), attrs: { maxlength: SOFT_DESCRIPTOR_MAX, autocapitalize: "characters", spellcheck: "false" }, prefix: "profile" })}
${select({ name: "timezone", label: t("settings.timezone"), value: value("timezone"), options: zoneOptions(value("timezone")), errors, hint: t("settings.timezoneHint"), prefix: "profile" })}
<button type="submit" class="primary">${t("settings.saveProfile")}</button></form></section>`;
}

function splitForm(p: PanelCtx, split: Share[], recipients: [string, string][], { errors, values }: Form): Html {
  const { t } = p;
  const value = (i: number, k: "merchantId" | "percentage") => (values ? values[`defaultSplit.${i}.${k}`] : split[i]?.[k]);
  const options = (current: unknown): [string, string][] => {
    const id = typeof current === "string" ? current : "";
    // A saved or typed id that is not among them (a submerchant since removed) stays as it is.
    const stray: [string, string][] = id && !recipients.some(([k]) => k === id) ? [[id, id]] : [];
    return [["", t("settings.noRecipient")], ...recipients, ...stray];
  };
  const rows = Array.from({ length: SPLIT_ROWS }, (_, i) => html`<fieldset><legend>${t("settings.share", { n: i + 1 })}</legend><div class="grid2">
${select({ name: `defaultSplit.${i}.merchantId`, label: t("settings.recipient"), value: value(i, "merchantId"), options: options(value(i, "merchantId")), errors, prefix: "split" })}
${field({ name: `defaultSplit.${i}.percentage`, label: t("settings.percentage"), value: value(i, "percentage"), errors, attrs: { inputmode: "decimal" }, prefix: "split" })}</div></fieldset>`);
  return html`<section class="card" aria-labelledby="ds"><h2 id="ds">${t("connect.defaultSplit")}</h2><p>${t("settings.splitHint")}</p>${formErrors(p, errors)}
<form method="post" action="/panel/settings/split">${csrfInput(p)}${rows}<button type="submit" class="primary">${t("settings.saveSplit")}</button></form></section>`;
}

/** The page, with the form that was just refused showing its values and errors. */
export function settingsPage(p: PanelCtx, v: { profile: Profile; split: Share[]; recipients: [string, string][]; settlement?: "platform" | "provider" }, refused: { profile?: Form; split?: Form } = {}): Html {
  return html`${profileForm(p, v.profile, refused.profile ?? {})}
${p.merchant.connectEnabled && splitForm(p, v.split, v.recipients, refused.split ?? {})}
${p.merchant.connectEnabled && v.settlement ? settlementCard(p, v.settlement) : ""}`;
}

/** Connect's settlement, with what each one means in a sentence (set with PUT /v1/connect/settings). */
function settlementCard(p: PanelCtx, settlement: "platform" | "provider"): Html {
  const { t } = p;
  return html`<section class="card" aria-labelledby="stl"><h2 id="stl">${t("settings.settlement")}</h2>
<p>${t("settings.settlementCurrent")} <strong>${settlement}</strong></p>
<dl><dt>platform</dt><dd>${t("settings.settlementPlatform")}</dd><dt>provider</dt><dd>${t("settings.settlementProvider")}</dd></dl></section>`;
}
