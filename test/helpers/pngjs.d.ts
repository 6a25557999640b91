// pngjs comes with qrcode (its PNG renderer); the tests read PNGs with it. Only what they use.
declare module "pngjs" {
  export const PNG: { sync: { read(data: Buffer): { width: number; height: number; data: Buffer } } };
}
