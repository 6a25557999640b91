// The operator's account at Efí as a recurring charge's `recebedor`: the Central Bank's
// CobRSolicitada requires it ({conta, tipoConta, agencia?}: DadosBancariosRecebedor, bacen/pix-api
// openapi.yaml 2.9.0), and Efí's SDK types all three as required on `PUT /v2/cobr/:txid`
// (efipay/sdk-node-apis-efi 1.2.28, pixCreateAutomaticChargeTxid). Without it every live period
// would be refused, so pix_automatico=efi does not start without EFI_ACCOUNT_NUMBER and
// EFI_ACCOUNT_TYPE.

/** DadosBancariosRecebedor: `conta` up to 20 characters, `agencia` up to 4. */
export interface EfiRecebedor {
  conta: string;
  tipoConta: "CORRENTE" | "POUPANCA" | "PAGAMENTO";
  agencia?: string;
}

const TYPES: readonly string[] = ["CORRENTE", "POUPANCA", "PAGAMENTO"];

/** Why the account settings would not make a valid `recebedor` (the start check's words). */
export function accountProblems(o: { accountNumber: string; accountType: string; accountBranch: string }): string[] {
  const problems: string[] = [];
  if (o.accountNumber && !/^[0-9A-Za-z-]{1,20}$/.test(o.accountNumber)) problems.push("EFI_ACCOUNT_NUMBER must be the account number at Efí, up to 20 digits (letters and - allowed)");
  if (o.accountType && !TYPES.includes(o.accountType)) problems.push(`EFI_ACCOUNT_TYPE must be one of ${TYPES.join(", ")}`);
  if (o.accountBranch && !/^[0-9]{1,4}$/.test(o.accountBranch)) problems.push("EFI_ACCOUNT_BRANCH must be the account's branch (agência), up to 4 digits");
  return problems;
}

/** The `recebedor` of the settings; undefined while they are not set (no Pix Automático routed). */
export function recebedorOf(o: { accountNumber: string; accountType: string; accountBranch: string }): EfiRecebedor | undefined {
  if (!o.accountNumber || !TYPES.includes(o.accountType)) return undefined;
  return { conta: o.accountNumber, tipoConta: o.accountType as EfiRecebedor["tipoConta"], ...(o.accountBranch ? { agencia: o.accountBranch } : {}) };
}
