import fc from "fast-check";

// Hostile requests for every operation of the OpenAPI document: a body generated from the
// operation's schema or taken from a known-good example, then mutated at one place (wrong
// type, null, huge numbers, NaN-like strings, NUL bytes, lone surrogates, very long strings,
// deep nesting, unknown fields...), hostile path params, query strings and headers, and
// other content types. Shared by test/fuzz/openapi-fuzz.test.ts and bench/fuzz.ts.

export type Schema = Record<string, unknown> & {
  type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; items?: Schema;
  additionalProperties?: boolean | Schema; enum?: unknown[]; const?: unknown; oneOf?: Schema[]; anyOf?: Schema[];
  minLength?: number; maxLength?: number; minimum?: number; maximum?: number; pattern?: string; format?: string;
  maxItems?: number; $ref?: string;
};

export interface Operation {
  id: string;
  method: string;
  path: string;
  auth: "secretKey" | "adminKey" | "bearerJwt" | "public";
  pathParams: string[];
  query: Record<string, Schema>;
  body?: Schema;
  /** Error statuses answered with an HTML page by design (the sandbox bank pages, for payers). */
  htmlStatuses: number[];
  /** The 4xx and 5xx statuses the document lists for the operation. */
  errorStatuses: number[];
  /** Its success is an endless text/event-stream: the answer is read up to its status only. */
  streams: boolean;
}

export interface HostileRequest {
  op: string;
  /** What was done to the request, for the report of a failure. */
  mutation: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
}

/** What the generators pick real values from: keys and ids of objects that exist. */
export interface FuzzContext {
  keys: { sandbox: string; production: string; other: string; admin: string };
  /** Ids for a path parameter: by its name (cardId, bank), or for `id` by the path's first
   * segment after /v1/ (charges, customers, events, ...). */
  ids: Record<string, string[]>;
  /** Known-good bodies per operationId: mutations of them get past the first checks. */
  examples: Record<string, unknown[]>;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, {
    operationId?: string; security?: Record<string, unknown>[];
    parameters?: { in: string; name: string; schema: Schema }[];
    requestBody?: { content: Record<string, { schema: Schema }> };
    responses: Record<string, { content?: Record<string, { schema?: Schema }> }>;
  }>>;
  components?: { schemas?: Record<string, Schema> };
}

export function operationsOf(doc: OpenApiDoc): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      const security = Object.keys(op.security?.[0] ?? {})[0];
      ops.push({
        id: op.operationId ?? `${method} ${path}`,
        method: method.toUpperCase(),
        path,
        auth: (security ?? "public") as Operation["auth"],
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        query: Object.fromEntries(params.filter((p) => p.in === "query").map((p) => [p.name, p.schema])),
        body: op.requestBody?.content["application/json"]?.schema,
        // The document types these as a string described as an HTML page.
        htmlStatuses: Object.entries(op.responses)
          .filter(([, r]) => Object.values(r.content ?? {}).some((c) => c.schema?.type === "string"))
          .map(([status]) => Number(status)),
        errorStatuses: Object.keys(op.responses).map(Number).filter((status) => status >= 400),
        streams: Object.keys(op.responses["200"]?.content ?? {}).includes("text/event-stream"),
      });
    }
  }
  return ops;
}

// ---- Valid-looking values from a schema.

const LOCAL_URL = "http://127.0.0.1:9/hook";

function fromSchema(schema: Schema, name = "", depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const branches = schema.oneOf ?? schema.anyOf;
  if (branches) return fc.oneof(...branches.map((b) => fromSchema(b, name, depth)));
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? "string"];
  return fc.oneof(...types.map((type) => fromType(type, schema, name, depth)));
}

function fromType(type: string, schema: Schema, name: string, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "object": {
      if (depth > 4) return fc.constant({});
      const props = schema.properties ?? {};
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, fromSchema(s, k, depth + 1)]));
      const record = fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in props) });
      if (typeof schema.additionalProperties !== "object") return record;
      const extra = fc.dictionary(fc.string({ minLength: 1, maxLength: 12 }), fromSchema(schema.additionalProperties, "", depth + 1), { maxKeys: 4 });
      return fc.tuple(record, extra).map(([r, e]) => ({ ...e, ...r }));
    }
    case "array":
      return fc.array(schema.items ? fromSchema(schema.items, name, depth + 1) : fc.anything(), { maxLength: Math.min(schema.maxItems ?? 3, 3) });
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1000, max: schema.maximum ?? 100_000 });
    case "number":
      return fc.oneof(
        fc.integer({ min: Math.ceil(schema.minimum ?? 0), max: Math.floor(schema.maximum ?? 10_000) }),
        fc.double({ min: schema.minimum ?? 0, max: schema.maximum ?? 10_000, noNaN: true, noDefaultInfinity: true }),
      );
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    default:
      return stringFrom(schema, name);
  }
}

function stringFrom(schema: Schema, name: string): fc.Arbitrary<string> {
  if (/url/i.test(name)) return fc.constantFrom(LOCAL_URL, "https://example.invalid/hook", "ftp://x/");
  switch (schema.format) {
    case "date-time": return fc.date({ min: new Date("2000-01-01"), max: new Date("2100-01-01"), noInvalidDate: true }).map((d) => d.toISOString());
    case "date": return fc.constantFrom("2030-01-15", "2020-02-30", "1999-12-31");
    case "email": return fc.stringMatching(/^[a-z]{1,10}$/).map((u) => `${u}@example.com`);
    case "uri": return fc.constant(LOCAL_URL);
  }
  const max = Math.min(schema.maxLength ?? 30, 40);
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= (schema.maxLength ?? 1000));
  return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.max(max, schema.minLength ?? 0) });
}

// ---- Hostile values. Some cannot be made by JSON.stringify (1e400, nesting 100,000 deep,
// which would overflow the stringifier itself): a token string stands in for them and is
// replaced in the serialized text.

const raw = (text: string) => `@@RAW:${text}@@`;
const deepArray = (n: number) => `@@DEEPARRAY:${n}@@`;
const deepObject = (n: number) => `@@DEEPOBJECT:${n}@@`;
const TOKEN = /"@@(RAW|DEEPARRAY|DEEPOBJECT):([^@]*)@@"/g;

export function serialize(value: unknown): string {
  return (JSON.stringify(value) ?? "null").replace(TOKEN, (_m, kind: string, arg: string) => {
    if (kind === "RAW") return arg;
    const n = Number(arg);
    return kind === "DEEPARRAY" ? "[".repeat(n) + "]".repeat(n) : '{"a":'.repeat(n) + "1" + "}".repeat(n);
  });
}

const CARD_NUMBERS = ["4111111111111111", "4111 1111 1111 1111", "5555-5555-5555-4444", "4000000000000002"];
const LONE_SURROGATES = ["\ud800", "a\udfffb", "\udc00\ud800", "\ud83d", "x\ud83d"];

const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string().map((s) => `${s}\u0000${s}`),
  fc.constantFrom(...LONE_SURROGATES),
  fc.constantFrom("NaN", "Infinity", "-Infinity", "1e999", "0x10", " 10", "10 ", "-0", "١٢٣", "1,5", "1_000", "null", "undefined", "true", ""),
  fc.constantFrom(...CARD_NUMBERS),
  fc.constantFrom("'; drop table charges; --", "../../../etc/passwd", "<script>alert(1)</script>", "${jndi:ldap://x/a}", "%00", "\r\nX-Injected: 1", "ção ñ 漢字 😀", "\u202eevil", "a\u0301\u0301\u0301"),
  fc.integer({ min: 256, max: 200_000 }).map((n) => "a".repeat(n)),
  fc.integer({ min: 100, max: 50_000 }).map((n) => "ç😀".repeat(n)),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 20 }).map((cs) => String.fromCharCode(...cs)),
);

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 3, arbitrary: fc.constantFrom<unknown>(null, [], {}, true, false, 0, -1, 1.5, -0, 2 ** 53 + 2, -(2 ** 53) - 2, 1e308, -1e308, Number.MIN_VALUE, 0.1 + 0.2, 1.005, 12.345) },
  { weight: 2, arbitrary: fc.constantFrom("1e400", "-1e400", "1" + "0".repeat(400), "0." + "0".repeat(400) + "1", "1E+2", "-0.0").map(raw) },
  { weight: 2, arbitrary: fc.constantFrom(33, 40, 1000, 100_000).chain((n) => fc.constantFrom(deepArray(n), deepObject(n))) },
  { weight: 1, arbitrary: fc.constantFrom(60, 5000).map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))) },
  { weight: 1, arbitrary: fc.integer({ min: 101, max: 100_000 }).map((n) => Array.from({ length: n }, () => 0)) },
  { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) },
);

const hostileKey = fc.oneof(
  fc.constantFrom("unknownField", "__proto__", "constructor", "prototype", "freight_amount", "a\u0000b", "\ud800", "", "k".repeat(300), "4111111111111111"),
  fc.string({ maxLength: 20 }),
);

type Path = (string | number)[];

/** Every place in a value (the root included), found without recursion. */
function placesIn(value: unknown): Path[] {
  const out: Path[] = [[]];
  const stack: [unknown, Path][] = [[value, []]];
  while (stack.length > 0 && out.length < 500) {
    const [v, path] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    for (const [k, child] of Object.entries(v)) {
      const p = [...path, Array.isArray(v) ? Number(k) : k];
      out.push(p);
      stack.push([child, p]);
    }
  }
  return out;
}

type Mutation =
  | { kind: "replace"; value: unknown }
  | { kind: "addField"; key: string; value: unknown }
  | { kind: "delete" }
  | { kind: "wrapInArray" };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 6, arbitrary: hostileValue.map((value) => ({ kind: "replace" as const, value })) },
  { weight: 2, arbitrary: fc.tuple(hostileKey, fc.oneof(hostileValue, fc.string())).map(([key, value]) => ({ kind: "addField" as const, key, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: "delete" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "wrapInArray" as const }) },
);

function describe(m: Mutation, path: Path): string {
  const at = path.length > 0 ? path.join(".") : "(root)";
  const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v.slice(0, 40)) + (v.length > 40 ? `...(${v.length})` : "") : JSON.stringify(v)?.slice(0, 60) ?? String(v));
  switch (m.kind) {
    case "replace": return `${at} = ${shown(m.value)}`;
    case "addField": return `${at} += ${JSON.stringify(m.key.slice(0, 40))}: ${shown(m.value)}`;
    case "delete": return `delete ${at}`;
    case "wrapInArray": return `${at} wrapped in []`;
  }
}

/** A deep copy with the mutation applied at `path`; the root itself may be replaced. */
export function mutate(value: unknown, path: Path, m: Mutation): unknown {
  const root = { v: structuredClone(value) as unknown };
  let parent: Record<string | number, unknown> = root;
  let key: string | number = "v";
  for (const step of path) {
    parent = parent[key] as Record<string | number, unknown>;
    key = step;
  }
  const target = parent[key];
  switch (m.kind) {
    case "replace": parent[key] = m.value; break;
    case "wrapInArray": parent[key] = [target]; break;
    case "delete":
      if (Array.isArray(parent)) parent.splice(Number(key), 1);
      else if (parent !== root) delete parent[key];
      else root.v = undefined;
      break;
    case "addField":
      if (target !== null && typeof target === "object" && !Array.isArray(target)) {
        // defineProperty: a "__proto__" key must become a field, not the prototype.
        Object.defineProperty(target, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
      } else parent[key] = { [m.key]: m.value };
      break;
  }
  return root.v;
}

const mutated = (base: fc.Arbitrary<unknown>) =>
  fc.tuple(base, fc.nat(), mutationArb).map(([value, pick, m]) => {
    const places = placesIn(value);
    const path = places[pick % places.length]!;
    return { body: mutate(value, path, m), mutation: describe(m, path) };
  });

// Bodies that are not a JSON document of the right kind, sent with various content types.
const rawBodies = fc.oneof(
  fc.constantFrom("{", '{"a":', "[", "nul", "\u0000", '{"a":1}garbage', "\ufeff{}", "", "null", "[]", "1", '"str"', "true", "{}", '{"amount":1,"amount":"x"}', "{'a':1}", '{"a":1,}'),
  fc.constant("x".repeat(1024 * 1024 + 10)),
);
const CONTENT_TYPES = ["text/plain", "application/xml", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/json; charset=utf-16", "application/json;;", "application/vnd.api+json", "APPLICATION/JSON", "application/json; charset=latin1", "*/*"];

interface Body { payload?: string; contentType?: string; mutation: string }

function bodyArb(op: Operation, ctx: FuzzContext): fc.Arbitrary<Body> {
  const examples = ctx.examples[op.id] ?? [];
  const generated = op.body ? fromSchema(op.body) : fc.constant({});
  const base = examples.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...examples) }, { weight: 1, arbitrary: generated }) : generated;
  const json = (value: unknown, mutation: string): Body => ({ payload: serialize(value), contentType: "application/json", mutation });
  return fc.oneof(
    { weight: 2, arbitrary: base.map((v) => json(v, "schema-valid body")) },
    { weight: 10, arbitrary: mutated(base).map(({ body, mutation }) => json(body, mutation)) },
    { weight: 1, arbitrary: rawBodies.map((p) => ({ payload: p, contentType: "application/json", mutation: `raw body ${JSON.stringify(p.slice(0, 30))}` })) },
    { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...CONTENT_TYPES)).map(([v, ct]) => ({ payload: serialize(v), contentType: ct, mutation: `content-type ${ct}` })) },
    { weight: 1, arbitrary: fc.constant({ mutation: "no body" }) },
  );
}

// ---- Path params, query strings and headers.

const hostileSegments = fc.oneof(
  fc.constantFrom(...CARD_NUMBERS).map(encodeURIComponent),
  fc.constantFrom("..%2F..%2Fetc%2Fpasswd", "%2e%2e", "..", "%00", "a%00b", "%", "%zz", "%ED%A0%80", "%F0%9F%98%80", "%C3%A7%C3%A3o", "%20", "null", "undefined", "-1", "ch_", "%E2%80%AE", "%FF"),
  fc.constantFrom(65, 101, 1000).map((n) => "x".repeat(n)),
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
);

function pathArb(op: Operation, ctx: FuzzContext): fc.Arbitrary<{ path: string; mutation?: string }> {
  if (op.pathParams.length === 0) return fc.constant({ path: op.path });
  const resource = op.path.split("/")[2] ?? "";
  const param = (name: string) => {
    const known = ctx.ids[name === "id" ? resource : name] ?? [];
    const hostile = hostileSegments.map((v) => ({ v, hostile: true }));
    if (known.length === 0) return hostile;
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known).map((v) => ({ v, hostile: false })) }, { weight: 2, arbitrary: hostile });
  };
  return fc.tuple(...op.pathParams.map(param)).map((values) => {
    let path = op.path;
    op.pathParams.forEach((name, i) => { path = path.replace(`{${name}}`, values[i]!.v); });
    const hostile = values.filter((v) => v.hostile).map((v) => v.v.slice(0, 40));
    return { path, mutation: hostile.length > 0 ? `path ${hostile.join(", ")}` : undefined };
  });
}

const hostileQueryValues = fc.oneof(
  hostileSegments,
  fc.constantFrom("-1", "0", "1e400", "NaN", "1.5", "101", "not-a-date", "2020-13-45T99:99:99Z", "%ED%A0%80", "a%00b", "x".repeat(5000)),
);

function queryArb(op: Operation): fc.Arbitrary<{ query: string; mutation?: string }> {
  const names = Object.keys(op.query);
  const valid = fc.record(Object.fromEntries(names.map((n) => [n, fromSchema(op.query[n]!, n).map((v) => encodeURIComponent(String(v)))])), { requiredKeys: [] });
  const toQuery = (r: Record<string, string | undefined>) =>
    Object.entries(r).filter(([, v]) => v !== undefined).map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join("&");
  const hostile = fc.tuple(valid, fc.constantFrom(...names, "unknown", "__proto__"), hostileQueryValues, fc.boolean())
    .map(([r, name, value, twice]) => ({
      query: `${toQuery(r)}&${encodeURIComponent(name)}=${value}${twice ? `&${encodeURIComponent(name)}=${value}` : ""}`,
      mutation: `query ${name}=${value.slice(0, 40)}${twice ? " (twice)" : ""}`,
    }));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant({ query: "" }) },
    { weight: 2, arbitrary: valid.map((r) => ({ query: toQuery(r) })) },
    { weight: 3, arbitrary: hostile },
  );
}

function authArb(op: Operation, ctx: FuzzContext): fc.Arbitrary<{ value?: string; mutation?: string }> {
  const basic = (user: string) => `Basic ${Buffer.from(`${user}:`).toString("base64")}`;
  const right = op.auth === "adminKey" ? ctx.keys.admin : ctx.keys.sandbox;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant({ value: basic(right) }) },
    {
      weight: 3,
      arbitrary: fc.constantFrom<[string | undefined, string]>(
        [basic(ctx.keys.production), "production key"], [basic(ctx.keys.other), "another merchant's key"], [undefined, "no auth"],
        [basic("4111111111111111"), "card number as key"], ["Bearer not.a.jwt", "bad bearer"], ["Basic %%%", "bad basic"],
        [`Basic ${"A".repeat(10_000)}`, "long basic"], [basic("sk_test_\u0000"), "NUL in key"], ["Digest x", "other scheme"],
        [basic(ctx.keys.sandbox).toLowerCase(), "lower-cased basic"],
      ).map(([value, mutation]) => ({ value, mutation: `auth: ${mutation}` })),
    },
  );
}

const idempotencyKeyArb: fc.Arbitrary<{ value?: string; mutation?: string }> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({}) },
  { weight: 2, arbitrary: fc.uuid().map((value) => ({ value })) },
  {
    weight: 2,
    arbitrary: fc.constantFrom("", " ", "k".repeat(256), "a\u0000b", "\ud800", "4111111111111111", "ção", "fixed-key-1", "fixed-key-1")
      .map((value) => ({ value, mutation: `Idempotency-Key ${JSON.stringify(value.slice(0, 30))}` })),
  },
);

const extraHeaderArb = fc.oneof(
  { weight: 6, arbitrary: fc.constant<{ name?: string; value?: string }>({}) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom("x-request-id", "accept", "x-forwarded-for", "user-agent", "accept-version"), fc.oneof(hostileString.map((s) => s.slice(0, 5000)), fc.constantFrom(...CARD_NUMBERS)))
      .map(([name, value]) => ({ name, value })),
  },
);

/** One hostile request for one of `ops`. */
export function hostileRequestArb(ops: Operation[], ctx: FuzzContext): fc.Arbitrary<HostileRequest> {
  return fc.constantFrom(...ops).chain((op) => {
    const hasBody = op.body !== undefined;
    const body: fc.Arbitrary<Body> = hasBody
      ? bodyArb(op, ctx)
      : fc.oneof({ weight: 5, arbitrary: fc.constant<Body>({ mutation: "" }) }, { weight: 1, arbitrary: rawBodies.map((p) => ({ payload: p, contentType: "application/json", mutation: "unexpected body" })) });
    return fc.record({ path: pathArb(op, ctx), query: queryArb(op), auth: authArb(op, ctx), key: idempotencyKeyArb, extra: extraHeaderArb, body })
      .map(({ path, query, auth, key, extra, body: b }) => {
        const headers: Record<string, string> = {};
        if (auth.value !== undefined) headers.authorization = auth.value;
        if (op.method === "POST" && key.value !== undefined) headers["idempotency-key"] = key.value;
        if (extra.name && extra.value !== undefined) headers[extra.name] = extra.value;
        if (b.contentType) headers["content-type"] = b.contentType;
        const mutation = [b.mutation, path.mutation, query.mutation, auth.mutation, key.mutation, extra.name && `${extra.name}: ${JSON.stringify(extra.value?.slice(0, 30))}`]
          .filter(Boolean).join("; ");
        return { op: op.id, mutation, method: op.method, url: query.query ? `${path.path}?${query.query}` : path.path, headers, payload: b.payload };
      });
  });
}
