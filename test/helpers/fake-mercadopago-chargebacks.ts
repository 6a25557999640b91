import { mpDate, mpError, reais, type MpError } from "./fake-mercadopago-model.js";
import type { ApiRequest, Reply } from "./fake-provider.js";

// The fake Mercado Pago's chargebacks, as its chargeback pages document them: the object at
// GET /v1/chargebacks/{id} (id, payments, currency, amount, reason, coverage_applied,
// coverage_elegible, documentation_required, documentation_status, documentation,
// date_documentation_deadline, dates, live_mode), documentation uploaded as multipart `files[]`
// (JPG, PNG or PDF, 10 MB in all) to POST /v1/chargebacks/{id}/documentation, which makes
// documentation_status `review_pending`, and the decision in coverage_applied. Each change is
// announced with a signed `chargebacks` notice naming the chargeback. A chargeback is of its
// payment's account (its collector): a seller's payment made through the marketplace's OAuth has
// its chargeback on the seller's account, seen and answered with the seller's token only, and
// announced with the seller's user_id, as the payment's own notices are (Mercado Pago's
// marketplace guide: the seller's resources are reached with the seller's access token).

type Obj = Record<string, unknown>;
export type ChargebackDecision = "won" | "lost";

const DAY_MS = 24 * 60 * 60 * 1000;
const ALLOWED = new Set(["image/jpeg", "image/jpg", "image/png", "application/pdf"]);
const MAX_TOTAL = 10 * 1024 * 1024;

export interface FakeChargebacks {
  all: Map<string, Obj>;
  /** Opens a chargeback of `amountMinor` on a payment; its documentation is due in `days`. */
  /** `owner`: the account of the payment (its collector_id); the application's when absent. */
  open(paymentId: number, amountMinor: number, opts?: { days?: number; eligible?: boolean; owner?: number }): Obj;
  /** Mercado Pago's decision: won (coverage applied) or lost. */
  decide(id: string, outcome: ChargebackDecision): Obj | string;
  /** Uploads received per chargeback: each a list of the files' names and types. */
  uploads(id: string): { name: string; type: string; size: number }[][];
  /**
   * With `on`, a documentation upload answers only once its notice was delivered, so the
   * receiver reads the new state back before it has the upload's answer (a race Mercado Pago
   * does not rule out).
   */
  announceUploadsFirst(on: boolean): void;
  /** The API routes of chargebacks, for the account of the caller's token; undefined for another path. */
  api(req: ApiRequest, caller: number): Promise<Reply> | Reply | undefined;
}

/** The files of a multipart body, by its boundary (the fake's body is text: sizes are of its characters). */
function multipartFiles(req: ApiRequest): { field: string; name: string; type: string; size: number }[] | null {
  const boundary = /boundary=([^;]+)/.exec(String(req.headers["content-type"] ?? ""))?.[1];
  if (!boundary) return null;
  return req.rawBody.split(`--${boundary}`).slice(1, -1).map((part) => {
    const [head = "", ...rest] = part.replace(/^\r\n/, "").split("\r\n\r\n");
    const body = rest.join("\r\n\r\n").replace(/\r\n$/, "");
    return {
      field: /name="([^"]*)"/.exec(head)?.[1] ?? "", name: /filename="([^"]*)"/.exec(head)?.[1] ?? "",
      type: /content-type:\s*([^\r\n]+)/i.exec(head)?.[1]?.trim() ?? "", size: body.length,
    };
  });
}

export function fakeChargebacks(opts: { notify(id: string, owner?: number): void; nextId(): number; flush(): Promise<void> }): FakeChargebacks {
  const all = new Map<string, Obj>();
  /** Each chargeback's account, when not the application's (not a field of the documented object). */
  const owners = new Map<string, number>();
  let uploadsFirst = false;
  const received = new Map<string, { name: string; type: string; size: number }[][]>();
  const fail = (e: MpError): Reply => ({ status: e.status, body: e });

  function change(cb: Obj, patch: Obj): Obj {
    Object.assign(cb, patch, { date_last_updated: mpDate() });
    opts.notify(String(cb.id), owners.get(String(cb.id)));
    return cb;
  }

  async function documentation(cb: Obj, req: ApiRequest): Promise<Reply> {
    const files = multipartFiles(req);
    if (!files || files.length === 0 || files.some((f) => f.field !== "files[]")) return fail(mpError(400, "files[] is required", [{ code: "missing_files", description: "files" }]));
    if (files.some((f) => !ALLOWED.has(f.type))) return fail(mpError(400, "Invalid file type", [{ code: "invalid_file_type", description: "files" }]));
    if (files.reduce((s, f) => s + f.size, 0) > MAX_TOTAL) return fail(mpError(400, "Files exceed 10mb", [{ code: "files_too_large", description: "files" }]));
    if (cb.coverage_elegible !== true || cb.documentation_status !== "not_supplied") {
      return fail(mpError(400, "Chargeback does not accept documentation", [{ code: "documentation_not_allowed", description: "documentation" }]));
    }
    if (Date.parse(String(cb.date_documentation_deadline)) < Date.now()) return fail(mpError(400, "Documentation deadline expired", [{ code: "deadline_expired", description: "documentation" }]));
    received.set(String(cb.id), [...(received.get(String(cb.id)) ?? []), files.map(({ name, type, size }) => ({ name, type, size }))]);
    change(cb, {
      documentation_status: "review_pending",
      documentation: files.map((f, i) => ({ type: f.type, url: `https://api.mercadopago.com/v1/chargebacks/documentation/op/op-${cb.id}-${i}`, description: `File: ${f.name}, Size: ${f.size}` })),
    });
    if (uploadsFirst) await opts.flush();
    return { status: 200 };
  }

  return {
    all,
    open(paymentId, amountMinor, o = {}) {
      const id = String(opts.nextId());
      const cb: Obj = {
        id, payments: [paymentId], currency: "BRL", amount: reais(amountMinor), reason: "fraud",
        coverage_applied: false, coverage_elegible: o.eligible ?? true, documentation_required: true, documentation_status: "not_supplied", documentation: [],
        date_documentation_deadline: mpDate(new Date(Date.now() + (o.days ?? 10) * DAY_MS)), date_created: mpDate(), date_last_updated: mpDate(), live_mode: true,
      };
      all.set(id, cb);
      if (o.owner !== undefined) owners.set(id, o.owner);
      opts.notify(id, o.owner);
      return cb;
    },
    decide(id, outcome) {
      const cb = all.get(id);
      if (!cb) return "chargeback not found";
      if (cb.coverage_applied === true || cb.documentation_status === "invalid") return "chargeback already decided";
      return change(cb, outcome === "won" ? { coverage_applied: true, documentation_status: "valid" } : { coverage_applied: false, documentation_status: "invalid" });
    },
    uploads: (id) => received.get(id) ?? [],
    announceUploadsFirst: (on) => { uploadsFirst = on; },
    api(req, caller) {
      const m = /^\/v1\/chargebacks\/(\w+)(\/documentation)?$/.exec(req.path);
      if (!m) return undefined;
      const cb = all.get(m[1]!);
      // Another account's chargeback is not found, as another account's payment is.
      if (!cb || (owners.has(m[1]!) && owners.get(m[1]!) !== caller)) return fail(mpError(404, "chargeback not found"));
      if (req.method === "GET" && !m[2]) return { status: 200, body: cb };
      if (req.method === "POST" && m[2]) return documentation(cb, req);
      return fail(mpError(404, "resource not found"));
    },
  };
}
