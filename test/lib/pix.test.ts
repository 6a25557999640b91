import { test } from "node:test";
import assert from "node:assert/strict";
import { PNG } from "pngjs";
import { create as createQr } from "qrcode";
import { isValidPixPayload } from "@brazilian-utils/brazilian-utils/is-valid-pix-payload";
import { getPixPayloadInfo } from "@brazilian-utils/brazilian-utils/get-pix-payload-info";
import { buildPixBrCode, crc16ccittFalse, parseBrCode, qrCodeDataUrl, sanitizeTxid } from "../../src/lib/pix.js";

// A static BR Code worked by hand (pix@example.com, R$ 10,50, txid PEDIDO123); two independent CRC implementations give 4442.
const EXAMPLE =
  "00020126370014br.gov.bcb.pix0115pix@example.com520400005303986540510.505802BR5917LOJA EXEMPLO LTDA6009SAO PAULO62130509PEDIDO12363044442";
const BASE = { key: "pix@example.com", merchantName: "LOJA EXEMPLO LTDA", merchantCity: "SAO PAULO" };

// Published payloads (BCB manuals, bacen/pix-api, pix-utils README), full codes with CRC.
const PUBLISHED: Record<string, string> = {
  "BCB Pix manual static":
    "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D",
  "BCB Pix manual dynamic":
    "00020101021226700014br.gov.bcb.pix2548pix.example.com/8b3da2f39a4140d1a91abd93113bd4415204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***630464E4",
  "BR Code manual (61 postal code, second MAI 27)":
    "00020104141234567890123426580014BR.GOV.BCB.PIX0136123e4567-e12b-12d1-a456-42665544000027300012BR.COM.OUTRO011001234567895204000053039865406123.455802BR5917NOME DO RECEBEDOR6008BRASILIA61087007490062190515RP12345678-201980390012BR.COM.OUTRO01190123.ABCD.3456.WXYZ6304AD38",
  "bacen/pix-api QR composto":
    "00020126180014br.gov.bcb.pix5204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***80800014br.gov.bcb.pix2558pix.example.com/qr/v2/rec/2353c790eefb11eaadc10242ac120002630462C9",
  "pix-utils README static":
    "00020126650014br.gov.bcb.pix0119nubank@thalesog.com0220Gerado por Pix-Utils52040000530398654041.005802BR5914Thales Ogliari6009Sao Paulo62070503***63046069",
  "worked example, dynamic (CRC 4846 recomputed)":
    "00020101021226760014br.gov.bcb.pix2554pix.example.com/qr/v2/9d36b84fc70b478fb95c12729b90ca255204000053039865802BR5917LOJA EXEMPLO LTDA6009SAO PAULO62070503***63044846",
};

test("the worked example is reproduced exactly", () => {
  const code = buildPixBrCode({ ...BASE, amountMinor: 1050, txid: "PEDIDO123" });
  assert.equal(code, EXAMPLE);
  assert.equal(code.length, 136);
});

test("crc16ccittFalse check value and published vectors", () => {
  assert.equal(crc16ccittFalse("123456789"), "29B1");
  assert.equal(crc16ccittFalse(""), "FFFF");
  for (const [name, code] of Object.entries(PUBLISHED)) {
    assert.equal(crc16ccittFalse(code.slice(0, -4)), code.slice(-4), name);
    assert.equal(parseBrCode(code).crcValid, true, name);
  }
});

test("amounts are written from integer centavos exactly", () => {
  const cases: Array<[number, string]> = [
    [1, "0.01"],
    [10, "0.10"],
    [99, "0.99"],
    [100, "1.00"],
    [1050, "10.50"],
    [100_005, "1000.05"],
    [100_000_000, "1000000.00"],
    [999_999_999_999, "9999999999.99"],
  ];
  for (const [minor, text] of cases) {
    const code = buildPixBrCode({ ...BASE, amountMinor: minor, txid: "T1" });
    const parsed = parseBrCode(code);
    assert.equal(parsed.fields.get("54"), text, `amountMinor ${minor}`);
    assert.equal(parsed.crcValid, true);
    assert.equal(isValidPixPayload(code), true);
  }
});

test("every amount in a sweep survives the number handed to the library", () => {
  // buildPixBrCode itself throws if field 54 differs from the integer-formatted amount.
  for (let minor = 1; minor <= 20_000; minor++) buildPixBrCode({ ...BASE, amountMinor: minor, txid: "S" });
  for (let minor = 999_999_980_000; minor <= 999_999_999_999; minor += 37) {
    buildPixBrCode({ ...BASE, amountMinor: minor, txid: "S" });
  }
});

test("invalid amounts throw", () => {
  for (const amountMinor of [0, -1, 1.5, Number.NaN, 1_000_000_000_000]) {
    assert.throws(() => buildPixBrCode({ ...BASE, amountMinor, txid: "T" }), /amountMinor/);
  }
});

test("accented names are folded to ASCII and long ones truncated", () => {
  const code = buildPixBrCode({
    key: "pix@example.com",
    merchantName: "Açaí da Dona Conceição São João Ltda ME",
    merchantCity: "São José dos Campos",
    amountMinor: 100,
    txid: "A1",
  });
  const { fields, crcValid } = parseBrCode(code);
  assert.equal(fields.get("59"), "Acai da Dona Conceicao Sa");
  assert.equal(fields.get("59")?.length, 25);
  assert.equal(fields.get("60"), "Sao Jose dos Ca");
  assert.equal(fields.get("60")?.length, 15);
  assert.match(code, /^[\x20-\x7E]+$/);
  assert.equal(crcValid, true);
});

test("txid is sanitized to [A-Za-z0-9]{1,25}", () => {
  assert.equal(sanitizeTxid("ch_01J-ABC.def"), "ch01JABCdef");
  assert.equal(sanitizeTxid("x".repeat(40)), "x".repeat(25));
  const code = buildPixBrCode({ ...BASE, amountMinor: 100, txid: "ch_0123456789abcdefghijklmnopqrstuvwxyz" });
  assert.equal(parseBrCode(code).additional.get("05"), "ch0123456789abcdefghijklm");
  assert.throws(() => buildPixBrCode({ ...BASE, amountMinor: 100, txid: "-_-" }), /txid/);
});

test("description goes into 26-02 and the key is normalized by the library", () => {
  const code = buildPixBrCode({ ...BASE, key: "Pix@Example.com", amountMinor: 100, txid: "D", description: "Pedido nº 12" });
  const { merchantAccount } = parseBrCode(code);
  assert.equal(merchantAccount.get("01"), "pix@example.com");
  assert.equal(merchantAccount.get("02"), "Pedido n 12");
});

test("bad key and empty names throw clear errors", () => {
  assert.throws(() => buildPixBrCode({ ...BASE, key: "not a key", amountMinor: 100, txid: "T" }), /Pix key/);
  assert.throws(() => buildPixBrCode({ ...BASE, merchantName: "  ", amountMinor: 100, txid: "T" }), /merchantName/);
  assert.throws(() => buildPixBrCode({ ...BASE, merchantCity: "", amountMinor: 100, txid: "T" }), /merchantCity/);
});

test("parse round trip agrees with the library's own reader", () => {
  const code = buildPixBrCode({ ...BASE, key: "529.982.247-25", amountMinor: 123_45, txid: "ROUND1" });
  const parsed = parseBrCode(code);
  assert.deepEqual([...parsed.fields.keys()], ["00", "26", "52", "53", "54", "58", "59", "60", "62", "63"]);
  assert.equal(parsed.fields.get("00"), "01");
  assert.equal(parsed.fields.has("01"), false, "static code leaves out the point of initiation");
  assert.equal(parsed.fields.get("53"), "986");
  assert.equal(parsed.merchantAccount.get("00"), "br.gov.bcb.pix");
  assert.equal(parsed.merchantAccount.get("01"), "52998224725");
  assert.equal(parsed.additional.get("05"), "ROUND1");
  assert.equal(parsed.crcValid, true);
  assert.deepEqual(getPixPayloadInfo(code), {
    key: "52998224725",
    merchantName: "LOJA EXEMPLO LTDA",
    merchantCity: "SAO PAULO",
    amount: 123.45,
    txid: "ROUND1",
    pointOfInitiation: "static",
  });
});

test("parser reads the uppercase GUI and nested templates of the BR Code manual example", () => {
  const parsed = parseBrCode(PUBLISHED["BR Code manual (61 postal code, second MAI 27)"]!);
  assert.equal(parsed.merchantAccount.get("01"), "123e4567-e12b-12d1-a456-426655440000");
  assert.equal(parsed.fields.get("61"), "70074900");
  assert.equal(parsed.additional.get("05"), "RP12345678-2019");
});

test("a tampered code fails crcValid", () => {
  const tampered = EXAMPLE.replace("540510.50", "540510.60");
  assert.equal(parseBrCode(tampered).crcValid, false);
  assert.equal(parseBrCode(EXAMPLE.slice(0, -4) + "4443").crcValid, false);
  assert.equal(parseBrCode(EXAMPLE.slice(0, -4) + "4442".toLowerCase()).crcValid, true);
  assert.equal(isValidPixPayload(tampered), false);
});

test("malformed TLV throws", () => {
  assert.throws(() => parseBrCode("000201260"), /malformed/);
  assert.throws(() => parseBrCode("0002012699"), /truncated/);
});

test("qrCodeDataUrl returns a PNG data URL", async () => {
  const url = await qrCodeDataUrl(EXAMPLE);
  assert.match(url, /^data:image\/png;base64,/);
  const png = Buffer.from(url.slice("data:image/png;base64,".length), "base64");
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
});

test("the QR image decodes, pixel by pixel, to the BR Code's QR matrix with a quiet zone", async () => {
  // Decoded by pngjs (an independent PNG reader: CRCs, zlib, 1-bit unpacking), compared with
  // the matrix the qrcode library makes for the same text.
  const url = qrCodeDataUrl(EXAMPLE);
  const img = PNG.sync.read(Buffer.from(url.slice("data:image/png;base64,".length), "base64"));
  const { modules } = createQr(EXAMPLE, { errorCorrectionLevel: "M" });
  const scale = 4;
  const margin = 4;
  assert.equal(img.width, (modules.size + 2 * margin) * scale);
  assert.equal(img.height, img.width);
  let mismatches = 0;
  for (let y = 0; y < img.height; y++) {
    for (let x = 0; x < img.width; x++) {
      const r = Math.floor(y / scale) - margin;
      const c = Math.floor(x / scale) - margin;
      const dark = r >= 0 && c >= 0 && r < modules.size && c < modules.size && Boolean(modules.get(r, c));
      const pixel = img.data[(y * img.width + x) * 4]!; // RGBA after decoding
      if ((pixel === 0) !== dark || (pixel !== 0 && pixel !== 255)) mismatches++;
    }
  }
  assert.equal(mismatches, 0);
});
