import type { Page } from "playwright-core";

// What a reader of a table cell sees broken: a word or a number (an amount, an id, a date) whose
// characters fall on more than one line. Each token between spaces (a no-break space, as in
// "R$ 70,00", keeps its amount one token) is measured with a Range: its boxes must all be on
// one line.
export function brokenWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const broken: string[] = [];
    for (const cell of document.querySelectorAll("td")) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const token of (node.textContent ?? "").matchAll(/[^ \t\n\r\f]+/g)) {
          const range = document.createRange();
          range.setStart(node, token.index);
          range.setEnd(node, token.index + token[0].length);
          const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(token[0]);
        }
      }
    }
    return broken;
  });
}
