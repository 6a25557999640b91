import type { Db } from "../../db/client.js";
import type { RequestCtx } from "../../core/context.js";
import { invalid, notFound } from "../../core/errors.js";
import { inspectCard } from "../../lib/cards.js";
import type { Sealer } from "../../lib/crypto.js";
import { seededId } from "../../lib/ids.js";
import * as repo from "./cards.repo.js";

// The card vault. The PAN is sealed (AES-256-GCM) with an AAD that names the merchant, so a
// row copied to another merchant does not open; only cardForCharge ever opens it, in memory,
// for one processor call. The CVV is never taken.

/** What the vault needs of customers: the customers service's `get` (404 when not ours). */
export interface CustomerLookup {
  get(ctx: RequestCtx, id: string): Promise<unknown>;
}

export interface SaveCardInput {
  number: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
}

/** A saved card, opened for a charge: never serialize it, never log it. */
export interface ChargeableCard {
  id: string;
  customerId: string;
  number: string;
  brand: string;
  firstSix: string;
  lastFour: string;
  holderName: string;
  expirationMonth: string;
  expirationYear: string;
}

const LIST_LIMIT = 100;
const aad = (merchantId: string) => `card:${merchantId}`;

export function toCard(row: repo.CardRow) {
  return {
    id: row.id,
    customerId: row.customerId,
    brand: row.brand,
    firstSix: row.firstSix,
    lastFour: row.lastFour,
    expirationMonth: row.expirationMonth,
    expirationYear: row.expirationYear,
    holderName: row.holderName,
    createdAt: row.createdAt.toISOString(),
  };
}

export function createCardService(deps: { db: Db; sealer: Sealer; customers: CustomerLookup; now?: () => Date }) {
  const { db, sealer, customers } = deps;
  const now = deps.now ?? (() => new Date());

  async function create(ctx: RequestCtx, customerId: string, input: SaveCardInput) {
    await customers.get(ctx, customerId);
    const card = inspectCard({ ...input, cvv: "", requireCvv: false, now: now() });
    if (!card.ok) {
      // inspectCard's messages never contain the number; some ("card has expired") do not
      // start with the field, and a 422 must name it.
      throw invalid(card.message.startsWith(card.field) ? card.message : `${card.field}: ${card.message}`);
    }
    const holderName = input.holderName.trim();
    if (holderName.length === 0) throw invalid("holderName must not be blank");
    // Under an Idempotency-Key (or a subscription's derived seed) the id comes from the seed, so
    // a retry after a crash finds the card the first attempt saved instead of saving a second.
    const id = seededId("card", ctx.idempotencySeed);
    if (ctx.idempotencySeed) {
      const earlier = await repo.findCard(db, ctx, id, customerId);
      if (earlier) return earlier;
    }
    return repo.insertCard(db, {
      id,
      merchantId: ctx.merchantId,
      environment: ctx.environment,
      customerId,
      brand: card.brand,
      firstSix: card.firstSix,
      lastFour: card.lastFour,
      expirationMonth: card.expirationMonth,
      expirationYear: card.expirationYear,
      holderName,
      numberSealed: sealer.seal(card.number, aad(ctx.merchantId)),
    });
  }

  async function list(ctx: RequestCtx, customerId: string) {
    await customers.get(ctx, customerId);
    const rows = await repo.listCards(db, ctx, customerId, LIST_LIMIT);
    return { data: rows.slice(0, LIST_LIMIT).map(toCard), hasMore: rows.length > LIST_LIMIT };
  }

  async function get(ctx: RequestCtx, customerId: string, cardId: string) {
    await customers.get(ctx, customerId);
    const row = await repo.findCard(db, ctx, cardId, customerId);
    if (!row) throw notFound("Card", cardId);
    return row;
  }

  /** Deletes the card and its sealed number; charges made with it keep their own safe copy. */
  async function remove(ctx: RequestCtx, customerId: string, cardId: string): Promise<void> {
    await customers.get(ctx, customerId);
    if (!(await repo.deleteCard(db, ctx, customerId, cardId))) throw notFound("Card", cardId);
  }

  /**
   * The saved card with its number, for one processor call (404 when it is not this
   * merchant's, or not this customer's when customerId is given). Runs on `db`: call it
   * before opening a transaction, never inside one (PGlite would deadlock).
   */
  async function cardForCharge(ctx: RequestCtx, cardId: string, customerId?: string): Promise<ChargeableCard> {
    const row = await repo.findCard(db, ctx, cardId, customerId);
    if (!row) throw notFound("Card", cardId);
    return {
      id: row.id,
      customerId: row.customerId,
      number: sealer.open(row.numberSealed, aad(row.merchantId)),
      brand: row.brand,
      firstSix: row.firstSix,
      lastFour: row.lastFour,
      holderName: row.holderName,
      expirationMonth: row.expirationMonth,
      expirationYear: row.expirationYear,
    };
  }

  return { create, list, get, remove, cardForCharge };
}

export type CardService = ReturnType<typeof createCardService>;
