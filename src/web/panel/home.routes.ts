import type { FastifyInstance } from "fastify";
import { addDays, calendarDate, startOfDay } from "../../lib/calendar.js";
import { currencyExponent } from "../../lib/money.js";
import type { PanelCtx } from "./context.js";
import { buyersOf } from "./buyers.js";
import type { PanelKit } from "./kit.js";
import type { ChargeView } from "./pages/charges.js";
import { homePage } from "./pages/home.js";
import { renderPage } from "./pages/layout.js";
import { ReturnQuery } from "./panel.schemas.js";
import { panelRouter } from "./router.js";

// Home: the figures of pages/home.ts, summed here from the ledger and the charges list, and
// how many disputes wait for the merchant's response. "Today" and the chart's 30 days are days
// of the merchant's time zone (Brasília by default): a sale at 22:30 there is today's, though
// it is 01:30 of tomorrow in UTC.

/** Currency units back to minor units for summing (exact for amounts a JSON number carries). */
const minorOf = (units: number, currency: string) => Math.round(units * 10 ** (currencyExponent(currency) ?? 2));

export function homeRoutes(kit: PanelKit) {
  const { services } = kit.deps;

  /** Paid (and since refunded) charges of the last 30 days, through the list service. */
  async function recentSales(p: PanelCtx, since: string): Promise<ChargeView[]> {
    const out: ChargeView[] = [];
    for (const status of ["paid", "refunded"] as const) {
      let cursor: string | undefined;
      for (let i = 0; i < 20; i++) {
        const page = await services.charges.list(p.ctx, { status, createdGte: since, limit: 100, startingAfter: cursor });
        out.push(...page.data);
        if (!page.hasMore || page.data.length === 0) break;
        cursor = page.data[page.data.length - 1]!.id;
      }
    }
    return out;
  }

  return async (app: FastifyInstance) => {
    const route = panelRouter(app);
    route.get("/panel", ReturnQuery, async ({ p, form }, reply) => {
      // The shipping OAuth callback lands here (PANEL_URL): show its outcome on the shipping page.
      if (form.shipping) {
        const q = new URLSearchParams({ shipping: form.shipping, ...(form.reason ? { reason: form.reason } : {}) });
        return reply.redirect(`/panel/shipping?${q}`, 303);
      }
      const today = calendarDate(new Date(), p.timeZone);
      const since = startOfDay(addDays(today, -29), p.timeZone).toISOString();
      const [balance, sales, latest, toAnswer] = await Promise.all([
        services.ledger.balance(p.ctx), recentSales(p, since), services.charges.list(p.ctx, { limit: 5 }),
        services.modules.disputes.service.list(p.ctx, { status: "needs_response", limit: 1 }),
      ]);
      const currencies = [...new Set([...balance.available, ...balance.pending].map((b) => b.currency).concat(sales.map((s) => s.currency)))].sort();
      const amountOf = (list: { currency: string; amount: number }[], cur: string) => list.find((b) => b.currency === cur)?.amount ?? 0;
      const main = currencies.includes("BRL") ? "BRL" : currencies[0] ?? "BRL";
      const days = Array.from({ length: 30 }, (_, i) => ({ day: addDays(today, i - 29), minor: 0 }));
      const mainSales = sales.filter((s) => s.currency === main);
      let todayMinor = 0, todayCount = 0, monthMinor = 0;
      for (const c of mainSales) {
        const minor = minorOf(c.amount, c.currency);
        const day = calendarDate(new Date(c.createdAt), p.timeZone);
        const slot = days.find((d) => d.day === day);
        if (slot) slot.minor += minor;
        monthMinor += minor;
        if (day === today) { todayMinor += minor; todayCount++; }
      }
      const buyers = await buyersOf(services, p, latest.data);
      const body = homePage(p, {
        main, days, latest: latest.data, buyers, disputesToAnswer: toAnswer.meta.total,
        today: { minor: todayMinor, count: todayCount }, month: { minor: monthMinor, count: mainSales.length },
        balances: currencies.map((currency) => ({ currency, available: amountOf(balance.available, currency), pending: amountOf(balance.pending, currency) })),
      });
      return kit.html(reply, renderPage(p, { title: p.t("nav.home"), area: "home", body, path: "/panel" }));
    });
  };
}
