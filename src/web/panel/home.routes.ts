import type { FastifyInstance } from "fastify";
import { currencyExponent } from "../../lib/money.js";
import { esc } from "../html.js";
import { chargeTable, type ChargeView } from "./charges.routes.js";
import type { PanelCtx } from "./context.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";
import { link, table } from "./ui.js";

// Home: balances per currency, today's and the last 30 days' sales with a chart (inline SVG made
// here, nothing fetched from elsewhere), and the latest charges.

const hidden = { config: { auth: "public" as const, idempotent: false }, schema: { hide: true } };
const DAY = 86_400_000;

/** Currency units back to minor units for summing (exact for amounts a JSON number carries). */
const minorOf = (units: number, currency: string) => Math.round(units * 10 ** (currencyExponent(currency) ?? 2));

export function salesChart(p: PanelCtx, days: { day: string; minor: number }[], currency: string): string {
  const w = 600, h = 160, pad = 24;
  const max = Math.max(1, ...days.map((d) => d.minor));
  const bw = (w - pad * 2) / days.length;
  const bars = days.map((d, i) => {
    const bh = Math.round(((h - pad * 2) * d.minor) / max);
    return `<rect x="${(pad + i * bw + 1).toFixed(1)}" y="${h - pad - bh}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${bh}" class="bar"><title>${esc(`${p.date(d.day, false)}: ${p.money(d.minor, currency)}`)}</title></rect>`;
  }).join("");
  const total = days.reduce((s, d) => s + d.minor, 0);
  const label = p.t("home.chartLabel", { currency, total: p.money(total, currency) });
  return `<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="${esc(label)}" preserveAspectRatio="none">
<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" class="axis"/>${bars}
<text x="${pad}" y="${h - 6}" class="tick">${esc(p.date(days[0]!.day, false))}</text><text x="${w - pad}" y="${h - 6}" class="tick end">${esc(p.date(days[days.length - 1]!.day, false))}</text>
</svg>`;
}

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
    app.get<{ Querystring: { shipping?: string; reason?: string } }>("/panel", hidden, async (req, reply) => {
      const p = req.panel!;
      const { t } = p;
      // The shipping OAuth callback lands here (PANEL_URL): show its outcome on the shipping page.
      if (req.query.shipping) {
        const q = new URLSearchParams({ shipping: req.query.shipping, ...(req.query.reason ? { reason: req.query.reason } : {}) });
        return reply.redirect(`/panel/shipping?${q}`, 303);
      }
      const today = new Date(new Date().toISOString().slice(0, 10) + "T00:00:00.000Z").getTime();
      const since = new Date(today - 29 * DAY).toISOString();
      const [balance, sales, latest] = await Promise.all([
        services.ledger.balance(p.ctx), recentSales(p, since), services.charges.list(p.ctx, { limit: 5 }),
      ]);
      const currencies = [...new Set([...balance.available, ...balance.pending].map((b) => b.currency).concat(sales.map((s) => s.currency)))].sort();
      const amountOf = (list: { currency: string; amount: number }[], cur: string) => list.find((b) => b.currency === cur)?.amount ?? 0;
      const balances = table([t("home.currency"), t("home.available"), t("home.pending")],
        currencies.map((cur) => [esc(cur), esc(p.money(amountOf(balance.available, cur), cur)), esc(p.money(amountOf(balance.pending, cur), cur))]), t("home.noBalance"));
      const main = currencies.includes("BRL") ? "BRL" : currencies[0] ?? "BRL";
      const days = Array.from({ length: 30 }, (_, i) => ({ day: new Date(today - (29 - i) * DAY).toISOString().slice(0, 10), minor: 0 }));
      let todayMinor = 0, todayCount = 0, monthMinor = 0;
      for (const c of sales.filter((s) => s.currency === main)) {
        const minor = minorOf(c.amount, c.currency);
        const slot = days.find((d) => d.day === c.createdAt.slice(0, 10));
        if (slot) slot.minor += minor;
        monthMinor += minor;
        if (Date.parse(c.createdAt) >= today) { todayMinor += minor; todayCount++; }
      }
      const body = `<section class="tiles" aria-label="${esc(t("home.sales"))}">
<div class="tile"><h2>${esc(t("home.today"))}</h2><p class="big">${esc(p.money(todayMinor, main))}</p><p class="muted">${esc(t("home.count", { n: todayCount }))}</p></div>
<div class="tile"><h2>${esc(t("home.month"))}</h2><p class="big">${esc(p.money(monthMinor, main))}</p><p class="muted">${esc(t("home.count", { n: sales.filter((s) => s.currency === main).length }))}</p></div>
</section>
<section class="card" aria-labelledby="chart-title"><h2 id="chart-title">${esc(t("home.chartTitle", { currency: main }))}</h2>${salesChart(p, days, main)}</section>
<section class="card" aria-labelledby="bal-title"><h2 id="bal-title">${esc(t("home.balances"))}</h2>${balances}</section>
<section class="card" aria-labelledby="latest-title"><h2 id="latest-title">${esc(t("home.latest"))}</h2>${chargeTable(p, latest.data)}<p>${link("/panel/charges", t("home.allCharges"))}</p></section>`;
      return kit.html(reply, renderPage(p, { title: t("nav.home"), area: "home", body, path: "/panel" }));
    });
  };
}
