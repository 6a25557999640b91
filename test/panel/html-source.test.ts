import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "node:test";
import ts from "typescript";
import { attrs, html, raw, safeUrl } from "../../src/web/html.js";

// The server-rendered pages (the panel and the hosted checkout) build HTML only through the
// escaping template of src/web/html.ts: no esc() to forget, no string or untagged template with
// markup in it, and raw() only where the test below names it. A page added with markup built any
// other way fails here before it reaches review.

const WEB = new URL("../../src/web/", import.meta.url).pathname;
const TAG = /<\/?[a-z][a-z0-9]*(?:[\s/>]|$)|<!doctype/i;
/** The only places that may mark text as HTML: the QR code's SVG, drawn by the qrcode library. */
const RAW_ALLOWED = ["panel/ui.ts"]; // qrFigure, for payment links and Pix Automático mandates

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "assets" ? [] : sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

interface Finding { file: string; line: number; what: string }

function findings(file: string): Finding[] {
  const text = readFileSync(file, "utf8");
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const out: Finding[] = [];
  const at = (node: ts.Node, what: string) => out.push({ file: relative(WEB, file), line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
  const isHtmlTag = (node: ts.Node) => ts.isTaggedTemplateExpression(node.parent) && node.parent.tag.getText() === "html";
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression.getText();
      if (callee === "esc") at(node, "esc() call: the template escapes");
      if (callee === "raw" && !RAW_ALLOWED.includes(relative(WEB, file))) at(node, "raw() outside the places this test allows");
    }
    if ((ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateExpression(node)) && !isHtmlTag(node) && TAG.test(node.getText())) {
      at(node, "markup in a template literal not tagged html");
    }
    if (ts.isStringLiteral(node) && TAG.test(node.text)) at(node, "markup in a string literal");
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

test("every page of src/web builds its HTML through the html template", () => {
  const files = sources(WEB);
  assert.ok(files.some((f) => f.includes("/panel/pages/")), "the panel's pages are under src/web/panel/pages");
  const found = files.flatMap(findings).filter((f) => !f.file.endsWith("html.ts"));
  assert.deepEqual(found.map((f) => `${f.file}:${f.line} ${f.what}`), []);
});

test("the template escapes every value, quotes included, and renders nothing for null, undefined and false", () => {
  const evil = `"><img src=x onerror=alert(1)>'<script>`;
  assert.equal(String(html`<p title="${evil}">${evil}</p>`), `<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&lt;script&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&lt;script&gt;</p>`);
  assert.equal(String(html`<p>${null}${undefined}${false}${0}${[html`<b>${"<i>"}</b>`, "&"]}${raw("<hr>")}</p>`), "<p>0<b>&lt;i&gt;</b>&amp;<hr></p>");
  assert.equal(String(attrs({ inputmode: "decimal", required: true, hidden: false, title: '"x"' })), ` inputmode="decimal" required title="&quot;x&quot;"`);
  assert.throws(() => attrs({ onclick: "x" }), /not an attribute name/);
  assert.equal(String(attrs({ href: "javascript:alert(1)" })), ` href="about:invalid"`);
});

test("a URL from data cannot run script: only http(s), mailto and this site's paths start an href", () => {
  for (const bad of ["javascript:alert(1)", " javascript:alert(1)", "JaVaScRiPt:x", "data:text/html,<script>", "vbscript:x", "//evil.example", "/\\evil.example"]) {
    assert.equal(safeUrl(bad), "about:invalid", bad);
    assert.equal(String(html`<a href="${bad}">x</a>`), `<a href="about:invalid">x</a>`, bad);
  }
  for (const good of ["https://loja.example/p?a=1", "http://127.0.0.1:3000/pay/pl_1", "mailto:a@b.example", "/panel/charges", "?page=2", "#main"]) assert.equal(safeUrl(good), good);
  // A value inside a path the template starts is only escaped: the scheme is the template's.
  assert.equal(String(html`<a href="/panel/charges/${"javascript:x"}">x</a>`), `<a href="/panel/charges/javascript:x">x</a>`);
});

test("data in an unquoted attribute or an event handler is refused where the template is written", () => {
  assert.throws(() => html`<a href=${"/x"}>x</a>`, /unquoted attribute/);
  assert.throws(() => html`<button onclick="go('${"x"}')">x</button>`, /event handler/);
  assert.equal(String(html`<p>a = ${"b"}</p>`), "<p>a = b</p>");
});
