// A frame's caption, written into the page: its heading, its text with each term linked to its
// entry, and the list of the terms it uses (each once, in the order they first appear). One
// script for both pages that draw a run: the web page export (page.js) and the lesson on the web
// (lesson_web/player.js).
"use strict";
const ExplainerCaption = {
  /** ``frame``: {heading, caption: [[piece, term or null], ...]}; ``definitions``: term -> its
   * words; ``heading``, ``text``, ``terms``: the elements written (``terms`` a <dl>). */
  show(frame, definitions, heading, text, terms) {
    heading.textContent = frame.heading;
    text.replaceChildren();
    terms.replaceChildren();
    const listed = new Set();
    for (const [piece, term] of frame.caption) {
      if (!term || !(term in definitions)) {
        text.append(piece);
        continue;
      }
      const id = "term-" + term.toLowerCase().replace(/[^a-z0-9]+/g, "-");
      const a = document.createElement("a");
      a.href = "#" + id;
      a.textContent = piece;
      a.title = definitions[term];
      text.append(a);
      if (listed.has(term)) continue;
      listed.add(term);
      const dt = document.createElement("dt");
      dt.id = id;
      dt.textContent = term;
      const dd = document.createElement("dd");
      dd.textContent = definitions[term];
      terms.append(dt, dd);
    }
    terms.hidden = listed.size === 0;
  },
};
