import { Type } from "typebox";
import { OpenProviderAccountBody } from "../../modules/connect/provider-accounts.schemas.js";
import type { ProviderAccountService } from "../../modules/connect/provider-accounts.service.js";
import type { FieldErrors, PanelCtx } from "./context.js";
import { attempt, checkBody, compact } from "./forms.js";
import { BANK_FIELDS } from "./pages/provider-accounts.js";

// The submerchant page's form that opens an account at a processor: the fields become the API's
// body ({processor, bankAccount}), checked by the API's schema and then by the processor's
// adapter through the same service; what either refuses is shown next to the field it names
// (the API names bankAccount.<field>; the form's field is <field>).

const Text = () => Type.Optional(Type.String({ maxLength: 100 }));
export const AccountForm = Type.Object({ processor: Text(), ...Object.fromEntries(BANK_FIELDS.map((f) => [f, Text()])) });
type Form = Partial<Record<"processor" | (typeof BANK_FIELDS)[number], string>>;

/** An error keyed bankAccount.bank (the API's name) is shown at the form's bank field. */
const toFields = (errors: FieldErrors): FieldErrors =>
  Object.fromEntries(Object.entries(errors).map(([k, v]) => [k.startsWith("bankAccount.") ? k.slice("bankAccount.".length) : k, v]));

export async function openProviderAccount(
  p: PanelCtx, accounts: Pick<ProviderAccountService, "open">, submerchantId: string, form: Form, formErrors: FieldErrors | null,
): Promise<{ ok: true; processor: string; status: string } | { ok: false; errors: FieldErrors }> {
  if (formErrors) return { ok: false, errors: formErrors };
  const bankAccount = compact(Object.fromEntries(BANK_FIELDS.map((f) => [f, form[f]])));
  const body = { processor: form.processor ?? "", ...(Object.keys(bankAccount).length > 0 ? { bankAccount } : {}) };
  const invalid = checkBody(OpenProviderAccountBody, body, p.t);
  if (invalid) return { ok: false, errors: toFields(invalid) };
  const fields = Object.fromEntries(["processor", ...BANK_FIELDS.map((f) => `bankAccount.${f}`)].map((f) => [f, ""]));
  const done = await attempt(() => accounts.open(p.ctx, submerchantId, body), p.t, fields);
  if (!done.ok) return { ok: false, errors: toFields(done.errors) };
  return { ok: true, processor: done.value.processor, status: done.value.status };
}
