import type { FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { errors, IdempotencyHeaders, IdParams } from "../../http/schemas.js";
import * as s from "./subscriptions.schemas.js";
import type { SubscriptionService } from "./subscriptions.service.js";

const tags = ["subscriptions"];

export function subscriptionRoutes(subs: SubscriptionService) {
  return async (base: FastifyInstance) => {
    const app = base.withTypeProvider<TypeBoxTypeProvider>();

    app.post("/v1/subscriptions", {
      schema: {
        operationId: "createSubscription", tags, summary: "Subscribe a customer to a plan",
        description:
          "Charges the first period at once through the normal charge path and answers 201 whatever the outcome: active when it is paid; pending_activation when it is refused, failed or awaits the payer (Pix, boleto, 3-D Secure), becoming active when that charge is paid (or expired if it is still unpaid 23 hours later). A plan with trial days starts active with no charge until the trial ends. A new card is kept in the customer's card vault for the renewals. Renewals fall on billingDay (month and year plans) or every interval from the start. pix_automatico (Pix Automático, a customer with a CPF or CNPJ, not for day plans) answers pending_activation with a `mandate` whose QR the payer scans once: without a trial it pays the first period too; the mandate's approval activates the subscription, and each later period is charged 5 days before its due date and debited on it. In production it needs a processor named by PAYMENT_ROUTES' `pix_automatico=` (else 422 method_not_supported, nothing written) and a weekly, monthly, quarterly, half-yearly or yearly plan (else 422 naming planId): the mandate is a recurrence at that processor, and cancelling such a subscription cancels it there first (503 when the processor does not confirm, and nothing changes).",
        headers: IdempotencyHeaders, body: s.CreateSubscriptionBody,
        response: { 201: s.Subscription, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req, reply) => reply.code(201).send(await subs.create(req.ctx, req.body)));

    app.get("/v1/subscriptions", {
      schema: {
        operationId: "listSubscriptions", tags, summary: "List subscriptions",
        description: "Newest first, by page. Filters: merchantId (the caller's own id, or a Connect submerchant's), customerId, status, and search (case-insensitive, in the customer's name or e-mail or the plan's name; % and _ match themselves).",
        querystring: s.ListSubscriptionsQuery,
        response: { 200: s.SubscriptionList, ...errors(401, 403, 404, 422) },
      },
    }, async (req) => subs.list(req.ctx, req.query));

    app.get("/v1/subscriptions/:id", {
      schema: {
        operationId: "getSubscription", tags, summary: "Retrieve a subscription",
        description: "The subscription with its plan, customer, the period being collected if a payment failed, and the charges of each period (every attempt, newest first).",
        params: IdParams,
        response: { 200: s.Subscription, ...errors(401, 403, 404) },
      },
    }, async (req) => subs.get(req.ctx, req.params.id));

    app.patch("/v1/subscriptions/:id", {
      schema: {
        operationId: "updateSubscription", tags, summary: "Change a subscription's plan or metadata",
        description: "A new planId takes effect at the next period (no proration); it must be an active plan in the same currency. Cancelled and expired subscriptions cannot change (409).",
        params: IdParams, body: s.UpdateSubscriptionBody,
        response: { 200: s.Subscription, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req) => subs.update(req.ctx, req.params.id, req.body));

    app.post("/v1/subscriptions/:id/cancel", {
      schema: {
        operationId: "cancelSubscription", tags, summary: "Cancel a subscription",
        description: "Immediately by default (cancellationType immediate); with atPeriodEnd the subscription stays active until its period ends (cancellationType end_of_period). refund: true refunds the current period's payment in full and sets refunded. Cancelling a cancelled or expired subscription is 409.",
        headers: IdempotencyHeaders, params: IdParams, body: s.CancelBody,
        response: { 200: s.Subscription, ...errors(400, 401, 403, 404, 409, 422) },
      },
    }, async (req) => subs.cancel(req.ctx, req.params.id, req.body ?? {}));

    app.post("/v1/subscriptions/:id/pause", {
      schema: {
        operationId: "pauseSubscription", tags, summary: "Pause a subscription",
        description: "Nothing is billed while paused; a payment being retried is dropped. Only active subscriptions can be paused (409 otherwise).",
        headers: IdempotencyHeaders, params: IdParams,
        response: { 200: s.Subscription, ...errors(400, 401, 403, 404, 409) },
      },
    }, async (req) => subs.pause(req.ctx, req.params.id));

    app.post("/v1/subscriptions/:id/resume", {
      schema: {
        operationId: "resumeSubscription", tags, summary: "Resume a paused subscription",
        description: "A new period starts on the resume date and is charged at once; its day of the month becomes the billing day. Only paused subscriptions can be resumed (409 otherwise).",
        headers: IdempotencyHeaders, params: IdParams,
        response: { 200: s.Subscription, ...errors(400, 401, 403, 404, 409) },
      },
    }, async (req) => subs.resume(req.ctx, req.params.id));

    app.get("/v1/subscription-settings", {
      schema: {
        operationId: "getSubscriptionSettings", tags, summary: "Read the dunning settings",
        description: "The retry schedule of failed renewals and what happens when it runs out. Defaults: retries 1, 3 and 5 days after each failure, then expire.",
        response: { 200: s.Settings, ...errors(401, 403) },
      },
    }, async (req) => subs.getSettings(req.ctx));

    app.put("/v1/subscription-settings", {
      schema: {
        operationId: "putSubscriptionSettings", tags, summary: "Set the dunning settings",
        description: "retryDays: days to wait after each failed renewal attempt before the next (at most 8 retries); onExhausted: expire or cancel the subscription after the last failure. Applies to the key's environment, from the next failure on.",
        body: s.SettingsBody,
        response: { 200: s.Settings, ...errors(400, 401, 403, 422) },
      },
    }, async (req) => subs.putSettings(req.ctx, req.body));
  };
}
