// The quiz section: one question at a time, as the app's Quiz tab asks them. A choice is a set of
// radio buttons, a number a text box (read as rules.js reads it: "3,000", "~3k", "3.0e3"), a
// sorting a list of choices per item. Check gives the verdict rules.js gives (why a chosen option
// is wrong, the likely mistake behind a number, how many items are sorted right); a wrong answer
// can always be tried again, and "Show the answer" spends the try. The last, fun question waits
// until every other one is right, as the course ends a lesson on it.
"use strict";
const ExplainerQuiz = (() => {
  const el = (...args) => ExplainerSections.el(...args);

  function create(ctx) {
    const ui = ctx.words.lesson.ui;
    const quizWords = ctx.words.lesson.quiz;
    const questions = ctx.lesson.questions;
    const box = el("div");
    let at = 0;
    let verdicts = {}; // question id -> the last verdict shown (until another question is opened)
    const typed = {}; // question id -> what was typed or chosen, kept while moving between questions

    function given(q) {
      const form = box.querySelector("form");
      if (q.kind === "choice") {
        const c = form.querySelector("input:checked");
        return c ? Number(c.value) : null;
      }
      if (q.kind === "number") return form.querySelector("input").value;
      return Array.from(form.querySelectorAll("select"), (s) => s.value);
    }

    function answerUi(q, form, locked) {
      const keep = typed[q.id];
      if (q.kind === "choice") {
        const list = el("div", { class: "choices", role: "radiogroup", "aria-labelledby": "question-text" });
        q.options.forEach((o, i) => {
          list.append(el("label", {}, el("input", { type: "radio", name: "option", id: "option-" + i, value: i, disabled: locked,
            checked: keep === i, onchange: () => { typed[q.id] = i; } }), el("span", { text: o })));
        });
        form.append(list);
      } else if (q.kind === "number") {
        const input = el("input", { type: "text", id: "answer", inputmode: "decimal", autocomplete: "off",
          placeholder: ui.answer_placeholder, "aria-labelledby": "question-text", disabled: locked,
          oninput: (e) => { typed[q.id] = e.target.value; } });
        input.value = keep || "";
        form.append(el("div", { class: "match-row" }, input, q.unit ? el("span", { text: q.unit }) : null));
      } else {
        const flags = verdicts[q.id] ? verdicts[q.id].items_right : [];
        q.items.forEach((item, i) => {
          const id = "item-" + i;
          const select = el("select", { id, disabled: locked, onchange: () => { typed[q.id] = given(q); } },
            el("option", { value: "", text: "—" }), ...q.categories.map(([cid, label]) => el("option", { value: cid, text: label })));
          select.value = keep ? keep[i] || "" : "";
          const wrong = flags.length && !flags[i];
          form.append(el("div", { class: "match-row" + (wrong ? " wrong" : "") },
            el("label", { class: "item", for: id, text: wrong ? ctx.rules.fmt(ui.item_misplaced, { item }) : item }), select));
        });
      }
    }

    function update() {
      const state = ctx.state();
      const q = questions[at];
      const right = ctx.rules.quiz.isRight(state.quiz, q.id);
      const mark = right ? ui.question_right_mark : "";
      const waiting = at === questions.length - 1 ? ctx.rules.quiz.beforeClosing(state.quiz, questions) : 0;
      const form = el("form", { id: "question-form", onsubmit: (e) => { e.preventDefault(); checkIt(); } });
      const nav = el("div", { class: "buttons" },
        el("button", { type: "button", id: "question-prev", text: ui.question_prev, disabled: at === 0, onclick: () => open(at - 1) }),
        el("button", { type: "button", id: "question-next", text: ui.question_next, disabled: at === questions.length - 1, onclick: () => open(at + 1) }));
      const head = el("p", { class: "progress", id: "question-position",
        text: ctx.rules.fmt(ui.question_position, { n: at + 1, total: questions.length, mark }).trim() });
      const text = el("p", { id: "question-text", class: "question", tabindex: "-1", text: q.text });
      box.replaceChildren(head, nav, text);
      if (waiting) {
        box.append(el("p", { class: "hint", id: "closing-locked", text: ctx.rules.fmt(quizWords.closing_locked, { left: waiting }) }));
      }
      answerUi(q, form, Boolean(waiting) || !q.available);
      const v = verdicts[q.id];
      form.append(el("div", { class: "buttons" },
        el("button", { type: "submit", class: "primary", id: "check", text: ui.check, disabled: Boolean(waiting) || !q.available }),
        el("button", { type: "button", id: "show-answer", text: ui.show_answer, disabled: Boolean(waiting) || !q.available || right,
          onclick: () => reveal(q) })));
      box.append(form);
      const verdict = el("p", { class: "verdict" + (v && v.correct ? " right" : ""), id: "verdict", role: "status" });
      verdict.textContent = v ? v.message : "";
      box.append(verdict);
      if (v && (v.correct || v.revealed)) box.append(el("p", { id: "explanation", text: v.explanation }));
      box.append(el("p", { class: "score", id: "quiz-score", text: ctx.rules.quizText(ctx.lesson, ctx.words.lesson, state) }));
    }

    function checkIt() {
      const q = questions[at];
      const g = given(q);
      if (g === null || g === "" || (Array.isArray(g) && g.every((x) => x === ""))) {
        verdicts[q.id] = { correct: false, message: ui.answer_first, explanation: "", items_right: [], revealed: false };
        update();
        ctx.announce(ui.answer_first);
        return;
      }
      const v = ctx.rules.check(quizWords, ctx.reader, q, g);
      verdicts[q.id] = v;
      ctx.answer(q.id, v);
      ctx.announce(v.message);
      // (the question is drawn anew with its verdict: the focus goes on from where it was)
      const next = document.getElementById(v.correct && at < questions.length - 1 ? "question-next" : "check");
      if (next && !next.disabled) next.focus();
    }

    function reveal(q) {
      const v = ctx.rules.revealed(q);
      verdicts[q.id] = v;
      ctx.answer(q.id, v);
      ctx.announce(v.explanation);
    }

    function open(i, focus = true) {
      at = Math.max(0, Math.min(questions.length - 1, i));
      verdicts = Object.fromEntries(Object.entries(verdicts).filter(([id]) => id === questions[at].id));
      update();
      if (focus) document.getElementById("question-text").focus({ preventScroll: false });
    }

    return {
      id: "questions",
      label: ui.tab_questions,
      body: box,
      update,
      open(id, focus = true) {
        const i = questions.findIndex((q) => q.id === id);
        if (i >= 0) open(i, focus);
      },
    };
  }

  return { create };
})();
