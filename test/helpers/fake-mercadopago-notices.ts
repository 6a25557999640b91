import { createHmac, randomBytes, randomUUID } from "node:crypto";
import { mpDate } from "./fake-mercadopago-model.js";
import type { FakeCore } from "./fake-provider.js";

// The fake Mercado Pago's notices: thin (the payment's or the chargeback's id only; the receiver
// must read it back), with `data.id` and `type` in the query and signed as documented
// (x-signature: ts=...,v1=HMAC-SHA256(secret, "id:<data.id>;request-id:<x-request-id>;ts:<ts>;")),
// with the signature faults a test sets.

export type SignatureFault = "none" | "bad" | "missing" | "stale";

export function mercadopagoNotices(o: { core: FakeCore; webhookSecret: string; signatureTs?: "ms" | "s"; collectorId: number }) {
  let nextNotification = 120_000_001;
  let sigFault: { mode: SignatureFault; times?: number } = { mode: "none" };

  const sign = (dataId: string, requestId: string, ts: string) =>
    createHmac("sha256", o.webhookSecret).update(`id:${dataId};request-id:${requestId};ts:${ts};`).digest("hex");

  function signatureHeaders(dataId: string): Record<string, string> {
    const mode = sigFault.mode;
    if (mode !== "none" && sigFault.times !== undefined && --sigFault.times <= 0) sigFault = { mode: "none" };
    const requestId = randomUUID();
    const nowMs = mode === "stale" ? Date.now() - 600_000 : Date.now();
    const ts = o.signatureTs === "s" ? String(Math.floor(nowMs / 1000)) : String(nowMs);
    if (mode === "missing") return { "x-request-id": requestId };
    const v1 = mode === "bad" ? randomBytes(32).toString("hex") : sign(dataId, requestId, ts);
    return { "x-signature": `ts=${ts},v1=${v1}`, "x-request-id": requestId };
  }

  /** `userId`: the account the resource is of (a seller's, for a payment on its account); the application's by default. */
  function send(target: string | undefined, dataId: string, type: "payment" | "chargebacks", action: string, userId = o.collectorId): void {
    const body = JSON.stringify({ id: nextNotification++, live_mode: false, type, date_created: mpDate(), user_id: userId, api_version: "v1", action, data: { id: dataId } });
    let url: URL | undefined;
    if (target) {
      url = new URL(target);
      url.searchParams.set("data.id", dataId);
      url.searchParams.set("type", type);
    }
    o.core.notify({ label: `${type}:${action}`, body, headers: () => signatureHeaders(dataId) }, url?.toString());
  }

  return { send, sign, setSignatureFault: (mode: SignatureFault, times?: number) => { sigFault = { mode, times }; } };
}
