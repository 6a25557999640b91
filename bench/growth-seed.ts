// Existing data for bench/growth.ts, written by set-based SQL: one INSERT ... SELECT over
// generate_series per table, so 5,000,000 charges take minutes. Every value is a function of
// the row number, so a level adds rows to the previous one and later lookups find the same ids.
//
// Shape (per charge i): a merchant (the demo merchant owns `demoShare` % of the charges, the
// other merchants share the rest evenly), 75 % sandbox / 25 % production, a customer (about 10
// charges per customer), a status (paid 70 %, refunded 5, refused 10, failed 8, pending 3,
// in_analysis 2, authentication_required 2), a method (card 60 %, Pix 30, boleto 8, debit 2),
// 3 % through a payment link, created_at spread over 180 days and ids ordered by it, as lib/ids.ts
// makes them. Paid and refunded charges have a ledger transaction, two entries and a settlement;
// refunded ones a refund. Events (two per charge) and their deliveries exist for the last 30 days
// only, as EVENT_RETENTION_DAYS (30) leaves them. Per merchant: 5 plans, 20 payment links, a
// subscription per 10 customers, a saved card per 5 customers; every merchant other than the demo
// one is a submerchant of it with 10 payout requests.

/** What the seed needs of a connection: pg's Client and Pool, and PGlite, all fit. */
export interface SqlRunner { query(text: string): Promise<{ rows: unknown[] }> }

export interface SeedIds {
  customerId: string;
  customerEmail: string;
  middleChargeId: string;
  linkId: string;
  endpointId: string;
  dayStart: string;
  dayEnd: string;
}

const DAY = 86_400_000;
const SPAN_DAYS = 180;

/** Functions of the row number that the INSERTs share; created in the scratch database only. */
export async function prepareSeed(c: SqlRunner, demo: string, merchants: number): Promise<void> {
  const bits = Array.from({ length: 10 }, (_, k) => `substr(a, ((ms >> ${(9 - k) * 5}) & 31)::int + 1, 1)`).join(" || ");
  // One statement per query: PGlite's query() takes one. bench_hash(n, salt): a salt per attribute, so
  // that status, method, merchant and customer of a row are independent.
  await c.query(`
    create or replace function bench_id(prefix text, ms bigint, n bigint) returns text language sql immutable parallel safe as $$
      select prefix || '_' || ${bits.replaceAll("a,", "'0123456789abcdefghjkmnpqrstvwxyz',")} || substr(md5(prefix || n::text), 1, 16)
    $$`);
  await c.query(`
    create or replace function bench_hash(n bigint, salt bigint) returns bigint language sql immutable parallel safe as $$
      select hashint8extended(n, salt) & 9223372036854775807
    $$`);
  await c.query(`
    create or replace function bench_merchant(k int) returns text language sql immutable parallel safe as $$
      select case when k = 0 then '${demo}' else 'mer_0bench' || lpad(k::text, 16, '0') end
    $$`);
  await c.query(`
    insert into merchants (id, name, email, password_hash, connect_enabled, parent_id, pix_key)
    select bench_merchant(k), 'Bench ' || k, 'bench' || k || '@example.com', 'not-a-hash', false, '${demo}', 'pix-bench-' || k
    from generate_series(1, ${merchants - 1}) k`);
  await c.query(`
    insert into submerchants (id, parent_id, environment, trade_name, legal_name, company_tax_id, average_monthly_revenue,
      average_order_value, product_type, website, contact_email, product_description, status, approved_at, created_at, updated_at)
    select bench_merchant(k), '${demo}', 'sandbox', 'Bench ' || k, 'Bench ' || k || ' LTDA', lpad(k::text, 14, '0'), 100000, 1000,
      'digital', 'https://bench.example.com', 'bench@example.com', 'Benchmark', case when k % 10 = 0 then 'pending' else 'active' end,
      case when k % 10 = 0 then null else now() - (k % ${SPAN_DAYS}) * interval '1 day' end,
      now() - (k % ${SPAN_DAYS}) * interval '1 day' - k * interval '1 second', now() - (k % ${SPAN_DAYS}) * interval '1 day'
    from generate_series(1, ${merchants - 1}) k`);
  await c.query(`
    insert into payout_requests (id, merchant_id, parent_id, environment, amount, currency, payout_fee, net_amount, status, pix_key,
      processed_at, created_at, updated_at)
    select bench_id('po', ms, n), bench_merchant(k), '${demo}', 'sandbox', 10000, 'BRL', 100, 9900,
      case when n % 5 = 0 then 'pending' when n % 7 = 0 then 'rejected' else 'approved' end, 'pix-bench-' || k,
      case when n % 5 = 0 then null else to_timestamp((ms + 3600000) / 1000.0) end, to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
    from (select k, k * 10 + j as n, (extract(epoch from now()) * 1000)::bigint - (bench_hash(k * 10 + j, 9) % (${SPAN_DAYS}::bigint * ${DAY})) as ms
          from generate_series(1, ${merchants - 1}) k, generate_series(0, 9) j) x`);
  // Per merchant and environment: 5 plans, 20 payment links, a webhook endpoint (disabled, so the
  // charge scenario writes no deliveries, as in the other benchmarks; its delivery log is listed).
  await c.query(`
    insert into plans (id, merchant_id, environment, name, price, currency, interval, archived_at, created_at)
    select bench_id('plan', ms, k * 100 + e * 10 + j), bench_merchant(k), env, 'Plan ' || j, 1990 + j * 1000, 'BRL', 'month',
      case when j = 4 then now() end, to_timestamp(ms / 1000.0)
    from (select k, e, j, case e when 0 then 'sandbox' else 'production' end as env,
            (extract(epoch from now()) * 1000)::bigint - ${SPAN_DAYS}::bigint * ${DAY} + j * ${DAY} as ms
          from generate_series(0, ${merchants - 1}) k, generate_series(0, 1) e, generate_series(0, 4) j) x`);
  await c.query(`
    insert into payment_links (id, merchant_id, environment, title, currency, freight_mode, products, active, created_at, updated_at)
    select ${linkId("k", "e", "j")}, bench_merchant(k), case e when 0 then 'sandbox' else 'production' end, 'Link ' || j, 'BRL', 'free',
      '[{"id": "prod_1", "title": "Item", "unitPrice": 1000, "quantity": 1, "physical": false, "width": null, "height": null, "length": null, "weight": null}]'::jsonb, j % 4 <> 0, now() - interval '${SPAN_DAYS + 1} days', now()
    from generate_series(0, ${merchants - 1}) k, generate_series(0, 1) e, generate_series(0, 19) j`);
  await c.query(`
    insert into webhook_endpoints (id, merchant_id, environment, url, events, enabled, disabled_reason, secret_sealed, created_at)
    select bench_id('whe', (extract(epoch from now()) * 1000)::bigint - ${SPAN_DAYS + 1}::bigint * ${DAY}, k * 2 + e), bench_merchant(k),
      case e when 0 then 'sandbox' else 'production' end, 'https://hooks.example.com/feira', '["*"]'::jsonb, false, 'bench', 'not-sealed',
      now() - interval '${SPAN_DAYS + 1} days'
    from generate_series(0, ${merchants - 1}) k, generate_series(0, 1) e`);
}

// Link j of merchant k in environment e (0 sandbox, 1 production), created before every charge.
const linkId = (k: string, e: string, j: string) =>
  `bench_id('pl', (extract(epoch from now()) * 1000)::bigint - ${SPAN_DAYS + 1}::bigint * ${DAY} + (${j}), ((${k}) * 2 + (${e})) * 100 + (${j}))`;

/** Adds charges from+1..to and everything that goes with them; ANALYZEs; returns ids for the scenarios. */
export async function seedLevel(c: SqlRunner, o: { demo: string; merchants: number; demoShare: number; from: number; to: number }): Promise<SeedIds> {
  const count = o.to - o.from;
  const now = Date.now();
  const t0 = now - SPAN_DAYS * DAY;
  // Customers per merchant at this size: about one per 10 of its charges.
  const demoCharges = o.merchants === 1 ? o.to : o.to * (o.demoShare / 100) + (o.to * (1 - o.demoShare / 100)) / o.merchants;
  const otherCharges = o.merchants === 1 ? 0 : (o.to * (1 - o.demoShare / 100)) / o.merchants;
  const perMerchant = `greatest(1, (case when k = 0 then ${Math.floor(demoCharges / 10)} else ${Math.floor(otherCharges / 10)} end)::bigint)`;
  const g = `
    select i, k, env, e, ms, st, pm,
      'cus_0bench' || lpad(k::text, 5, '0') || e || lpad((bench_hash(i, 2) % ${perMerchant})::text, 9, '0') as customer_id,
      bench_id('ch', ms, i) as charge_id, 1000 + bench_hash(i, 6) % 100000 as amount
    from (
      select i, k, case when e = 0 then 'sandbox' else 'production' end as env, e,
        ${t0}::bigint + ((i - ${o.from}) * ${SPAN_DAYS * DAY}::bigint / ${count}) as ms,
        bench_hash(i, 4) % 100 as st, bench_hash(i, 5) % 100 as pm
      from (
        select i, (case when ${o.merchants} = 1 then 0 when bench_hash(i, 0) % 100 < ${o.demoShare} then 0
                   else bench_hash(i, 1) % ${o.merchants} end)::int as k,
          (case when bench_hash(i, 3) % 4 = 0 then 1 else 0 end)::int as e
        from generate_series(${o.from + 1}, ${o.to}) i
      ) a
    ) b`;
  const status = `case when st < 70 then 'paid' when st < 75 then 'refunded' when st < 85 then 'refused' when st < 93 then 'failed'
    when st < 96 then 'pending' when st < 98 then 'in_analysis' else 'authentication_required' end`;
  const method = `case when pm < 60 then 'credit_card' when pm < 90 then 'pix' when pm < 98 then 'boleto' else 'debit_card' end`;
  const paid = "st < 75";
  const recent = `ms > ${now - 30 * DAY}`;
  await c.query(`
    insert into charges (id, merchant_id, environment, customer_id, amount, currency, status, payment_method_type, payment_method,
      installments, processor, psp_ref_id, net, amount_refunded, payment_link_id, paid_at, expires_at, created_at, updated_at)
    select charge_id, bench_merchant(k), env, customer_id, amount, 'BRL', ${status}, ${method},
      jsonb_build_object('type', ${method}, 'brand', 'visa', 'lastFour', '1111'), 1, 'sandbox', 'psp_' || i,
      amount * 95 / 100, case when st between 70 and 74 then amount else 0 end,
      case when bench_hash(i, 7) % 100 < 3 then ${linkId("k", "e", "bench_hash(i, 8) % 20")} end,
      case when ${paid} then to_timestamp(ms / 1000.0) end,
      case when st between 93 and 95 then now() + interval '1 day' end,
      to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
    from (${g}) x`);
  await c.query(`
    insert into customers (id, merchant_id, environment, name, email, document_type, document_id, created_at, updated_at)
    select customer_id, bench_merchant(k), env, 'Customer ' || customer_id, lower(customer_id) || '@example.com', 'cpf',
      lpad((bench_hash(i, 10) % 99999999999)::text, 11, '0'), to_timestamp(ms / 1000.0), to_timestamp(ms / 1000.0)
    from (select distinct on (customer_id) * from (${g}) y order by customer_id, i) x
    on conflict (id) do nothing`);
  await c.query(`
    insert into cards (id, merchant_id, environment, customer_id, brand, first_six, last_four, expiration_month, expiration_year,
      holder_name, number_sealed, created_at)
    select 'card_' || substr(id, 5), merchant_id, environment, id, 'visa', '411111', '1111', '12', '2035', 'BENCH', 'not-sealed', created_at
    from customers where id like 'cus_0bench%' and right(id, 1) in ('0', '5')
    on conflict (id) do nothing`);
  await c.query(`
    insert into subscriptions (id, merchant_id, environment, plan_id, customer_id, payment_method, status, billing_day, anchor_at,
      current_period_start, current_period_end, next_run_at, created_at, updated_at)
    select 'sub_' || substr(cu.id, 5), cu.merchant_id, cu.environment,
      (select p.id from plans p where p.merchant_id = cu.merchant_id and p.environment = cu.environment order by p.id limit 1),
      cu.id, jsonb_build_object('type', 'credit_card'), case when right(cu.id, 2) in ('00', '10') then 'paused' else 'active' end, 1,
      cu.created_at, date_trunc('month', now()), date_trunc('month', now()) + interval '1 month', date_trunc('month', now()) + interval '1 month',
      cu.created_at, cu.created_at
    from customers cu where cu.id like 'cus_0bench%' and right(cu.id, 2)::int % 10 = 0
    on conflict (id) do nothing`);
  await c.query(`
    insert into refunds (id, charge_id, merchant_id, environment, amount, status, created_at)
    select bench_id('re', ms + 3600000, i), charge_id, bench_merchant(k), env, amount, 'succeeded', to_timestamp((ms + 3600000) / 1000.0)
    from (${g}) x where st between 70 and 74`);
  await c.query(`
    insert into ledger_transactions (id, environment, type, source_id, created_at)
    select bench_id('ltx', ms, i), env, 'charge', charge_id, to_timestamp(ms / 1000.0) from (${g}) x where ${paid}`);
  await c.query(`
    insert into ledger_entries (id, transaction_id, owner, environment, currency, account, amount, type, source_id, created_at)
    select bench_id('le', ms, i * 2 + side), bench_id('ltx', ms, i), case side when 0 then bench_merchant(k) else 'platform' end, env, 'BRL',
      case when side = 0 and ms < ${now - 30 * DAY} then 'available' else 'pending' end,
      case side when 0 then amount * 95 / 100 else -(amount * 95 / 100) end, 'charge', charge_id, to_timestamp(ms / 1000.0)
    from (${g}) x, generate_series(0, 1) side where ${paid}`);
  await c.query(`
    insert into settlements (id, owner, environment, currency, charge_id, installment, amount, due_at, settled_at, created_at)
    select bench_id('stl', ms, i), bench_merchant(k), env, 'BRL', charge_id, 1, amount * 95 / 100,
      to_timestamp(ms / 1000.0) + interval '30 days', case when ms < ${now - 30 * DAY} then to_timestamp(ms / 1000.0) + interval '30 days' end,
      to_timestamp(ms / 1000.0)
    from (${g}) x where ${paid}`);
  await c.query(`
    insert into events (id, merchant_id, environment, type, envelope, object_id, data, created_at)
    select bench_id('evt', ms + n, i * 2 + n), bench_merchant(k), env,
      case n when 0 then 'charge.created' else 'charge.' || (${status}) end, 'standard', charge_id,
      jsonb_build_object('id', charge_id, 'object', 'charge'), to_timestamp((ms + n) / 1000.0)
    from (${g}) x, generate_series(0, 1) n where ${recent}`);
  await c.query(`
    insert into webhook_deliveries (id, event_id, merchant_id, environment, endpoint_id, url, kind, status, attempts, next_attempt_at,
      last_status, delivered_at, created_at, updated_at)
    select 'whd_' || substr(ev.id, 5), ev.id, ev.merchant_id, ev.environment, we.id, we.url, 'standard', 'delivered', 1, ev.created_at, 200,
      ev.created_at, ev.created_at, ev.created_at
    from events ev join webhook_endpoints we on we.merchant_id = ev.merchant_id and we.environment = ev.environment
    where ev.id like 'evt_%' and ev.created_at > to_timestamp(${t0} / 1000.0)
    on conflict (id) do nothing`);
  await c.query("analyze");
  return lookupIds(c, o.demo, now);
}

/** Ids of the demo merchant's seeded data for the scenarios: a customer with a card, a charge 90 days back... */
export async function lookupIds(c: SqlRunner, demo: string, now = Date.now()): Promise<SeedIds> {
  const one = async (text: string) => {
    const r = await c.query(text);
    if (!r.rows[0]) throw new Error(`seed lookup found nothing: ${text}`);
    return Object.values(r.rows[0] as Record<string, string>)[0]!;
  };
  const scope = `merchant_id = '${demo}' and environment = 'sandbox'`;
  const customerId = await one(`select customer_id from charges where ${scope} and customer_id is not null
    and exists (select 1 from cards where cards.customer_id = charges.customer_id) order by id desc limit 1`);
  const dayStart = new Date(now - 30 * DAY).toISOString();
  return {
    customerId,
    customerEmail: `${customerId.toLowerCase()}@example.com`,
    middleChargeId: await one(`select id from charges where ${scope} and created_at < now() - interval '90 days' order by id desc limit 1`),
    linkId: await one(`select id from payment_links where ${scope} order by id limit 1`),
    endpointId: await one(`select id from webhook_endpoints where ${scope} limit 1`),
    dayStart,
    dayEnd: new Date(now - 29 * DAY).toISOString(),
  };
}
