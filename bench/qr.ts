// CPU per Pix QR code: the qrcode library's matrix with its own mask choice, with a fixed mask
// (the floor: the symbol without any choice), with the mask chosen by src/lib/qr-mask.ts, and
// the whole data URL a charge returns.
// 5,000 BR Codes as charges make them (a few merchants; amount and txid vary), each path
// timed in 5 interleaved rounds; the lowest round is printed, since other processes on the
// machine only ever add time.
//
//   npx tsx bench/qr.ts
import { create as createQr } from "qrcode";
import { buildPixBrCode, qrCodeDataUrl } from "../src/lib/pix.js";
import { createQrMatrixM } from "../src/lib/qr-mask.js";

const MERCHANTS = [
  { key: "pix@example.com", merchantName: "LOJA EXEMPLO LTDA", merchantCity: "SAO PAULO" },
  { key: "+5511987654321", merchantName: "Padaria São João", merchantCity: "Florianópolis" },
  { key: "123e4567-e12b-12d1-a456-426655440000", merchantName: "Açaí do Norte Comércio", merchantCity: "Belém" },
  { key: "11222333000181", merchantName: "Mercado Bem-Estar", merchantCity: "Belo Horizonte" },
];
const CODES = 5000;
const ROUNDS = 5;

const codes = Array.from({ length: CODES }, (_, i) =>
  buildPixBrCode({
    ...MERCHANTS[i % MERCHANTS.length]!,
    amountMinor: 100 + ((i * 7919) % 2_000_000),
    txid: `ch${(i * 2654435761).toString(36)}${i}`,
  }),
);

const paths: Array<[string, (text: string) => unknown]> = [
  ["library create (automatic mask)", (t) => createQr(t, { errorCorrectionLevel: "M" })],
  ["library create (mask 0)", (t) => createQr(t, { errorCorrectionLevel: "M", maskPattern: 0 })],
  ["createQrMatrixM (mask chosen here)", createQrMatrixM],
  ["qrCodeDataUrl (matrix + PNG)", qrCodeDataUrl],
];

function cpuMicrosPerCode(run: (text: string) => unknown): number {
  const start = process.cpuUsage();
  for (const code of codes) run(code);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / codes.length;
}

for (const [, run] of paths) for (const code of codes.slice(0, 500)) run(code); // warm up
const best = paths.map(() => Infinity);
for (let round = 0; round < ROUNDS; round++) {
  paths.forEach(([, run], i) => (best[i] = Math.min(best[i]!, cpuMicrosPerCode(run))));
}
paths.forEach(([name], i) => console.log(`${name.padEnd(36)} ${best[i]!.toFixed(0).padStart(5)} µs CPU per code`));
