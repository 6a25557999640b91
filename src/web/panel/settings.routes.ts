import type { FastifyInstance } from "fastify";
import { ConnectSettingsBody } from "../../modules/connect/connect.schemas.js";
import { NotificationSettings } from "../../modules/mail/mail.schemas.js";
import { PatchProfileBody } from "../../modules/merchants/merchants.schemas.js";
import type { PanelCtx } from "./context.js";
import { formatDocument } from "./format.js";
import { amount, attempt, checkBody, rowText } from "./forms.js";
import { html } from "../html.js";
import type { PanelKit } from "./kit.js";
import { renderPage } from "./pages/layout.js";
import { notificationsSection } from "./pages/notifications.js";
import { settingsPage, type Form } from "./pages/settings.js";
import { NoFields, NotificationsForm, ProfileForm, SPLIT_ROWS, SplitForm } from "./panel.schemas.js";
import { panelRouter } from "./router.js";

// Settings: the profile, through the same schema and service as PATCH /v1/merchant, the
// default split (Connect), and the e-mails to buyers with their outbox. The pages are
// pages/settings.ts and pages/notifications.ts.

/** 1,000 submerchants to choose from, at most, in the form. */
const MAX_RECIPIENT_PAGES = 10;

export function settingsRoutes(kit: PanelKit) {
  const { services } = kit.deps;
  const connect = services.connect.service;
  const mail = services.mail.service;

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

  async function view(p: PanelCtx, refused: { profile?: Form; split?: Form; mail?: Form } = {}) {
    const profile = await services.merchants.getProfile(p.merchant.id);
    const settings = p.merchant.connectEnabled ? await connect.getSettings(p.ctx) : undefined;
    const known = p.merchant.connectEnabled ? await recipients(p) : [];
    const notifications = { settings: { ...(await mail.settings(p.ctx)), sending: mail.sending(p.ctx.environment) }, emails: (await mail.list(p.ctx, { limit: 20 })).data };
    const page = settingsPage(p, { profile, split: settings?.defaultSplit ?? [], recipients: known, settlement: settings?.settlement }, refused);
    const body = html`${page}${notificationsSection(p, notifications, refused.mail ?? {})}`;
    return renderPage(p, { title: p.t("nav.settings"), area: "settings", body, path: "/panel/settings" });
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel/settings", NoFields, async ({ p }, reply) => kit.html(reply, await view(p)));

    route.post("/panel/settings/profile", ProfileForm, async ({ p, form, errors: formErrors }, reply) => {
      // An empty soft descriptor removes it; an empty name is refused as the API refuses "".
      const input = { name: form.name ?? "", softDescriptor: form.softDescriptor ?? null, ...(form.timezone ? { timezone: form.timezone } : {}) };
      let errors = formErrors ?? checkBody(PatchProfileBody, input, p.t, { softDescriptor: p.t("settings.softDescriptorRule") });
      if (!errors) {
        const done = await attempt(() => services.merchants.updateProfile(p.merchant.id, input), p.t, { name: "", softDescriptor: "", timezone: "" });
        if (done.ok) return kit.redirect(reply, p, "/panel/settings", { notice: p.t("settings.profileSaved") });
        errors = done.errors;
      }
      return kit.html(reply, await view(p, { profile: { errors, values: input } }), 422);
    });

    route.post("/panel/settings/notifications", NotificationsForm, async ({ p, form, errors: formErrors, sent }, reply) => {
      const days = form.daysBefore?.trim() ? Number(form.daysBefore) : null;
      const input = { receipts: form.receipts === "on", reminders: { daysBefore: days, overdue: form.overdue === "on" }, language: form.language ?? "pt-BR" };
      const errors = formErrors ?? checkBody(NotificationSettings, input, p.t);
      if (!errors) {
        await mail.saveSettings(p.ctx, { ...input, reminders: { ...input.reminders, daysBefore: days } });
        return kit.redirect(reply, p, "/panel/settings", { notice: p.t("mail.saved") });
      }
      return kit.html(reply, await view(p, { mail: { errors, values: sent } }), 422);
    });

    route.post("/panel/settings/split", SplitForm, async ({ p, form, errors: formErrors, sent }, reply) => {
      const defaultSplit = [];
      for (let i = 0; i < SPLIT_ROWS; i++) {
        const merchantId = rowText(form, `defaultSplit.${i}.merchantId`);
        const percentage = amount(rowText(form, `defaultSplit.${i}.percentage`));
        if (merchantId === undefined && percentage === undefined) continue;
        defaultSplit.push({ merchantId: merchantId ?? "", percentage: percentage ?? "" });
      }
      const input = { defaultSplit };
      let errors = formErrors ?? checkBody(ConnectSettingsBody, input, p.t);
      if (!errors) {
        const fields = Object.fromEntries(Array.from({ length: SPLIT_ROWS }, (_, i) => [[`defaultSplit.${i}.merchantId`, ""], [`defaultSplit.${i}.percentage`, ""]]).flat());
        const done = await attempt(() => connect.putSettings(p.ctx, { defaultSplit: input.defaultSplit as { merchantId: string; percentage: number }[] }), p.t, fields);
        if (done.ok) return kit.redirect(reply, p, "/panel/settings", { notice: p.t("settings.splitSaved") });
        errors = done.errors;
      }
      return kit.html(reply, await view(p, { split: { errors, values: sent } }), 422);
    });
  };
}
