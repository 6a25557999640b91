// feira hosted checkout: freight quote after the CEP, payment through feira's own endpoint on
// this origin, and the Pix/boleto poll until paid. No third-party code; no inline script (CSP).
(function () {
  "use strict";
  var root = document.getElementById("checkout");
  var form = document.getElementById("checkout-form");
  if (!root || !form) return;

  var linkId = root.dataset.linkId;
  var currency = root.dataset.currency;
  var mode = root.dataset.freightMode;
  var subtotal = Number(root.dataset.subtotal);
  var freight = Number(root.dataset.freight);
  var successUrl = root.dataset.successUrl;
  var chosenService = null;
  var quoteSeq = 0;
  var api = "/v1/payment-links/" + encodeURIComponent(linkId);
  var fmt = new Intl.NumberFormat("pt-BR", { style: "currency", currency: currency });
  // Minor units over the currency's own decimals (JPY has none: 1500 is ¥1.500, not ¥15).
  var decimals = fmt.resolvedOptions().maximumFractionDigits;
  var money = function (minor) { return fmt.format(minor / Math.pow(10, decimals)); };
  var $ = function (id) { return document.getElementById(id); };
  var digits = function (s) { return String(s || "").replace(/\D/g, ""); };
  // One key per attempt: a retry of the same attempt never pays twice; a new attempt (after a
  // refusal) gets a new key.
  var newKey = function () { return (crypto.randomUUID ? crypto.randomUUID() : String(Date.now()) + Math.random()); };
  var idempotencyKey = newKey();

  function total() { return subtotal + freight; }

  function renderTotals() {
    if (mode === "checkout") $("freight-amount").textContent = chosenService === null ? "Informe o CEP" : money(freight);
    $("total-amount").textContent = money(total());
    renderInstallments();
  }

  // The plans come from the server's price table (the merchant's interest-free installments and
  // rate) for what the buyer pays now: each shows its installment and, with interest, its total.
  var plansSeq = 0;
  function renderInstallments() {
    var select = $("installments");
    var keep = select.value || "1";
    var amount = total();
    var seq = ++plansSeq;
    fillInstallments(select, [{ installments: 1, installmentAmount: amount / Math.pow(10, decimals), totalAmount: amount / Math.pow(10, decimals), interestFree: true }], keep);
    fetch(api + "/installments?amount=" + encodeURIComponent(String(amount / Math.pow(10, decimals))), { headers: { accept: "application/json" } })
      .then(function (res) { return res.ok ? res.json() : null; })
      .then(function (body) { if (body && seq === plansSeq) fillInstallments(select, body.data, keep); })
      .catch(function () { /* à vista stays offered */ });
  }

  function fillInstallments(select, plans, keep) {
    var units = function (v) { return money(Math.round(v * Math.pow(10, decimals))); };
    select.textContent = "";
    plans.forEach(function (p) {
      var n = p.installments;
      if (n > 1 && p.installmentAmount * Math.pow(10, decimals) < 500) return; // parcelas de ao menos R$ 5,00
      var opt = document.createElement("option");
      opt.value = String(n);
      opt.textContent = n === 1 ? "À vista: " + units(p.totalAmount)
        : p.interestFree ? n + "x de " + units(p.installmentAmount) + " sem juros (total " + units(p.totalAmount) + ")"
        : n + "x de " + units(p.installmentAmount) + " com juros (total " + units(p.totalAmount) + ")";
      select.appendChild(opt);
    });
    select.value = select.querySelector('option[value="' + keep + '"]') ? keep : "1";
  }

  function setError(id, message) {
    var input = $(id);
    var out = $(id + "-error");
    if (out) out.textContent = message || "";
    if (input) {
      if (message) input.setAttribute("aria-invalid", "true");
      else input.removeAttribute("aria-invalid");
    }
    return !message;
  }

  function validCpf(raw) {
    var cpf = digits(raw);
    if (cpf.length !== 11 || /^(\d)\1{10}$/.test(cpf)) return false;
    for (var t = 9; t < 11; t++) {
      var sum = 0;
      for (var i = 0; i < t; i++) sum += Number(cpf[i]) * (t + 1 - i);
      var dv = ((sum * 10) % 11) % 10;
      if (dv !== Number(cpf[t])) return false;
    }
    return true;
  }

  function request(method, url, body, headers) {
    var init = { method: method, headers: Object.assign({ accept: "application/json" }, headers || {}), credentials: "omit" };
    if (body !== undefined) {
      init.headers["content-type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    return fetch(url, init).then(function (res) {
      return res.json().catch(function () { return {}; }).then(function (data) { return { status: res.status, data: data }; });
    });
  }

  // ---- Freight

  function quote() {
    if (mode !== "checkout") return;
    var cep = digits($("postalCode").value);
    var status = $("freight-status");
    var list = $("freight-options");
    chosenService = null;
    freight = 0;
    renderTotals();
    list.textContent = "";
    if (cep.length !== 8) {
      status.textContent = "Informe o CEP para ver as opções de frete.";
      return;
    }
    var seq = ++quoteSeq;
    status.textContent = "Calculando o frete…";
    request("POST", api + "/freight/quote", { postalCode: cep }).then(function (r) {
      if (seq !== quoteSeq) return;
      if (r.status !== 200) {
        status.textContent = r.data && r.data.message ? "Não foi possível calcular o frete: " + r.data.message : "Não foi possível calcular o frete agora. Tente de novo.";
        return;
      }
      var options = r.data.options || [];
      if (options.length === 0) {
        status.textContent = "Nenhuma opção de entrega para este CEP.";
        return;
      }
      status.textContent = options.length + (options.length === 1 ? " opção de frete encontrada." : " opções de frete encontradas.");
      options.forEach(function (o, i) {
        var label = document.createElement("label");
        label.className = "option";
        var input = document.createElement("input");
        input.type = "radio";
        input.name = "freightServiceId";
        input.value = String(o.serviceId);
        input.dataset.cents = String(Math.round(o.price * 100));
        var text = document.createElement("span");
        var days = o.deliveryTime ? " · " + o.deliveryTime + (o.deliveryTime === 1 ? " dia útil" : " dias úteis") : "";
        text.textContent = o.name + " (" + o.company + ")" + days;
        var price = document.createElement("strong");
        price.textContent = money(Math.round(o.price * 100));
        label.appendChild(input);
        label.appendChild(text);
        label.appendChild(price);
        list.appendChild(label);
        if (i === 0) input.setAttribute("aria-describedby", "freight-error");
      });
    }, function () {
      if (seq === quoteSeq) status.textContent = "Sem conexão. Verifique a internet e tente de novo.";
    });
  }

  if (mode === "checkout") {
    $("postalCode").addEventListener("input", function () {
      var d = digits(this.value);
      if (d.length === 8) quote();
    });
    $("postalCode").addEventListener("change", quote);
    $("freight-options").addEventListener("change", function (e) {
      var t = e.target;
      if (t && t.name === "freightServiceId") {
        chosenService = Number(t.value);
        freight = Number(t.dataset.cents);
        setError("freight", "");
        renderTotals();
      }
    });
  }

  // ---- Payment method

  function method() { return form.querySelector('input[name="method"]:checked').value; }
  form.addEventListener("change", function (e) {
    if (e.target && e.target.name === "method") {
      $("card-fields").hidden = method() !== "credit_card";
      // The reassurance about card data is about cards only.
      $("card-note").hidden = method() !== "credit_card";
    }
  });

  // The message of one field ("" when it is fine). Used on submit for every field, and while
  // typing for a field that shows an error, so the error clears as soon as the field is fixed.
  var REQUIRED = { name: "Nome é obrigatório.", street: "Rua é obrigatória.", number: "Número é obrigatório.", city: "Cidade é obrigatória.", holderName: "Nome impresso no cartão é obrigatório." };
  function fieldMessage(id) {
    var el = $(id);
    if (!el) return "";
    var v = el.value.trim();
    switch (id) {
      case "email": return !v ? "E-mail é obrigatório." : /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(v) ? "" : "E-mail inválido.";
      case "cpf": return validCpf(el.value) ? "" : "CPF inválido: confira os números.";
      case "postalCode": return digits(el.value).length === 8 ? "" : "CEP inválido: use 00000-000.";
      case "state": return el.value ? "" : "Estado é obrigatório.";
      case "cardNumber": return digits(el.value).length >= 13 ? "" : "Número do cartão inválido.";
      case "expiry": return /^\s*(0[1-9]|1[0-2])\s*\/\s*(\d{4}|\d{2})\s*$/.test(el.value) ? "" : "Validade inválida: use MM/AAAA.";
      case "cvv": return /^\d{3,4}$/.test(v) ? "" : "CVV inválido.";
      default: return REQUIRED[id] && !v ? REQUIRED[id] : "";
    }
  }
  form.addEventListener("input", function (e) {
    var el = e.target;
    if (el && el.id && el.getAttribute("aria-invalid") === "true") setError(el.id, fieldMessage(el.id));
  });
  form.addEventListener("change", function (e) {
    var el = e.target;
    if (el && el.id && el.getAttribute("aria-invalid") === "true") setError(el.id, fieldMessage(el.id));
  });

  function validate() {
    var ok = true;
    var check = function (id) { if ($(id)) ok = setError(id, fieldMessage(id)) && ok; };
    ["name", "email", "cpf"].forEach(check);
    if ($("postalCode")) ["postalCode", "street", "number", "city", "state"].forEach(check);
    if (mode === "checkout" && chosenService === null) {
      $("freight-error").textContent = "Escolha uma opção de frete.";
      ok = false;
    }
    if (method() === "credit_card") ["cardNumber", "holderName", "expiry", "cvv"].forEach(check);
    return ok;
  }

  function body() {
    var b = {
      customer: { name: $("name").value.trim(), email: $("email").value.trim(), document: { type: "cpf", id: digits($("cpf").value) } },
    };
    if ($("postalCode")) {
      b.shippingAddress = {
        postalCode: digits($("postalCode").value), street: $("street").value.trim(), number: $("number").value.trim(),
        city: $("city").value.trim(), state: $("state").value, country: "BR",
      };
      if ($("complement").value.trim()) b.shippingAddress.complement = $("complement").value.trim();
      if ($("neighborhood").value.trim()) b.shippingAddress.neighborhood = $("neighborhood").value.trim();
    }
    if (mode === "checkout") b.freightServiceId = chosenService;
    var m = method();
    if (m === "credit_card") {
      var exp = $("expiry").value.split("/");
      var year = exp[1].trim();
      b.paymentMethod = {
        type: "credit_card", number: digits($("cardNumber").value), holderName: $("holderName").value.trim(),
        expirationMonth: exp[0].trim(), expirationYear: year.length === 2 ? "20" + year : year, cvv: $("cvv").value.trim(),
      };
      b.installments = Number($("installments").value || "1");
    } else {
      b.paymentMethod = { type: m };
    }
    return b;
  }

  function showPanel(id) {
    form.hidden = true;
    ["pix-panel", "boleto-panel", "receipt"].forEach(function (p) { $(p).hidden = p !== id; });
    var heading = $(id).querySelector("h2");
    if (heading) heading.focus();
  }

  function paid(charge) {
    if (successUrl) {
      window.location.assign(successUrl);
      return;
    }
    $("receipt-text").textContent = "Recebemos seu pagamento de " + money(Math.round(charge.amount * 100)) + ". Obrigado!";
    $("receipt-id").textContent = charge.id;
    showPanel("receipt");
  }

  function poll(charge, statusId) {
    var delay = 2000;
    var tick = function () {
      request("GET", api + "/charges/" + encodeURIComponent(charge.id) + "/status").then(function (r) {
        if (r.status === 200 && r.data.paid) return paid(charge);
        if (r.status === 200 && (r.data.status === "failed" || r.data.status === "refused")) {
          $(statusId).textContent = "O prazo deste pagamento terminou. Recarregue a página para gerar outro.";
          return;
        }
        setTimeout(tick, delay);
      }, function () { setTimeout(tick, delay * 2); });
    };
    setTimeout(tick, 1000);
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    $("form-error").textContent = "";
    if (!validate()) {
      $("form-error").textContent = "Confira os campos destacados.";
      var first = form.querySelector('[aria-invalid="true"]');
      if (first) first.focus();
      return;
    }
    var button = $("pay-button");
    button.disabled = true;
    button.textContent = "Processando…";
    request("POST", api + "/charge", body(), { "idempotency-key": idempotencyKey }).then(function (r) {
      button.disabled = false;
      button.textContent = "Pagar";
      if (r.status !== 201) {
        if (r.status >= 400 && r.status < 500) idempotencyKey = newKey();
        $("form-error").textContent = r.data && r.data.message && r.status < 500 ? r.data.message : "Não foi possível concluir o pagamento agora. Tente de novo em instantes.";
        return;
      }
      var c = r.data;
      idempotencyKey = newKey();
      var d = c.paymentDetails || {};
      if (c.status === "paid") return paid(c);
      if (c.status === "pending" && d.qrCode) {
        if (d.qrCodeImage && /^data:image\/png;base64,/.test(d.qrCodeImage)) $("pix-qr").src = d.qrCodeImage;
        $("pix-code").value = d.qrCode;
        showPanel("pix-panel");
        return poll(c, "pix-status");
      }
      if (c.status === "pending" && d.digitableLine) {
        $("boleto-line").value = d.digitableLine;
        showPanel("boleto-panel");
        return poll(c, "boleto-status");
      }
      $("form-error").textContent = c.status === "refused"
        ? "Pagamento recusado pelo emissor do cartão. Confira os dados ou use outro cartão."
        : "Não foi possível aprovar o pagamento (" + c.status + "). Tente outra forma de pagamento.";
    }, function () {
      button.disabled = false;
      button.textContent = "Pagar";
      $("form-error").textContent = "Sem conexão. Verifique a internet e tente de novo.";
    });
  });

  $("copy-pix").addEventListener("click", function () {
    var code = $("pix-code");
    code.select();
    if (navigator.clipboard) navigator.clipboard.writeText(code.value).catch(function () {});
    $("pix-status").textContent = "Código copiado. Aguardando o pagamento…";
  });

  renderTotals();
})();
