import { createSecureContext } from "node:tls";
import { defineProcessor } from "../definition.js";
import { EFI_DEFAULT_URL, efiTls } from "./client.js";
import { accountProblems, recebedorOf } from "./account.js";
import { createEfiProcessor } from "./efi.processor.js";
import { readEfiNotice, registerEfiNotices } from "./notices.js";

// Efí Bank (the Central Bank's API Pix, plus Efí's Pix send) as a feira processor: its settings,
// its adapter (live Pix charges and their refunds) and its notices. Every call is mutual TLS with
// the operator's certificate, which is loaded at start: a missing file, a PEM without its key or
// a .p12 with the wrong password stops the start naming EFI_CERTIFICATE, instead of failing the
// first charge.

export const efi = defineProcessor({
  name: "efi",
  methods: ["pix"],
  settings: {
    clientId: { env: "EFI_CLIENT_ID", required: true },
    clientSecret: { env: "EFI_CLIENT_SECRET", required: true },
    certificate: { env: "EFI_CERTIFICATE", required: true },
    certificatePassword: { env: "EFI_CERTIFICATE_PASSWORD" },
    pixKey: { env: "EFI_PIX_KEY", required: true },
    apiUrl: { env: "EFI_API_URL", url: true, default: EFI_DEFAULT_URL },
    caFile: { env: "EFI_CA_FILE" },
    // The account receiving Pix Automático debits: the Central Bank's CobRSolicitada requires
    // `recebedor` {conta, tipoConta, agencia?} on every recurring charge (docs/processors.md).
    accountNumber: { env: "EFI_ACCOUNT_NUMBER", required: ["pix_automatico"] },
    accountType: { env: "EFI_ACCOUNT_TYPE", required: ["pix_automatico"] },
    accountBranch: { env: "EFI_ACCOUNT_BRANCH" },
  },
  check(o, methods) {
    const problems = methods.includes("pix_automatico") ? accountProblems(o) : [];
    if (!o.certificate) return problems;
    try {
      createSecureContext(efiTls(o));
      return problems;
    } catch (err) {
      // OpenSSL's and the file system's reasons name no secret (a path at most).
      const reason = (err as { code?: unknown }).code === "ENOENT" ? "no such file" : String((err as Error).message).slice(0, 120);
      return [...problems, `EFI_CERTIFICATE (with EFI_CERTIFICATE_PASSWORD for a .p12) and EFI_CA_FILE must load as a client certificate with its key: ${reason}`];
    }
  },
  create: (o, limits) => createEfiProcessor({
    clientId: o.clientId, clientSecret: o.clientSecret, certificate: o.certificate, certificatePassword: o.certificatePassword || undefined,
    caFile: o.caFile || undefined, pixKey: o.pixKey, account: recebedorOf(o), baseUrl: o.apiUrl, timeoutMs: limits.timeoutMs, connections: limits.connections,
  }),
  // Pix send pays payouts (PAYOUT_PROVIDER=efi): its adapter's payouts; Pix Automático
  // (pix_automatico=efi): its adapter's mandates.
  capabilities: { payouts: true, mandates: true },
  notices: {
    description: "Efí (`efi`): `POST /v1/admin/processors/efi/webhook` registers `/v1/processors/efi/webhooks?hmac=<secret>&ignorar=` for EFI_PIX_KEY, and for recurrences and recurring charges (webhookrec, webhookcobr) "
      + "(Efí appends `/pix`, which `ignorar=` keeps out of the path; the path forms `/pix`, `/rec`, `/cobr` are taken too). "
      + "`hmac` must be the registered secret, else 401 and nothing changes; a POST without `pix` (Efí's probe) is answered 200 and changes nothing. "
      + "The body (`{ pix: [{ endToEndId, txid, devolucoes?, gnExtras? }] }`) only names cobs (`txid`, at most 35 letters and digits), which are read again from Efí; "
      + "a Pix Automático notice (`{ recs: [{ idRec }] }`, `{ cobsr: [{ txid }] }`) only names recurrences and recurring charges, read again the same way.",
    read: readEfiNotice,
    register: (o, at) => registerEfiNotices({ ...o, certificatePassword: o.certificatePassword || undefined, caFile: o.caFile || undefined }, at),
  },
});
