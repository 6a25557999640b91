import { headerText } from "../../lib/email-address.js";
import { html, type Html } from "../../web/html.js";

// The e-mails' words, in Portuguese and English, rendered once when an e-mail is queued. Every
// value a merchant or buyer typed (the store's name, the buyer's name, the description) reaches
// the HTML only through `html`, which escapes it, and the subject only through headerText,
// which leaves no CR or LF: no typed text can add a header or markup.

export const MAIL_KINDS = ["receipt", "payment_instructions", "reminder", "overdue", "refund", "renewal_failed"] as const;
export type MailKind = (typeof MAIL_KINDS)[number];
export type MailLanguage = "pt-BR" | "en";

export interface MailView {
  merchantName: string;
  buyerName: string;
  amount: string;
  /** The boleto's digitable line or the Pix copy-and-paste code, when the charge has one. */
  howToPay: { boletoLine?: string; pixCode?: string; dueDate?: string };
  /** The buyer's page of the charge (/r/{token}); null until the charge has one. */
  pageUrl: string | null;
}

interface Words { subject: string; lead: string }
type Book = Record<MailKind, (v: MailView) => Words>;

const PT: Book = {
  receipt: (v) => ({ subject: `Recibo do seu pagamento a ${v.merchantName}`, lead: `Recebemos seu pagamento de ${v.amount}. Obrigado!` }),
  payment_instructions: (v) => ({ subject: `Como pagar sua cobrança de ${v.merchantName}`, lead: `Sua cobrança de ${v.amount} está pronta para pagamento.` }),
  reminder: (v) => ({ subject: `Lembrete: sua cobrança de ${v.merchantName} vence em breve`, lead: `Sua cobrança de ${v.amount} vence em ${v.howToPay.dueDate ?? "breve"}.` }),
  overdue: (v) => ({ subject: `Sua cobrança de ${v.merchantName} está vencida`, lead: `Sua cobrança de ${v.amount} venceu e ainda pode ser paga.` }),
  refund: (v) => ({ subject: `Reembolso de ${v.merchantName}`, lead: `Seu reembolso de ${v.amount} foi feito.` }),
  renewal_failed: (v) => ({ subject: `Não conseguimos cobrar sua assinatura de ${v.merchantName}`, lead: `A cobrança de ${v.amount} da sua assinatura não foi aprovada.` }),
};

const EN: Book = {
  receipt: (v) => ({ subject: `Receipt for your payment to ${v.merchantName}`, lead: `We received your payment of ${v.amount}. Thank you!` }),
  payment_instructions: (v) => ({ subject: `How to pay your ${v.merchantName} bill`, lead: `Your bill of ${v.amount} is ready to be paid.` }),
  reminder: (v) => ({ subject: `Reminder: your ${v.merchantName} bill is due soon`, lead: `Your bill of ${v.amount} is due on ${v.howToPay.dueDate ?? "soon"}.` }),
  overdue: (v) => ({ subject: `Your ${v.merchantName} bill is overdue`, lead: `Your bill of ${v.amount} is past its due date and can still be paid.` }),
  refund: (v) => ({ subject: `Refund from ${v.merchantName}`, lead: `Your refund of ${v.amount} was made.` }),
  renewal_failed: (v) => ({ subject: `We could not charge your ${v.merchantName} subscription`, lead: `The ${v.amount} charge of your subscription was not approved.` }),
};

const LABELS = {
  "pt-BR": { hello: "Olá", boleto: "Linha digitável do boleto", pix: "Pix copia e cola", due: "Vencimento", page: "Ver a cobrança", sent: "Enviado em nome de" },
  en: { hello: "Hello", boleto: "Boleto line", pix: "Pix copy and paste code", due: "Due date", page: "See the bill", sent: "Sent on behalf of" },
} as const;

export interface RenderedMail { subject: string; text: string; html: string }

export function renderMail(kind: MailKind, language: MailLanguage, v: MailView): RenderedMail {
  const words = (language === "en" ? EN : PT)[kind](v);
  const l = LABELS[language];
  const showPay = kind === "payment_instructions" || kind === "reminder" || kind === "overdue";
  const lines: [string, string][] = showPay
    ? [
        ...(v.howToPay.dueDate ? [[l.due, v.howToPay.dueDate] as [string, string]] : []),
        ...(v.howToPay.boletoLine ? [[l.boleto, v.howToPay.boletoLine] as [string, string]] : []),
        ...(v.howToPay.pixCode ? [[l.pix, v.howToPay.pixCode] as [string, string]] : []),
      ]
    : [];
  const text = [
    `${l.hello}, ${v.buyerName}`, "", words.lead, "",
    ...lines.map(([k, value]) => `${k}: ${value}`),
    ...(v.pageUrl ? [`${l.page}: ${v.pageUrl}`] : []),
    "", `${l.sent} ${v.merchantName}`,
  ].join("\n");
  const rows: Html[] = lines.map(([k, value]) => html`<p><strong>${k}</strong><br><code>${value}</code></p>`);
  const body = html`<!doctype html><html lang="${language}"><body>
<p>${l.hello}, ${v.buyerName}</p>
<p>${words.lead}</p>
${rows}
${v.pageUrl ? html`<p><a href="${v.pageUrl}">${l.page}</a></p>` : html``}
<p>${l.sent} ${v.merchantName}</p>
</body></html>`;
  return { subject: headerText(words.subject, 200), text, html: body.toString() };
}
