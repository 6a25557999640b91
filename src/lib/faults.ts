// Deterministic crash points for the crash tests. main.ts arms at most one point from
// FEIRA_FAULT (config.faultPoint, never set with NODE_ENV=production); when the code passes it,
// the process is killed with SIGKILL at once, as kill -9 would: no finally blocks, no
// shutdown hooks, no flushed responses. Unarmed, a point costs one comparison.
export type FaultPoint =
  | "charge.after-authorize" // the processor answered; nothing of the charge is committed
  | "charge.before-split-link" // the processor made the payment; its provider split (a separate call) is not linked to it
  | "charge.after-commit" // the charge is committed; the response is not stored or sent
  | "refund.after-reserve" // the refund is reserved; the processor was not called
  | "refund.after-processor" // the processor refunded; the outcome is not recorded
  | "delivery.after-send" // a webhook was sent; its outcome is not recorded
  | "subscription.after-card" // a subscription's card is in the vault; the subscription is not written
  | "payout.after-sending" // a payout's transfer is committed as sending; the processor was not called
  | "payout.after-send" // the processor took the transfer; its answer is not recorded
  | "payout.schedule.after-request" // a scheduled payout's request is committed; the schedule's run is not completed
  | "dispute.after-open" // the dispute and its hold are committed; the response is not stored or sent
  | "dispute.after-close" // the dispute's decision and its money are committed; the response is not stored or sent
  | "mail.after-send" // the SMTP server took an e-mail; that it was sent is not recorded
  | "account.after-open" // the processor made a seller's account; its answer is not recorded
  | "provider-transfer.after-read"; // the processor answered a seller's transfer not recorded yet; it is still not

export const FAULT_POINTS: readonly FaultPoint[] = [
  "charge.after-authorize", "charge.before-split-link", "charge.after-commit", "refund.after-reserve", "refund.after-processor", "delivery.after-send",
  "subscription.after-card", "payout.after-sending", "payout.after-send", "payout.schedule.after-request", "dispute.after-open", "dispute.after-close",
  "mail.after-send", "account.after-open", "provider-transfer.after-read",
];

let armed: string | undefined;

export function armFault(point: string | undefined): void {
  if (point !== undefined && !(FAULT_POINTS as readonly string[]).includes(point)) {
    throw new Error(`FEIRA_FAULT=${point} is not a fault point; known: ${FAULT_POINTS.join(", ")}`);
  }
  armed = point;
}

export function faultPoint(point: FaultPoint): void {
  if (armed === point) process.kill(process.pid, "SIGKILL");
}
