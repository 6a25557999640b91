import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from "node:crypto";

// Secrets at rest (card numbers in the vault, API keys, webhook secrets, OAuth tokens) are
// sealed with AES-256-GCM. Format: v1:<iv>:<tag>:<ciphertext>, base64 parts. The AAD binds a
// ciphertext to its owner (e.g. "card:<merchantId>"), so a row copied to another merchant
// does not decrypt.
export interface Sealer {
  seal(plaintext: string, aad: string): string;
  open(sealed: string, aad: string): string;
}

export function createSealer(keyBase64: string): Sealer {
  const key = Buffer.from(keyBase64, "base64");
  if (key.length !== 32) throw new Error("ENCRYPTION_KEY must be 32 bytes, base64-encoded");
  return {
    seal(plaintext, aad) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      cipher.setAAD(Buffer.from(aad));
      const ct = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      return ["v1", iv.toString("base64"), cipher.getAuthTag().toString("base64"), ct.toString("base64")].join(":");
    },
    open(sealed, aad) {
      const [version, iv, tag, ct] = sealed.split(":");
      if (version !== "v1" || !iv || !tag || ct === undefined) throw new Error("unknown sealed format");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
      decipher.setAAD(Buffer.from(aad));
      decipher.setAuthTag(Buffer.from(tag, "base64"));
      return Buffer.concat([decipher.update(Buffer.from(ct, "base64")), decipher.final()]).toString("utf8");
    },
  };
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
