// The lesson's sections, as the app's Lesson dock has them: Predict, What if?, Your turn, the
// quiz, the terms, Request, Sizes and "Lesson complete". Each is built once and redrawn from the
// learner's record and the frame on screen (lesson.js calls update); what the learner does is
// handed to lesson.js (ctx.apply), which applies the rules (rules.js) and saves the record.
// Every word comes from the lesson's data (assets/<language>/, through the export).
"use strict";
const ExplainerSections = (() => {
  function el(tag, props = {}, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(props)) {
      if (k === "class") e.className = v;
      else if (k === "text") e.textContent = v;
      else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (v !== null && v !== undefined && v !== false) e.setAttribute(k, v === true ? "" : v);
    }
    e.append(...children.filter((c) => c !== null && c !== undefined));
    return e;
  }

  // ---------------------------------------------------------------- Predict

  function predict(ctx) {
    const ui = ctx.words.lesson.ui;
    const box = el("div");
    function update() {
      const f = ctx.frame();
      const rnd = ctx.lesson.passes.rounds[f.step];
      const state = ctx.state();
      box.replaceChildren();
      const played = rnd ? state.plays[f.step] : undefined;
      if (rnd && played !== undefined) {
        const r = rnd.reveals[String(played)];
        box.append(el("p", { class: "verdict" + (r.correct ? " right" : ""), text: r.message }));
        const list = el("ul");
        for (const c of rnd.candidates.slice().sort((a, b) => a.rank - b.rank)) {
          const tags = [c.id === rnd.top ? ui.favourite : "", c.id === played ? ui.your_pick : ""].filter(Boolean);
          list.append(el("li", { text: ctx.rules.fmt(ctx.words.lesson.game.pick_was, { label: c.label, pct: c.pct })
            + (tags.length ? " (" + tags.join(", ") + ")" : "") }));
        }
        box.append(list, el("p", { text: rnd.explanation }));
      } else if (rnd && f.stage === "layers") {
        box.append(el("p", { class: "question", text: rnd.question }));
        const picks = el("div", { class: "picks" });
        for (const c of rnd.candidates) {
          picks.append(el("button", { type: "button", class: "pick", id: "pick-" + rnd.candidates.indexOf(c), "data-id": c.id, text: c.label,
            onclick: () => ctx.play(f.step, c.id, rnd.reveals[String(c.id)]) }));
        }
        box.append(picks);
      } else {
        box.append(el("p", { class: "hint", text: rnd || f.stage !== "layers" ? ui.predict_hint : ctx.words.lesson.game.no_candidates }));
      }
      box.append(el("p", { class: "score", text: ctx.rules.gameText(ctx.words.lesson, state.game) }));
    }
    return { id: "predict", label: ui.tab_predict, body: box, update, frame: true };
  }

  // ---------------------------------------------------------------- What if?

  function whatif(ctx) {
    const ui = ctx.words.lesson.ui;
    const box = el("div");
    const intro = el("p", { class: "hint", text: ui.whatif_intro });
    const status = el("p", { class: "verdict", role: "status" });
    const bars = el("ul", { class: "bars" });
    const legend = el("p", { class: "hint", text: ui.whatif_legend });
    const note = el("p", { class: "hint" });
    const sliders = {};
    let step = -1;
    let data = null; // {scores, labels} of the pass on screen
    const recorded = ctx.lesson.run.settings;
    const slider = (name, min, max, value) => {
      const input = el("input", { type: "range", id: "whatif-" + name, min, max, step: 1, value });
      const shown = el("span", { class: "value" });
      input.addEventListener("input", () => { redraw(); ctx.event({ kind: "whatif", name }); });
      sliders[name] = { input, shown };
      return el("div", { class: "slider" }, el("label", { for: "whatif-" + name }, el("span", { text: ui[name] }), shown), input);
    };
    const controls = el("div", {},
      slider("temperature", 0, 200, Math.min(200, Math.round(recorded.temperature * 100))),
      slider("top_k", 0, 100, Math.min(100, recorded.top_k)),
      slider("top_p", 5, 100, Math.max(5, Math.round(recorded.top_p * 100))),
      el("button", { type: "button", text: ui.whatif_reset, onclick: reset }));
    box.append(intro, controls, status, bars, legend, note);

    function settings() {
      return { temperature: Number(sliders.temperature.input.value) / 100, top_k: Number(sliders.top_k.input.value),
        top_p: Number(sliders.top_p.input.value) / 100 };
    }
    function reset() {
      sliders.temperature.input.value = Math.min(200, Math.round(recorded.temperature * 100));
      sliders.top_k.input.value = Math.min(100, recorded.top_k);
      sliders.top_p.input.value = Math.max(5, Math.round(recorded.top_p * 100));
      redraw();
    }
    function redraw() {
      const s = settings();
      const t = sliders.temperature, k = sliders.top_k, p = sliders.top_p;
      t.shown.textContent = s.temperature === 0 ? ui.value_greedy : ctx.rules.fixed(s.temperature, 2);
      k.shown.textContent = s.top_k === 0 ? ui.value_off : String(s.top_k);
      p.shown.textContent = s.top_p === 1 ? ui.value_off : ctx.rules.fixed(s.top_p, 2);
      for (const [name, v] of Object.entries(sliders)) v.input.setAttribute("aria-valuetext", v.shown.textContent);
      if (!data) return;
      const meta = ctx.lesson.passes.whatif[step];
      const w = ctx.rules.whatIf(ctx.words.lesson, meta, data.scores, data.labels, s);
      status.textContent = w.message;
      bars.replaceChildren();
      const now = w.greedy ? 1 : 3;
      for (const b of w.bars) {
        const raw = el("span", { class: "raw" });
        const after = el("span", { class: "now" });
        raw.style.width = (100 * b.probs[0]).toFixed(2) + "%";
        after.style.width = (100 * b.probs[now]).toFixed(2) + "%";
        const words = [ctx.rules.percent(b.probs[now]), b.cut_label, b.recorded ? "◆" : ""].filter(Boolean).join(" ");
        bars.append(el("li", { class: (b.landed ? "landed" : "") + (b.cut_by ? " cut" : "") },
          el("span", { text: b.label }), el("span", { class: "track" }, raw, after), el("span", { text: words })));
      }
    }
    async function update() {
      const f = ctx.frame();
      const meta = f.step < ctx.lesson.passes.whatif.length ? ctx.lesson.passes.whatif[f.step] : undefined;
      const here = f.stage === "sampling";
      controls.hidden = bars.hidden = legend.hidden = status.hidden = !here || !meta;
      note.textContent = !here ? ui.whatif_hint : meta === undefined ? ctx.words.web.whatif.not_kept
        : meta === null ? ctx.words.lesson.whatif.not_recorded : "";
      note.hidden = !note.textContent;
      if (!here || !meta) { step = -1; data = null; return; }
      if (step !== f.step) {
        step = f.step;
        data = null;
        const [scores, labels] = await Promise.all([ctx.scores(f.step), ctx.labels(meta.labels)]);
        if (step !== f.step) return;
        data = { scores, labels };
      }
      redraw();
    }
    return { id: "whatif", label: ui.tab_whatif, body: box, update, frame: true };
  }

  // ---------------------------------------------------------------- Your turn, and the second run

  function yourTurn(ctx) {
    const yt = ctx.words.app.your_turn;
    const runs = ctx.words.web.runs;
    const box = el("div");
    const pickBox = el("div");
    const cutBox = el("section", { id: "cut-run" });
    const cutShown = el("div");
    let chosen = null;
    box.append(el("h3", { text: yt.title }), pickBox, cutBox);
    cutBox.append(el("h3", { text: runs.cut_title }), el("p", { text: runs.cut_text }),
      el("button", { type: "button", id: "cut-show", text: runs.cut_show, onclick: showCut }), cutShown);

    function showCut() {
      const cut = ctx.lesson.cut;
      cutShown.replaceChildren(el("p", { text: runs.first_answer }), el("p", { text: runs.cut_answer }),
        el("p", { class: "hint", text: runs.recorded }));
      ctx.event({ kind: "setting", name: cut.setting, running: false });
      ctx.event({ kind: "generated" });
    }
    function endingColumn(title, cand, yours) {
      const tokens = el("ul", { class: "tokens", "aria-label": yt.probs_title });
      for (const [label, pct, mine] of cand.ending.tokens) {
        tokens.append(el("li", { class: mine ? "yours" : "", text: ctx.rules.fmt(mine && yours ? yt.token_yours : yt.token, { token: label, pct }) }));
      }
      return el("section", {}, el("h4", { text: title }), el("p", { class: "text", text: ctx.rules.fmt(yt.ending, { text: cand.ending.text }) }),
        el("p", { class: "hint", text: yt.probs_title }), tokens);
    }
    function update() {
      const f = ctx.frame();
      const here = ctx.lesson.passes.your_turn[f.step];
      pickBox.replaceChildren();
      if (f.stage !== "sampling" || !here) {
        pickBox.append(el("p", { class: "hint", text: runs.not_here }));
        return;
      }
      pickBox.append(el("p", { class: "hint", text: runs.intro }));
      const list = el("div", { class: "choices", role: "radiogroup", "aria-label": ctx.words.app.access.candidates });
      here.candidates.forEach((c, i) => {
        const text = ctx.rules.fmt(yt.candidate, { token: c.label, pct: c.pct });
        const input = el("input", { type: "radio", name: "your-turn", id: "candidate-" + i, value: i,
          checked: chosen && chosen.step === f.step && chosen.i === i });
        list.append(el("label", {}, input, el("span", { text: c.model ? ctx.rules.fmt(yt.candidate_model, { candidate: text }) : text })));
      });
      const go = el("button", { type: "button", class: "primary", id: "your-turn-go", text: runs.pick, onclick: () => {
        const picked = list.querySelector("input:checked");
        if (!picked) { ctx.announce(ctx.words.lesson.ui.answer_first); return; }
        chosen = { step: f.step, i: Number(picked.value) };
        show(here, here.candidates[chosen.i]);
        ctx.event({ kind: "branched", from_top: here.candidates[chosen.i].top });
      } });
      const endings = el("div", { class: "ending", id: "endings" });
      pickBox.append(list, go, endings);
      if (chosen && chosen.step === f.step) show(here, here.candidates[chosen.i], endings);
    }
    function show(here, cand, target) {
      const model = here.candidates.find((c) => c.model);
      const endings = target || document.getElementById("endings");
      endings.replaceChildren(endingColumn(ctx.rules.fmt(yt.model_pick, { token: model.label }), model, false),
        endingColumn(ctx.rules.fmt(yt.your_pick, { token: cand.label }), cand, true));
      endings.append(el("p", { class: "hint", text: runs.recorded }));
    }
    return { id: "your_turn", label: yt.tab, body: box, update, frame: true };
  }

  // ---------------------------------------------------------------- Reference: terms, Request, Sizes

  function terms(ctx) {
    const ui = ctx.words.lesson.ui;
    const search = el("input", { type: "text", id: "terms-search", "aria-label": ui.glossary_search, placeholder: ui.glossary_search });
    const list = el("dl", { class: "glossary" });
    const draw = () => {
      const q = search.value.trim().toLowerCase();
      list.replaceChildren();
      for (const e of ctx.lesson.glossary) {
        if (q && !(e.term + " " + e.definition).toLowerCase().includes(q)) continue;
        list.append(el("dt", { text: e.term }), el("dd", { text: e.definition + (e.example ? " " + e.example : "") }));
      }
    };
    search.addEventListener("input", draw);
    draw();
    return { id: "glossary", label: ui.tab_glossary, body: el("div", {}, search, list), update() {} };
  }

  function request(ctx) {
    const r = ctx.lesson.request;
    const list = el("ol", { class: "request" });
    for (const i of r.items) {
      list.append(el("li", {}, el("strong", { text: i.title }), " ", el("span", { class: "label", text: i.label }),
        el("p", { text: i.text }), i.value ? el("p", { text: i.value }) : null));
    }
    return { id: "request", label: ctx.words.lesson.ui.tab_request, body: el("div", {}, el("h3", { text: r.title }), list), update() {} };
  }

  function sizes(ctx) {
    const s = ctx.lesson.sizes;
    const table = el("table", {}, el("caption", { class: "sr", text: s.title }),
      el("tr", {}, ...s.heads.map((h) => el("th", { scope: "col", text: h }))));
    for (const row of s.rows) {
      table.append(el("tr", { class: row.this ? "this" : "" },
        ...row.cells.map((c, i) => el(i ? "td" : "th", i ? { class: "num", text: c } : { scope: "row", text: c }))));
    }
    const body = el("div", {}, el("h3", { text: s.title }), table, el("p", { class: "hint", text: s.label }), el("p", { class: "hint", text: s.note }));
    return { id: "scale", label: ctx.words.lesson.ui.tab_scale, body, update() {} };
  }

  // ---------------------------------------------------------------- Lesson complete

  function done(ctx) {
    const box = el("div");
    function update() {
      const state = ctx.state();
      const c = ctx.lesson.completion;
      box.replaceChildren();
      const todo = ctx.rules.unfinished(ctx.lesson, ctx.words.lesson, state);
      if (todo) {
        box.append(el("p", { class: "open-list", id: "open-goals", text: todo.text }),
          el("button", { type: "button", class: "primary", text: ctx.words.lesson.ui.finish, onclick: () => ctx.finish() }));
        return;
      }
      box.append(el("p", { class: "complete-title", id: "complete-title", text: c.title }));
      for (const line of ctx.rules.scoreLines(ctx.lesson, ctx.words.lesson, state)) box.append(el("p", { text: line }));
      for (const line of c.recap) box.append(el("p", { text: line }));
      box.append(el("p", { text: c.next_text }), el("p", {}, el("a", { href: c.next_url, id: "next-lesson", rel: "noopener", target: "_blank", text: c.next_url })),
        el("p", { class: "hint", text: c.next_how }));
    }
    return { id: "complete", label: ctx.words.lesson.ui.tab_complete, body: box, update };
  }

  return { el, predict, whatif, yourTurn, terms, request, sizes, done };
})();
