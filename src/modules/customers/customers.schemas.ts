import { Type } from "typebox";
import { ListOf, ListQuery } from "../../http/schemas.js";

export const DocumentType = Type.Union(
  [Type.Literal("cpf"), Type.Literal("cnpj"), Type.Literal("passport"), Type.Literal("rg")],
  { description: "cpf and cnpj are checked with their check digits." },
);

export const CreateCustomerBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, description: "Full name." }),
  email: Type.String({ format: "email", maxLength: 254 }),
  documentId: Type.String({ minLength: 1, maxLength: 30, description: "Document number, with or without punctuation." }),
  documentType: DocumentType,
  phoneNumber: Type.Optional(Type.String({ pattern: "^\\+?[0-9 ()-]{8,20}$", description: "Phone number, e.g. +5511912345678." })),
}, { additionalProperties: false, examples: [{ name: "Maria Silva", email: "maria@example.com", documentId: "529.982.247-25", documentType: "cpf", phoneNumber: "+5511912345678" }] });

const CUSTOMER_EXAMPLE = {
  id: "cus_01jd3k2m4n9z8y7x6w5v4t3s2r", name: "Maria Silva", email: "maria@example.com", documentType: "cpf", documentId: "52998224725",
  phoneNumber: "+5511912345678", createdAt: "2026-11-23T12:00:00.000Z", updatedAt: "2026-11-23T12:00:00.000Z",
};

export const Customer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.Union([Type.String(), Type.Null()]),
  documentType: Type.Union([Type.String(), Type.Null()]),
  documentId: Type.Union([Type.String(), Type.Null()]),
  phoneNumber: Type.Union([Type.String(), Type.Null()]),
  createdAt: Type.String({ format: "date-time" }),
  updatedAt: Type.String({ format: "date-time" }),
}, { examples: [CUSTOMER_EXAMPLE] });

export const UpdateCustomerBody = Type.Object({
  name: Type.Optional(CreateCustomerBody.properties.name),
  email: Type.Optional(CreateCustomerBody.properties.email),
  documentId: Type.Optional(CreateCustomerBody.properties.documentId),
  documentType: Type.Optional(DocumentType),
  phoneNumber: Type.Optional(Type.Union([CreateCustomerBody.properties.phoneNumber, Type.Null()], { description: "Phone number; null removes it." })),
}, {
  additionalProperties: false, minProperties: 1,
  description: "The fields to change, checked as on create; the others keep their values. A new documentId is checked with the stored documentType, a new documentType with the stored documentId.",
  examples: [{ email: "maria.silva@example.com", phoneNumber: "+5511987654321" }],
});

export const DeletedCustomer = Type.Object({
  id: Type.String(),
  deleted: Type.Literal(true),
}, { examples: [{ id: CUSTOMER_EXAMPLE.id, deleted: true }] });

export const ListCustomersQuery = Type.Object({
  ...ListQuery,
  email: Type.Optional(Type.String({ maxLength: 254, description: "Exact e-mail (case-insensitive)." })),
  documentId: Type.Optional(Type.String({ maxLength: 30, description: "Exact document number, digits only for CPF/CNPJ." })),
}, { additionalProperties: false });

export const CustomerList = ListOf(Customer, { data: [CUSTOMER_EXAMPLE], hasMore: false });
