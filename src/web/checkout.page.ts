import { attrs, html } from "./html.js";
import { brl, page } from "./page.js";

// The hosted checkout (GET /pay/{id}): server-rendered, in Portuguese, with a small same-origin
// script (assets/checkout.js) for the freight quote, the payment and the Pix poll. Prices are
// rendered here from the link; the server computes the amount again when the buyer pays.

export interface CheckoutView {
  id: string;
  livemode: boolean;
  title: string;
  description: string | null;
  currency: string;
  freightMode: "checkout" | "fixed" | "pickup" | "free";
  fixedFreightMinor: number | null;
  products: { title: string; unitPriceMinor: number; quantity: number; physical: boolean }[];
  merchantName: string;
  successUrl: string | null;
}

const UFS = "AC AL AP AM BA CE DF ES GO MA MT MS MG PA PB PR PE PI RJ RN RS RO RR SC SP SE TO".split(" ");

const field = (id: string, label: string, extra: Record<string, string | boolean>, hint = "") => html`
      <div class="field">
        <label for="${id}">${label}</label>
        <input id="${id}" name="${id}"${attrs(extra)} aria-describedby="${id}-error${hint ? ` ${id}-hint` : ""}">
        ${hint ? html`<p class="hint" id="${id}-hint">${hint}</p>` : ""}
        <p class="error" id="${id}-error"></p>
      </div>`;

export function renderCheckout(v: CheckoutView): string {
  const money = (minor: number) => brl(minor, v.currency);
  const subtotal = v.products.reduce((s, p) => s + p.unitPriceMinor * p.quantity, 0);
  const ships = v.freightMode !== "pickup" && v.products.some((p) => p.physical);
  const freightLabel = { checkout: "Informe o CEP", fixed: money(v.fixedFreightMinor ?? 0), pickup: "Retirada", free: "Grátis" }[v.freightMode];
  const initialFreight = v.freightMode === "fixed" ? v.fixedFreightMinor ?? 0 : 0;

  const body = html`
<main class="checkout" id="checkout"
  data-link-id="${v.id}" data-currency="${v.currency}" data-freight-mode="${v.freightMode}"
  data-subtotal="${subtotal}" data-freight="${initialFreight}" data-success-url="${v.successUrl ?? ""}">
  <header class="top">
    <p class="merchant">${v.merchantName}</p>
    ${v.livemode ? "" : html`<p class="badge">Ambiente de testes: nenhum valor é cobrado de verdade</p>`}
    <h1>${v.title}</h1>
    ${v.description ? html`<p class="description">${v.description}</p>` : ""}
  </header>

  <section class="summary" aria-labelledby="summary-title">
    <h2 id="summary-title">Resumo do pedido</h2>
    <ul class="items">
      ${v.products.map((p) => html`<li><span>${p.title} <span class="qty">× ${p.quantity}</span></span><span>${money(p.unitPriceMinor * p.quantity)}</span></li>
      `)}
    </ul>
    <dl class="totals">
      <div><dt>Subtotal</dt><dd>${money(subtotal)}</dd></div>
      <div><dt>Frete</dt><dd id="freight-amount">${freightLabel}</dd></div>
      <div class="grand"><dt>Total</dt><dd id="total-amount">${money(subtotal + initialFreight)}</dd></div>
    </dl>
  </section>

  <form id="checkout-form" class="form" novalidate>
    <fieldset>
      <legend>Seus dados</legend>
      ${field("name", "Nome completo", { type: "text", autocomplete: "name", required: true, maxlength: "200" })}
      ${field("email", "E-mail", { type: "email", autocomplete: "email", required: true, maxlength: "254" })}
      ${field("cpf", "CPF", { type: "text", inputmode: "numeric", autocomplete: "off", required: true, maxlength: "14" }, "Somente números ou no formato 000.000.000-00")}
    </fieldset>

    ${ships ? html`<fieldset>
      <legend>Endereço de entrega</legend>
      ${field("postalCode", "CEP", { type: "text", inputmode: "numeric", autocomplete: "postal-code", required: true, maxlength: "9" }, "00000-000")}
      ${field("street", "Rua", { type: "text", autocomplete: "address-line1", required: true, maxlength: "200" })}
      <div class="row">
        ${field("number", "Número", { type: "text", required: true, maxlength: "20" })}
        ${field("complement", "Complemento (opcional)", { type: "text", autocomplete: "address-line2", maxlength: "200" })}
      </div>
      ${field("neighborhood", "Bairro", { type: "text", maxlength: "100" })}
      <div class="row">
        ${field("city", "Cidade", { type: "text", autocomplete: "address-level2", required: true, maxlength: "100" })}
        <div class="field">
          <label for="state">Estado</label>
          <select id="state" name="state" autocomplete="address-level1" required aria-describedby="state-error">
            <option value="">Selecione</option>
            ${UFS.map((uf) => html`<option value="${uf}">${uf}</option>`)}
          </select>
          <p class="error" id="state-error"></p>
        </div>
      </div>
    </fieldset>` : ""}

    ${v.freightMode === "checkout" ? html`<fieldset id="freight">
      <legend>Frete</legend>
      <p id="freight-status" class="status" role="status" aria-live="polite">Informe o CEP para ver as opções de frete.</p>
      <div id="freight-options"></div>
      <p class="error" id="freight-error"></p>
    </fieldset>` : ""}

    <fieldset>
      <legend>Forma de pagamento</legend>
      <div class="methods">
        <label class="method"><input type="radio" name="method" value="credit_card" checked> Cartão de crédito</label>
        <label class="method"><input type="radio" name="method" value="pix"> Pix</label>
        <label class="method"><input type="radio" name="method" value="boleto"> Boleto</label>
      </div>
      <div id="card-fields">
        ${field("cardNumber", "Número do cartão", { type: "text", inputmode: "numeric", autocomplete: "cc-number", maxlength: "23" })}
        ${field("holderName", "Nome impresso no cartão", { type: "text", autocomplete: "cc-name", maxlength: "100" })}
        <div class="row">
          ${field("expiry", "Validade (MM/AAAA)", { type: "text", inputmode: "numeric", autocomplete: "cc-exp", maxlength: "7", placeholder: "MM/AAAA" })}
          ${field("cvv", "CVV", { type: "text", inputmode: "numeric", autocomplete: "cc-csc", maxlength: "4" })}
        </div>
        <div class="field">
          <label for="installments">Parcelamento</label>
          <select id="installments" name="installments"></select>
        </div>
      </div>
    </fieldset>

    <p id="form-error" class="error form-error" role="alert"></p>
    <button type="submit" id="pay-button" class="pay">Pagar</button>
    <p class="secure" id="card-note">Pagamento processado por feira. Seus dados de cartão vão direto para o processador e não são guardados.</p>
  </form>

  <section id="pix-panel" class="panel" hidden aria-labelledby="pix-title">
    <h2 id="pix-title" tabindex="-1">Pague com Pix</h2>
    <p>Abra o app do seu banco, escolha Pix e leia o QR code ou use o código copia e cola.</p>
    <img id="pix-qr" alt="QR code do Pix" width="240" height="240">
    <label for="pix-code">Pix copia e cola</label>
    <textarea id="pix-code" readonly rows="4"></textarea>
    <button type="button" id="copy-pix" class="secondary">Copiar código</button>
    <p class="hint">O nome do recebedor pode aparecer diferente do nome da loja.</p>
    <p id="pix-status" class="status" role="status" aria-live="polite">Aguardando o pagamento…</p>
  </section>

  <section id="boleto-panel" class="panel" hidden aria-labelledby="boleto-title">
    <h2 id="boleto-title" tabindex="-1">Boleto gerado</h2>
    <label for="boleto-line">Linha digitável</label>
    <textarea id="boleto-line" readonly rows="3"></textarea>
    <p id="boleto-status" class="status" role="status" aria-live="polite">Aguardando o pagamento. A confirmação pode levar até 3 dias úteis.</p>
  </section>

  <section id="receipt" class="panel" hidden aria-labelledby="receipt-title">
    <h2 id="receipt-title" tabindex="-1">Pagamento confirmado</h2>
    <p id="receipt-text"></p>
    <p class="hint">Guarde o código do pagamento: <strong id="receipt-id"></strong></p>
  </section>
</main>`;
  return page({ title: `${v.title} · ${v.merchantName}`, body });
}

export function renderNotFound(): string {
  return page({
    title: "Link de pagamento indisponível",
    body: html`
<main class="checkout notfound">
  <h1>Link de pagamento indisponível</h1>
  <p>Este link não existe, foi desativado ou expirou. Fale com a loja que enviou o link para receber um novo.</p>
</main>`,
  });
}
