import type { Static } from "typebox";
import type { Config } from "../../config.js";
import type { Db } from "../../db/client.js";
import type { PaymentLinkProduct } from "../../db/schema.js";
import type { Environment, RequestCtx } from "../../core/context.js";
import { AppError, invalid, notFound } from "../../core/errors.js";
import type { PageQuery } from "../../db/pagination.js";
import { normalizeDocument } from "../../lib/documents.js";
import { seededId } from "../../lib/ids.js";
import { amountToMinor, checkAmountCeiling } from "../../core/amounts.js";
import { currencyExponent, toMajor } from "../../lib/money.js";
import type { ChargeService } from "../charges/index.js";
import { installmentPlans, planView } from "../installments/index.js";
import type { MerchantService } from "../merchants/index.js";
import { postalCodeDigits, type ShippingService } from "../shipping/index.js";
import { checkBrowserDestination } from "../webhooks/index.js";
import * as repo from "./payment-links.repo.js";
import type * as s from "./payment-links.schemas.js";
import { readForList } from "../../db/replica.js";

// Payment links (docs/decisions.md): a merchant's reusable checkout. Each payment is an ordinary charge
// made through the charge service (idempotency, processors, ledger, events), carrying the link
// id and, with live freight, the freight the server itself re-quoted.

type LinkRow = repo.LinkRow;
type CartItems = Static<typeof s.CartItems>;

export interface PaymentLinkServiceDeps {
  db: Db;
  config: Pick<Config, "publicBaseUrl" | "amountLimits" | "production" | "webhookAllowPrivateUrls">;
  charges: Pick<ChargeService, "check" | "priced" | "create" | "list" | "findForLink">;
  shipping: Pick<ShippingService, "quote" | "hasActiveIntegration">;
  merchants: Pick<MerchantService, "getMerchant" | "chargeProfile">;
  now?: () => Date;
}

const unavailable = (id: string) => new AppError("not_found", `Payment link ${id} not found or no longer takes payments`);

export function createPaymentLinkService(deps: PaymentLinkServiceDeps) {
  const { db } = deps;
  const now = deps.now ?? (() => new Date());

  const limits = deps.config.amountLimits;
  function money(amount: number, currency: string, field: string): number {
    const smallest = 1 / 10 ** (currencyExponent(currency) ?? 2);
    return amountToMinor(amount, currency, limits, { minUnits: smallest, field });
  }

  /**
   * Every rule of a link, for creation and for the merged result of an update: supported
   * currency, fixed freight only with freightMode fixed, live freight only in BRL with physical
   * products that have all four measures, successUrl a URL a merchant may give (destination.ts).
   */
  function checkLink(env: Environment, l: {
    currency: string; freightMode: LinkRow["freightMode"]; fixedFreightAmount?: number | null;
    products: Static<typeof s.ProductInput>[]; successUrl?: string | null; expiresAt?: string | null;
  }) {
    const currency = l.currency.toUpperCase();
    if (currencyExponent(currency) === undefined) throw invalid(`currency ${l.currency} is not a supported ISO 4217 code`);
    const products: PaymentLinkProduct[] = l.products.map((p, i) => ({
      id: `item_${i + 1}`, title: p.title, unitPrice: money(p.unitPrice, currency, `products.${i}.unitPrice`), quantity: p.quantity,
      physical: p.physical, width: p.width ?? null, height: p.height ?? null, length: p.length ?? null, weight: p.weight ?? null,
    }));
    let fixed: number | null = null;
    if (l.freightMode === "fixed") {
      if (l.fixedFreightAmount === undefined || l.fixedFreightAmount === null) throw invalid("fixedFreightAmount is required with freightMode fixed");
      fixed = money(l.fixedFreightAmount, currency, "fixedFreightAmount");
    } else if (l.fixedFreightAmount !== undefined && l.fixedFreightAmount !== null) {
      throw invalid(`fixedFreightAmount is only for freightMode fixed, not ${l.freightMode}`);
    }
    // What one payment of the link comes to must fit in one charge.
    const subtotal = subtotalOf(products);
    checkAmountCeiling(subtotal, currency, limits, "products", { totalOf: "the products (unitPrice x quantity)" });
    if (fixed !== null) checkAmountCeiling(subtotal + fixed, currency, limits, "fixedFreightAmount", { totalOf: "the products and fixedFreightAmount" });
    if (l.freightMode === "checkout") {
      if (currency !== "BRL") throw invalid("freightMode checkout quotes Melhor Envio freight, which is in BRL: the link's currency must be BRL");
      if (!products.some((p) => p.physical)) throw invalid("freightMode checkout needs at least one physical product");
      products.forEach((p, i) => {
        const missing = (["width", "height", "length", "weight"] as const).filter((k) => p.physical && p[k] === null);
        if (missing.length > 0) throw invalid(`products.${i} is physical and freightMode is checkout: ${missing.join(", ")} ${missing.length === 1 ? "is" : "are"} required (cm and kg)`);
      });
    }
    // Held to the rules of every merchant URL: in production https, and no loopback, private,
    // link-local or metadata host.
    const successUrl = l.successUrl ? checkBrowserDestination(l.successUrl, env, deps.config, "successUrl") : null;
    const expiresAt = l.expiresAt ? new Date(l.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= now().getTime()) throw invalid("expiresAt must be in the future");
    return { currency, freightMode: l.freightMode, fixedFreightAmount: fixed, products, successUrl, expiresAt };
  }

  async function create(ctx: RequestCtx, body: Static<typeof s.CreateLinkBody>) {
    const checked = checkLink(ctx.environment, body);
    const at = now();
    const row = await repo.insertLink(db, {
      id: seededId("pl", ctx.idempotencySeed), merchantId: ctx.merchantId, environment: ctx.environment,
      title: body.title, description: body.description ?? null, ...checked, createdAt: at, updatedAt: at,
    });
    return toLink(row);
  }

  async function get(ctx: RequestCtx, id: string): Promise<LinkRow> {
    const row = await repo.findLink(db, ctx, id);
    if (!row) throw notFound("Payment link", id);
    return row;
  }

  async function update(ctx: RequestCtx, id: string, body: Static<typeof s.UpdateLinkBody>) {
    const row = await get(ctx, id);
    const pick = <K extends keyof typeof body>(k: K, current: unknown) => (body[k] === undefined ? current : body[k]);
    const currency = body.currency ?? row.currency;
    const checked = checkLink(ctx.environment, {
      currency,
      freightMode: body.freightMode ?? row.freightMode,
      // A change of freight mode drops the old fixed amount unless a new one is given.
      fixedFreightAmount: pick("fixedFreightAmount", body.freightMode && body.freightMode !== "fixed" ? null
        : row.fixedFreightAmount === null ? null : toMajor(row.fixedFreightAmount, row.currency)) as number | null,
      products: body.products ?? row.products.map((p) => ({
        title: p.title, unitPrice: toMajor(p.unitPrice, row.currency), quantity: p.quantity, physical: p.physical,
        ...(p.width !== null ? { width: p.width } : {}), ...(p.height !== null ? { height: p.height } : {}),
        ...(p.length !== null ? { length: p.length } : {}), ...(p.weight !== null ? { weight: p.weight } : {}),
      })),
      successUrl: pick("successUrl", row.successUrl) as string | null,
      // An unchanged past expiry must not stop other edits (e.g. reactivating with a new one).
      expiresAt: body.expiresAt === undefined ? null : body.expiresAt,
    });
    const updated = await repo.updateLink(db, ctx, id, {
      ...checked,
      expiresAt: body.expiresAt === undefined ? row.expiresAt : checked.expiresAt,
      title: body.title ?? row.title,
      description: body.description === undefined ? row.description : body.description,
      active: body.active ?? row.active,
    });
    return toLink(updated!);
  }

  async function deactivate(ctx: RequestCtx, id: string) {
    await get(ctx, id);
    return toLink((await repo.updateLink(db, ctx, id, { active: false }))!);
  }

  async function list(ctx: RequestCtx, query: PageQuery & { active?: boolean }) {
    const page = await readForList(db, ctx, (q) => repo.listLinks(q, ctx, query));
    return { data: page.data.map(toLink), hasMore: page.hasMore };
  }

  async function payments(ctx: RequestCtx, id: string, query: PageQuery) {
    await get(ctx, id);
    return deps.charges.list(ctx, { ...query, paymentLinkId: id });
  }

  const subtotalOf = (products: { unitPrice: number; quantity: number }[]) => products.reduce((sum, p) => sum + p.unitPrice * p.quantity, 0);

  function toLink(r: LinkRow) {
    const major = (minor: number) => toMajor(minor, r.currency);
    return {
      id: r.id, object: "payment_link" as const, livemode: r.environment === "production", active: r.active,
      url: `${deps.config.publicBaseUrl}/pay/${r.id}`,
      title: r.title, description: r.description, currency: r.currency, freightMode: r.freightMode,
      fixedFreightAmount: r.fixedFreightAmount === null ? null : major(r.fixedFreightAmount),
      products: r.products.map((p) => ({ ...p, unitPrice: major(p.unitPrice) })),
      subtotal: major(subtotalOf(r.products)), successUrl: r.successUrl,
      expiresAt: r.expiresAt?.toISOString() ?? null, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
    };
  }

  // ---- The buyer's side: public, the link id decides merchant and environment.

  /** A link that takes payments now; unknown, inactive and expired links are the same 404. */
  async function payable(id: string): Promise<LinkRow> {
    const row = await repo.findLinkById(db, id);
    if (!row || !row.active || (row.expiresAt && row.expiresAt.getTime() <= now().getTime())) throw unavailable(id);
    return row;
  }

  async function publicView(id: string) {
    const r = await payable(id);
    const merchant = await deps.merchants.getMerchant(r.merchantId);
    const major = (minor: number) => toMajor(minor, r.currency);
    return {
      id: r.id, livemode: r.environment === "production", title: r.title, description: r.description, currency: r.currency,
      freightMode: r.freightMode, fixedFreightAmount: r.fixedFreightAmount === null ? null : major(r.fixedFreightAmount),
      products: r.products.map((p) => ({ id: p.id, title: p.title, unitPrice: major(p.unitPrice), quantity: p.quantity, physical: p.physical })),
      subtotal: major(subtotalOf(r.products)),
      merchant: { name: merchant.name },
    };
  }

  /** What the hosted page renders (src/web), in minor units. */
  async function checkoutView(id: string) {
    const r = await payable(id);
    const merchant = await deps.merchants.getMerchant(r.merchantId);
    return {
      id: r.id, livemode: r.environment === "production", title: r.title, description: r.description, currency: r.currency,
      freightMode: r.freightMode, fixedFreightMinor: r.fixedFreightAmount, merchantName: merchant.name, successUrl: r.successUrl,
      products: r.products.map((p) => ({ title: p.title, unitPriceMinor: p.unitPrice, quantity: p.quantity, physical: p.physical })),
    };
  }

  /** The link's products with the buyer's quantities (the link's own by default). */
  function cart(link: LinkRow, items: CartItems | undefined): PaymentLinkProduct[] {
    if (!items) return link.products;
    const wanted = new Map<string, number>();
    for (const [i, it] of items.entries()) {
      if (!link.products.some((p) => p.id === it.productId)) throw invalid(`items.${i}.productId ${it.productId} is not a product of this link`);
      if (wanted.has(it.productId)) throw invalid(`items.${i}.productId ${it.productId} appears twice`);
      wanted.set(it.productId, it.quantity);
    }
    return link.products.filter((p) => wanted.has(p.id)).map((p) => ({ ...p, quantity: wanted.get(p.id)! }));
  }

  async function liveOptions(link: LinkRow, rawPostalCode: string, items: CartItems | undefined, field: string) {
    if (link.freightMode !== "checkout") {
      throw new AppError("invalid_state", `This link's freight is ${link.freightMode}; live quotes are only for links with freightMode checkout`);
    }
    if (link.currency !== "BRL") throw invalid("Live freight is quoted in BRL; this link's currency is " + link.currency);
    const postalCode = postalCodeDigits(rawPostalCode);
    if (!postalCode) throw invalid(`${field} must be a CEP: 00000-000 or 00000000`);
    const physical = cart(link, items).filter((p) => p.physical);
    if (physical.length === 0) throw invalid("Nothing to ship: the cart has no physical product");
    for (const p of physical) {
      const missing = (["width", "height", "length", "weight"] as const).filter((k) => p[k] === null);
      if (missing.length > 0) throw invalid(`Product ${p.id} has no ${missing.join(", ")}: the merchant must set them before freight can be quoted`);
    }
    return deps.shipping.quote(link, {
      linkId: link.id, toPostalCode: postalCode,
      products: physical.map((p) => ({
        id: p.id, width: p.width!, height: p.height!, length: p.length!, weight: p.weight!, insuranceValue: p.unitPrice, quantity: p.quantity,
      })),
    });
  }

  async function quote(id: string, body: Static<typeof s.QuoteBody>) {
    const link = await payable(id);
    const options = await liveOptions(link, body.postalCode, body.items, "postalCode");
    return { options: options.map((o) => ({ ...o, price: toMajor(o.priceMinor, "BRL"), priceMinor: undefined, currency: "BRL" as const })) };
  }

  /**
   * A buyer pays through the link. Everything the buyer sent is checked first, then (with live
   * freight) the server re-quotes for the shipping CEP and the cart and takes the chosen service
   * only if it is enabled and offered now; then the charge path does the rest.
   */
  async function charge(ctx: RequestCtx, id: string, body: Static<typeof s.LinkChargeBody>) {
    const link = await payable(id);
    const scope: RequestCtx = { ...ctx, merchantId: link.merchantId, environment: link.environment };
    const doc = body.customer.document;
    if (!body.customer.id && !doc) throw invalid("customer.document is required (CPF or CNPJ)");
    if (body.customer.id) throw invalid("customer.id is not accepted on a payment link; send name, email and document");
    if (doc && (doc.type === "cpf" || doc.type === "cnpj") && !normalizeDocument(doc.type, doc.id).ok) {
      throw invalid(`customer.document.id is not a valid ${doc.type.toUpperCase()} (check digits)`);
    }
    const items = cart(link, body.items);
    const cartField = body.items ? "items" : "products";
    checkAmountCeiling(subtotalOf(items), link.currency, limits, cartField, { totalOf: "the products (unitPrice x quantity)" });
    const ships = items.some((p) => p.physical) && link.freightMode !== "pickup";
    if (ships && !body.shippingAddress) throw invalid("shippingAddress is required: this link ships physical products");
    if (link.freightMode !== "checkout" && body.freightServiceId !== undefined) {
      throw invalid(`freightServiceId is only for links with freightMode checkout; this link's freight is ${link.freightMode}`);
    }
    if (link.freightMode === "checkout" && body.freightServiceId === undefined) throw invalid("freightServiceId is required: pick one of the quoted freight options");
    const paymentMethod = { ...body.paymentMethod } as typeof body.paymentMethod & { installments?: number };
    if (body.installments !== undefined) {
      if (paymentMethod.type !== "credit_card") throw invalid("installments are only for paymentMethod.type credit_card");
      paymentMethod.installments = body.installments;
    }
    const subtotal = subtotalOf(items);
    // The charge path's own checks (card, Pix limits, customer) before the freight provider is
    // asked, on the products' total; the total with freight is checked again once it is known.
    const checked = await deps.charges.check(scope, {
      amountMinor: subtotal, currency: link.currency, customer: body.customer, paymentMethod,
      // As the charge shows its items: unit prices in currency units.
      items: items.map((p) => ({ title: p.title, unit_price: toMajor(p.unitPrice, link.currency), quantity: p.quantity })),
      ...(body.shippingAddress ? { shippingAddress: body.shippingAddress } : {}),
      metadata: { paymentLinkId: link.id }, paymentLinkId: link.id,
    });
    if (!checked.ok) throw checked.problems[0]!;

    let freightMinor = 0;
    let freightDetails: Record<string, unknown> | null = null;
    if (link.freightMode === "fixed") freightMinor = link.fixedFreightAmount ?? 0;
    if (link.freightMode === "checkout") {
      const options = await liveOptions(link, body.shippingAddress!.postalCode, body.items, "shippingAddress.postalCode");
      const chosen = options.find((o) => o.serviceId === body.freightServiceId);
      if (!chosen) {
        throw invalid(`freightServiceId ${body.freightServiceId} is not offered for CEP ${body.shippingAddress!.postalCode} now; quote again and pick one of the options`);
      }
      freightMinor = chosen.priceMinor;
      freightDetails = {
        serviceId: chosen.serviceId, provider: "melhor_envio", serviceName: chosen.name, company: chosen.company,
        price: toMajor(chosen.priceMinor, "BRL"), deliveryTime: chosen.deliveryTime,
      };
    } else if (link.freightMode === "fixed") {
      freightDetails = { provider: "fixed", price: toMajor(freightMinor, link.currency) };
    }
    const amountMinor = subtotal + freightMinor;
    checkAmountCeiling(amountMinor, link.currency, limits, link.freightMode === "checkout" ? "freightServiceId" : cartField, { totalOf: "the products and freight" });
    const freight = { amountMinor: link.freightMode === "pickup" ? null : freightMinor, details: freightDetails };
    const created = await deps.charges.create(scope, deps.charges.priced(checked.charge, amountMinor, freight));
    return {
      ...created, amount: toMajor(amountMinor, link.currency), freightAmount: toMajor(freightMinor, link.currency), successUrl: link.successUrl,
    };
  }

  /** The page's Pix poll: only a charge made through this link, and only its status. */
  async function chargeStatus(id: string, chargeId: string) {
    const link = await repo.findLinkById(db, id);
    const c = link ? await deps.charges.findForLink(link, link.id, chargeId) : undefined;
    if (!link || !c) throw notFound("Charge", chargeId);
    return { id: c.id, status: c.status, paid: c.status === "paid" };
  }

  async function freightAvailability(merchantId: string, environment?: Environment) {
    return { hasFreightTool: await deps.shipping.hasActiveIntegration(merchantId, environment) };
  }

  /**
   * The checkout's installment plans for what the buyer pays now (the products and the freight
   * chosen): the link's merchant's terms in the link's environment, the same table a charge uses.
   */
  async function installments(id: string, amount: number) {
    const link = await payable(id);
    const amountMinor = amountToMinor(amount, link.currency, deps.config.amountLimits, { field: "amount" });
    const terms = (await deps.merchants.chargeProfile(link.merchantId)).installments[link.environment];
    return { data: installmentPlans(amountMinor, terms).map((p) => planView(p, link.currency)) };
  }

  return { create, get: async (ctx: RequestCtx, id: string) => toLink(await get(ctx, id)), update, deactivate, list, payments, publicView, checkoutView, quote, charge, chargeStatus, freightAvailability, payable, installments };
}

export type PaymentLinkService = ReturnType<typeof createPaymentLinkService>;
