import type { FastifyInstance } from "fastify";
import { ConnectSettings } from "../../modules/connect/connect.schemas.js";
import { PatchProfileBody, SOFT_DESCRIPTOR_MAX } from "../../modules/merchants/merchants.schemas.js";
import { esc } from "../html.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { amount, attempt, checkBody, text } from "./forms.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { formatDocument } from "./format.js";
import { csrfInput, dl, field, formErrors, select } from "./ui.js";

// Settings: the merchant's profile (name and default soft descriptor, through the same schema and
// service as PATCH /v1/merchant; e-mail and Connect access are the operator's, shown only) and
// the default split of charges that carry none (Connect).

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
const SPLIT_ROWS = 5;
/** 1,000 submerchants to choose from, at most, in the form. */
const MAX_RECIPIENT_PAGES = 10;

export function settingsRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const connect = services.connect.service;

  async function profileForm(p: PanelCtx, errors?: FieldErrors, values?: Record<string, unknown>) {
    const { t } = p;
    const profile = await services.merchants.getProfile(p.merchant.id);
    const value = (k: "name" | "softDescriptor") => values ? values[k] : profile[k];
    return `<section class="card" aria-labelledby="pr"><h2 id="pr">${esc(t("settings.profile"))}</h2>${dl([
      [t("col.email"), esc(profile.email)], [t("col.id"), `<code>${esc(profile.id)}</code>`],
      [t("nav.connect"), esc(t(profile.connectEnabled ? "settings.connectOn" : "settings.connectOff"))],
    ])}<p class="hint">${esc(t("settings.profileHint"))}</p>${formErrors(p, errors)}
<form method="post" action="/panel/settings/profile">${csrfInput(p)}
${field({ name: "name", label: t("col.name"), value: value("name"), errors, required: true, attrs: 'maxlength="200" autocomplete="organization"', prefix: "profile" })}
${field({ name: "softDescriptor", label: t("settings.softDescriptor"), value: value("softDescriptor"), errors, hint: t("settings.softDescriptorHint", { n: SOFT_DESCRIPTOR_MAX }), attrs: `maxlength="${SOFT_DESCRIPTOR_MAX}" autocapitalize="characters" spellcheck="false"`, prefix: "profile" })}
<button type="submit" class="primary">${esc(t("settings.saveProfile"))}</button></form></section>`;
  }

  type Form = { errors?: FieldErrors; values?: Record<string, unknown> };

  /**
   * The submerchants of this environment that a share can go to, by name: a person picks a
   * shop, not an id. Their CNPJ tells apart two of the same trade name.
   */
  async function recipients(p: PanelCtx): Promise<[string, string][]> {
    const out: [string, string][] = [];
    for (let page = 1; page <= MAX_RECIPIENT_PAGES; page++) {
      const found = await connect.list(p.ctx, { page, size: 100 });
      out.push(...found.data.map((s): [string, string] => [s.id, `${s.tradeName} (${formatDocument("cnpj", s.companyTaxId)})`]));
      if (page >= found.pages) break;
    }
    return out.sort((a, b) => a[1].localeCompare(b[1], p.lang));
  }

  /** The page, with the form that was just refused showing its values and errors. */
  async function view(p: PanelCtx, refused: { profile?: Form; split?: Form } = {}) {
    const { t } = p;
    const { errors, values } = refused.split ?? {};
    const split = p.merchant.connectEnabled ? (await connect.getSettings(p.ctx)).defaultSplit : [];
    const value = (i: number, k: "merchantId" | "percentage") => values ? values[`defaultSplit.${i}.${k}`] : split[i]?.[k];
    const known = p.merchant.connectEnabled ? await recipients(p) : [];
    const options = (current: unknown): [string, string][] => {
      const id = typeof current === "string" ? current : "";
      // A saved or typed id that is not among them (a submerchant since removed) stays as it is.
      const stray: [string, string][] = id && !known.some(([k]) => k === id) ? [[id, id]] : [];
      return [["", t("settings.noRecipient")], ...known, ...stray];
    };
    const rows = Array.from({ length: SPLIT_ROWS }, (_, i) => `<fieldset><legend>${esc(t("settings.share", { n: i + 1 }))}</legend><div class="grid2">
${select({ name: `defaultSplit.${i}.merchantId`, label: t("settings.recipient"), value: value(i, "merchantId"), options: options(value(i, "merchantId")), errors, prefix: "split" })}
${field({ name: `defaultSplit.${i}.percentage`, label: t("settings.percentage"), value: value(i, "percentage"), errors, attrs: 'inputmode="decimal"', prefix: "split" })}</div></fieldset>`).join("");
    return `${await profileForm(p, refused.profile?.errors, refused.profile?.values)}
${p.merchant.connectEnabled ? `<section class="card" aria-labelledby="ds"><h2 id="ds">${esc(t("connect.defaultSplit"))}</h2><p>${esc(t("settings.splitHint"))}</p>${formErrors(p, errors)}
<form method="post" action="/panel/settings/split">${csrfInput(p)}${rows}<button type="submit" class="primary">${esc(t("settings.saveSplit"))}</button></form></section>` : ""}`;
  }

  return async (app: FastifyInstance) => {
    app.get("/panel/settings", hidden, async (req, reply) => {
      const p = req.panel!;
      return kit.html(reply, renderPage(p, { title: p.t("nav.settings"), area: "settings", body: await view(p), path: "/panel/settings" }));
    });

    app.post("/panel/settings/profile", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      // An empty soft descriptor removes it; an empty name is refused as the API refuses "".
      const input = { name: text(form, "name") ?? "", softDescriptor: text(form, "softDescriptor") ?? null };
      let errors = checkBody(PatchProfileBody, input, p.t, { softDescriptor: p.t("settings.softDescriptorRule") });
      if (!errors) {
        const done = await attempt(() => services.merchants.updateProfile(p.merchant.id, input), p.t, { name: "", softDescriptor: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/settings", { notice: p.t("settings.profileSaved") });
        errors = done.errors;
      }
      return kit.html(reply, renderPage(p, { title: p.t("nav.settings"), area: "settings", body: await view(p, { profile: { errors, values: input } }), path: "/panel/settings" }), 422);
    });

    app.post("/panel/settings/split", hidden, async (req, reply) => {
      const p = req.panel!;
      const form = (req.body ?? {}) as Record<string, unknown>;
      const defaultSplit = [];
      for (let i = 0; i < SPLIT_ROWS; i++) {
        const merchantId = text(form, `defaultSplit.${i}.merchantId`);
        const percentage = amount(form, `defaultSplit.${i}.percentage`);
        if (merchantId === undefined && percentage === undefined) continue;
        defaultSplit.push({ merchantId: merchantId ?? "", percentage: percentage ?? "" });
      }
      const input = { defaultSplit };
      let errors = checkBody(ConnectSettings, input, p.t);
      if (!errors) {
        const fields = Object.fromEntries(Array.from({ length: SPLIT_ROWS }, (_, i) => [[`defaultSplit.${i}.merchantId`, ""], [`defaultSplit.${i}.percentage`, ""]]).flat());
        const done = await attempt(() => connect.putSettings(p.ctx, input.defaultSplit as { merchantId: string; percentage: number }[]), p.t, fields);
        if (done.ok) return kit.redirect(reply, p, "/panel/settings", { notice: p.t("settings.splitSaved") });
        errors = done.errors;
      }
      return kit.html(reply, renderPage(p, { title: p.t("nav.settings"), area: "settings", body: await view(p, { split: { errors, values: form } }), path: "/panel/settings" }), 422);
    });
  };
}
