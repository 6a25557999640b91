import { SOFT_DESCRIPTOR_MAX } from "../../../modules/merchants/merchants.schemas.js";
import { html, type Html } from "../../html.js";
import type { FieldErrors, PanelCtx } from "../context.js";
import { SPLIT_ROWS } from "../panel.schemas.js";
import { csrfInput, dl, field, formErrors, select } from "../ui.js";

// Settings: the merchant's profile (name and default soft descriptor; e-mail and Connect access
// are the operator's, shown only) and the default split of charges that carry none (Connect).

export type Form = { errors?: FieldErrors; values?: Record<string, unknown> };
type Profile = { id: string; email: string; name: string; softDescriptor: string | null; connectEnabled: boolean };
type Share = { merchantId: string; percentage: number };

function profileForm(p: PanelCtx, profile: Profile, { errors, values }: Form): Html {
  const { t } = p;
  const value = (k: "name" | "softDescriptor") => (values ? values[k] : profile[k]);
  return html`<section class="card" aria-labelledby="pr"><h2 id="pr">${t("settings.profile")}</h2>${dl([
    [t("col.email"), profile.email], [t("col.id"), html`<code>${profile.id}</code>`],
    [t("nav.connect"), t(profile.connectEnabled ? "settings.connectOn" : "settings.connectOff")],
  ])}<p class="hint">${t("settings.profileHint")}</p>${formErrors(p, errors)}
<form method="post" action="/panel/settings/profile">${csrfInput(p)}
${field({ name: "name", label: t("col.name"), value: value("name"), errors, required: true, attrs: { maxlength: 200, autocomplete: "organization" }, prefix: "profile" })}
${field({ name: "softDescriptor", label: t("settings.softDescriptor"), value: value("softDescriptor"), errors, hint: t("settings.softDescriptorHint", { n: SOFT_DESCRIPTOR_MAX }), attrs: { maxlength: SOFT_DESCRIPTOR_MAX, autocapitalize: "characters", spellcheck: "false" }, prefix: "profile" })}
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
export function settingsPage(p: PanelCtx, v: { profile: Profile; split: Share[]; recipients: [string, string][] }, refused: { profile?: Form; split?: Form } = {}): Html {
  return html`${profileForm(p, v.profile, refused.profile ?? {})}
${p.merchant.connectEnabled && splitForm(p, v.split, v.recipients, refused.split ?? {})}`;
}
