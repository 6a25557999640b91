import { Ajv, type Options } from "ajv";
import addFormatsModule from "ajv-formats";
import type { FastifyInstance } from "fastify";

// Two validators. Bodies are validated strictly: a string "10" is not the number 10, and an
// unknown field is an error (Stripe's "unknown parameter"), not silently dropped, so a client
// cannot believe it set something we ignored (e.g. freight_amount). Query strings, params and
// headers arrive as text, so they are coerced to the schema's types.
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

function build(options: Options): Ajv {
  const ajv = new Ajv({ allErrors: false, useDefaults: true, removeAdditional: false, strict: false, ...options });
  addFormats(ajv);
  return ajv;
}

export function registerValidation(app: FastifyInstance): void {
  const strict = build({ coerceTypes: false });
  const coercing = build({ coerceTypes: "array" });
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === "body" ? strict : coercing).compile(schema) as never,
  );
}
