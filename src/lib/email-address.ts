// The e-mail addresses feira writes into a header (To, From): a plain addr-spec, dot-atom local
// part and a domain of LDH labels (RFC 5321 4.1.2 and 5322 3.4.1, without the quoted and
// comment forms nobody types). Nothing else passes: no spaces, no angle brackets, commas or
// semicolons that would add a recipient, and above all no CR or LF, so no address can carry a
// header of its own (header injection). Non-ASCII domains and local parts (SMTPUTF8) are
// refused rather than guessed at.
const LOCAL = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL = /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function isEmailAddress(value: string): boolean {
  if (value.length > 254) return false;
  const at = value.lastIndexOf("@");
  if (at <= 0 || at > 64) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split(".");
  return LOCAL.test(local) && labels.length >= 2 && labels.every((l) => LABEL.test(l));
}

/** A display name fit for a header: control characters (CR, LF, tabs...) become spaces, trimmed and cut. */
export function headerText(value: string, max = 100): string {
  return value.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, " ").replace(/\s+/g, " ").trim().slice(0, max);
}
