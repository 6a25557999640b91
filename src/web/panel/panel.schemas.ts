import { Type, type TSchema } from "typebox";
import { MAX_EVIDENCE_TEXT } from "../../modules/disputes/disputes.schemas.js";

// The schema of each panel form and list query: the fields it has and their shapes. A form is
// read through its schema (forms.ts readForm) before anything else happens; a field that fails it
// is shown again with its message, never a 500. What a value must be (a valid CNPJ, a price above
// zero) is decided afterwards by the API's own schema and the service, once, not here.

/** Text typed into a field; the bound only keeps a page from echoing megabytes back. */
const Text = (maxLength = 1000) => Type.Optional(Type.String({ maxLength }));
/** A password or secret: taken as typed, spaces included. */
const Secret = () => Type.Optional(Type.String({ maxLength: 1000, keepSpaces: true }));
/** One of a radio group's or a select's values. */
const Choice = <V extends string[]>(values: readonly [...V]) => Type.Optional(Type.Enum<V>(values));
/** A checkbox: "on" when ticked, absent otherwise. */
const Check = () => Choice(["on"]);
/** A group of checkboxes of one name. */
const Many = () => Type.Array(Type.String({ maxLength: 200 }), { maxItems: 200 });
/** Fields repeated per row (products.0.title, products.1.title...). */
const rows = (name: string, count: number, fields: Record<string, TSchema>) =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => Object.entries(fields).map(([f, s]) => [`${name}.${i}.${f}`, s])).flat());

const Cursor = { startingAfter: Text(200), endingBefore: Text(200) };

/** Forms with nothing but their CSRF token (one-button actions). */
export const NoFields = Type.Object({});

export const LoginForm = Type.Object({ email: Text(254), password: Type.Optional(Type.String({ maxLength: 200, keepSpaces: true })) });
export const LoginQuery = Type.Object({ next: Text(2000), bye: Text(10) });
export const EnvironmentForm = Type.Object({ environment: Choice(["sandbox", "production"]), back: Text(2000) });
export const LanguageForm = Type.Object({ lang: Choice(["en", "pt-BR"]), back: Text(2000) });
export const ConfirmForm = Type.Object({ confirm: Check() });

export const ChargesQuery = Type.Object({
  q: Text(254), status: Text(50), paymentMethod: Text(50), customerId: Text(100), from: Text(30), to: Text(30), ...Cursor,
});
export const RefundForm = Type.Object({ mode: Choice(["full", "partial"]), amount: Text(50), confirm: Check() });

export const CustomersQuery = Type.Object({ email: Text(254), documentId: Text(50), ...Cursor });
export const CursorQuery = Type.Object(Cursor);
export const ReturnQuery = Type.Object({ shipping: Text(50), reason: Text(50) });

export const SubmerchantsQuery = Type.Object({ status: Text(50), tradeName: Text(), legalName: Text(), companyTaxId: Text(50), createdAt: Text(30), page: Text(10) });
export const SubmerchantForm = Type.Object({
  tradeName: Text(), legalName: Text(), companyTaxId: Text(50), contactEmail: Text(254), website: Text(2000),
  productType: Choice(["physical", "digital", "both"]), productDescription: Text(5000), averageMonthlyRevenue: Text(50),
  averageOrderValue: Text(50), softDescriptor: Text(100), postbackUrl: Text(2000),
});
export const PayoutsQuery = Type.Object({ status: Text(50), merchantId: Text(100), createdAt: Text(30), page: Text(10) });
export const PayoutForm = Type.Object({ amount: Text(50), confirm: Check() });

export const EventsQuery = Type.Object({ type: Text(100), ...Cursor });
export const EndpointForm = Type.Object({ url: Text(2000), description: Text(), events: Many() });
export const EndpointActionForm = Type.Object({ eventId: Text(100) });

export const LINK_PRODUCT_ROWS = 3;
export const LinkForm = Type.Object({
  title: Text(), description: Text(5000), currency: Text(10), freightMode: Choice(["free", "fixed", "checkout", "pickup"]),
  fixedFreightAmount: Text(50), successUrl: Text(2000),
  ...rows("products", LINK_PRODUCT_ROWS, { title: Text(), unitPrice: Text(50), quantity: Text(50), physical: Check(), width: Text(50), height: Text(50), length: Text(50), weight: Text(50) }),
});

export const ProfileForm = Type.Object({ name: Text(), softDescriptor: Text(100), timezone: Text(100) });
export const SPLIT_ROWS = 5;
export const SplitForm = Type.Object(rows("defaultSplit", SPLIT_ROWS, { merchantId: Text(100), percentage: Text(50) }));

export const NotificationsForm = Type.Object({ receipts: Check(), daysBefore: Text(10), overdue: Check(), language: Choice(["pt-BR", "en"]) });

export const CredentialsForm = Type.Object({ clientId: Text(), clientSecret: Secret() });
export const ShippingSettingsForm = Type.Object({ originPostalCode: Text(20), enabledServices: Many() });

export const SubscriptionsQuery = Type.Object({ status: Text(50), search: Text(254), customerId: Text(100), page: Text(10), plansAfter: Text(200) });
export const PlanForm = Type.Object({
  name: Text(), description: Text(5000), price: Text(50), currency: Text(10), interval: Choice(["day", "week", "month", "year"]),
  intervalCount: Text(10), trialDays: Text(10),
});
export const SubscriptionActionForm = Type.Object({ when: Choice(["now", "period_end"]), confirm: Check() });

export const DisputesQuery = Type.Object({ status: Text(50), kind: Text(50), page: Text(10) });
export const EvidenceForm = Type.Object({ text: Type.Optional(Type.String({ maxLength: MAX_EVIDENCE_TEXT })) });
