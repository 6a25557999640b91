// A discriminator without `mapping` names each variant, by the OpenAPI rules, by its component's
// name: a generator (openapi-typescript, openapi-generator) then expects `type:
// "CreditCardPaymentMethod"` where the API takes `type: "credit_card"`. The validators cannot
// carry the mapping (Ajv refuses `discriminator.mapping`), so the document gets it here, read
// from each variant component's own `type` constant. The document is copied first: its schema
// objects may be the routes' own, which the validators compile on first use.

type Node = { [key: string]: unknown };
const isNode = (v: unknown): v is Node => typeof v === "object" && v !== null;

export function withDiscriminatorMappings<T extends object>(document: T): T {
  const copy = structuredClone(document);
  const schemas = isNode(copy) && isNode(copy.components) && isNode(copy.components.schemas) ? copy.components.schemas : {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (!isNode(node)) return;
    const { discriminator, oneOf } = node;
    if (isNode(discriminator) && typeof discriminator.propertyName === "string" && !discriminator.mapping && Array.isArray(oneOf)) {
      discriminator.mapping = mappingOf(oneOf, discriminator.propertyName, schemas);
    }
    Object.values(node).forEach(visit);
  };
  visit(copy);
  return copy;
}

function mappingOf(variants: unknown[], property: string, schemas: Node): Record<string, string> {
  const mapping: Record<string, string> = {};
  for (const variant of variants) {
    const ref = isNode(variant) && typeof variant.$ref === "string" ? variant.$ref : undefined;
    const target = ref?.startsWith("#/components/schemas/") ? schemas[ref.slice("#/components/schemas/".length)] : undefined;
    const tag = isNode(target) && isNode(target.properties) ? target.properties[property] : undefined;
    // The document states a constant as a one-value enum.
    const value = isNode(tag) ? (tag.const ?? (Array.isArray(tag.enum) && tag.enum.length === 1 ? tag.enum[0] : undefined)) : undefined;
    if (!ref || typeof value !== "string") {
      throw new Error(`a discriminated variant (${ref ?? "inline"}) must be a component whose ${property} is a constant`);
    }
    mapping[value] = ref;
  }
  return mapping;
}
