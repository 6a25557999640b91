import type { FastifyReply } from "fastify";
import { esc } from "../html.js";
import type { PanelCtx } from "./context.js";
import { renderPage } from "./layout.js";
import type { PanelKit } from "./kit.js";

/** The answer of every Connect page to a merchant without Connect (masters only). */
export function notMaster(kit: PanelKit, p: PanelCtx, reply: FastifyReply) {
  return kit.html(reply, renderPage(p, { title: p.t("nav.connect"), area: "connect", body: `<p>${esc(p.t("connect.notEnabled"))}</p>`, path: "/panel/connect" }), 403);
}
