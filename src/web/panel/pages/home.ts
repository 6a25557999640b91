import { html, type Html } from "../../html.js";
import type { PanelCtx } from "../context.js";
import { link, table } from "../ui.js";
import { chargeTable, type Buyer, type ChargeView } from "./charges.js";

// Home: balances per currency, today's and the last 30 days' sales with a chart (inline SVG made
// here, nothing fetched from elsewhere), the latest charges, and the disputes waiting for an answer.

export interface HomeView {
  main: string;
  today: { minor: number; count: number };
  month: { minor: number; count: number };
  days: { day: string; minor: number }[];
  balances: { currency: string; available: number; pending: number }[];
  latest: ChargeView[];
  /** The latest charges' buyers, by customer id. */
  buyers: Map<string, Buyer>;
  /** Disputes in needs_response: money held until the merchant answers, by a deadline. */
  disputesToAnswer: number;
}

export function salesChart(p: PanelCtx, days: { day: string; minor: number }[], currency: string): Html {
  const w = 600, h = 160, pad = 24;
  const max = Math.max(1, ...days.map((d) => d.minor));
  const bw = (w - pad * 2) / days.length;
  const bars = days.map((d, i) => {
    const bh = Math.round(((h - pad * 2) * d.minor) / max);
    return html`<rect x="${(pad + i * bw + 1).toFixed(1)}" y="${h - pad - bh}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${bh}" class="bar"><title>${`${p.date(d.day, false)}: ${p.money(d.minor, currency)}`}</title></rect>`;
  });
  const total = days.reduce((s, d) => s + d.minor, 0);
  const label = p.t("home.chartLabel", { currency, total: p.money(total, currency) });
  return html`<svg class="chart" viewBox="0 0 ${w} ${h}" role="img" aria-label="${label}" preserveAspectRatio="none">
<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" class="axis"/>${bars}
<text x="${pad}" y="${h - 6}" class="tick">${p.date(days[0]!.day, false)}</text><text x="${w - pad}" y="${h - 6}" class="tick end">${p.date(days[days.length - 1]!.day, false)}</text>
</svg>`;
}

export function homePage(p: PanelCtx, v: HomeView): Html {
  const { t } = p;
  const balances = table([t("home.currency"), t("home.available"), t("home.pending")],
    v.balances.map((b) => [b.currency, p.money(b.available, b.currency), p.money(b.pending, b.currency)]), t("home.noBalance"));
  const disputes = v.disputesToAnswer > 0
    ? html`<div class="alert error" role="status"><p>${link("/panel/disputes?status=needs_response", t("home.disputesNeedResponse", { n: v.disputesToAnswer }))}</p></div>`
    : html`<p class="muted">${t("home.disputesNone")}</p>`;
  return html`${disputes}
<section class="tiles" aria-label="${t("home.sales")}">
<div class="tile"><h2>${t("home.today")}</h2><p class="big">${p.money(v.today.minor, v.main)}</p><p class="muted">${t("home.count", { n: v.today.count })}</p></div>
<div class="tile"><h2>${t("home.month")}</h2><p class="big">${p.money(v.month.minor, v.main)}</p><p class="muted">${t("home.count", { n: v.month.count })}</p></div>
</section>
<section class="card" aria-labelledby="chart-title"><h2 id="chart-title">${t("home.chartTitle", { currency: v.main })}</h2>${salesChart(p, v.days, v.main)}</section>
<section class="card" aria-labelledby="bal-title"><h2 id="bal-title">${t("home.balances")}</h2>${balances}</section>
<section class="card" aria-labelledby="latest-title"><h2 id="latest-title">${t("home.latest")}</h2>${chargeTable(p, v.latest, v.buyers)}<p>${link("/panel/charges", t("home.allCharges"))}</p></section>`;
}
