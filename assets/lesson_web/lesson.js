// The lesson page: the tour above the sections, beside the illustration of the recorded run.
// It keeps the learner's record (rules.js freshState), applies what the learner does with the
// lesson's rules (rules.js apply: the app's session in the browser), saves the record where the
// LMS or the browser keeps it (lms.js) after every change, and redraws the tour and the sections.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const R = ExplainerRules;
  const el = ExplainerSections.el;
  const page = $("page");

  async function start() {
    if (typeof DecompressionStream === "undefined") {
      $("unsupported").hidden = false;
      page.dataset.state = "unsupported";
      return;
    }
    if (document.documentElement.dataset.themeChosen !== "1" && matchMedia("(prefers-color-scheme: dark)").matches) {
      document.documentElement.dataset.theme = "dark";
    }
    const [run, lesson] = await Promise.all([ExplainerPlayer.inflateJson("run-data"), ExplainerPlayer.inflateJson("lesson-data")]);
    const words = lesson.words;
    const reader = R.numberReader(lesson.numbers);
    const steps = lesson.tour.steps;
    const labelTables = new Map();
    let state = R.freshState();
    let openText = null; // "Not finished yet" shown in the tour, until the learner moves on
    let shownStep = -1;
    let saveTimer = null;

    if (window.parent !== window) document.documentElement.classList.add("framed");
    $("theme").value = document.documentElement.dataset.theme;

    const store = ExplainerStore.open(lesson, words, R.freshState);
    let storeNote = "";
    if (store.saved && store.saved.error) storeNote = words.web.storage[store.saved.error === "other" ? "other" : "unreadable"];
    else if (store.saved) state = store.saved.state;

    const player = ExplainerPlayer.create(run, lesson, words, onFrame);
    player.setHoldBack((step, stage) => stage === "layers" && Boolean(lesson.passes.rounds[step]) && !(String(step) in state.plays));

    const ctx = {
      lesson, words, rules: R, reader,
      state: () => state,
      frame: () => player.frame(player.index),
      scores: (step) => ExplainerPlayer.scores("scores-" + step),
      labels: async (n) => {
        if (!labelTables.has(n)) labelTables.set(n, await ExplainerPlayer.inflateJson("labels-" + n));
        return labelTables.get(n);
      },
      announce,
      event: (e) => change({ op: "event", event: e }),
      answer: (question, verdict) => change({ op: "answer", question, verdict }),
      play(step, pick, reveal) {
        change({ op: "play", step, pick, correct: reveal.correct });
        announce(reveal.message);
        const at = player.find(step, "probabilities");
        if (at >= 0) player.show(at);
      },
      finish,
    };
    const quiz = ExplainerQuiz.create(ctx);
    const sections = [ExplainerSections.predict(ctx), ExplainerSections.whatif(ctx), ExplainerSections.yourTurn(ctx), quiz,
      ExplainerSections.terms(ctx), ExplainerSections.request(ctx), ExplainerSections.sizes(ctx), ExplainerSections.done(ctx)];
    const tabs = buildTabs(sections);

    /** Told to a screen reader (the polite live region): what is told in one turn is told together,
     * in order (a verdict, then "Lesson 4 complete" when that answer completed the lesson). */
    let told = [];
    function announce(text) {
      if (!told.length) {
        setTimeout(() => {
          const live = $("announce");
          live.textContent = "";
          setTimeout(() => { live.textContent = told.join("\n"); told = []; }, 30);
        }, 0);
      }
      told.push(text);
    }

    function save() {
      const step = R.tour.step(steps, state.tour);
      store.save(state, player.index, step ? step.id : "", R.complete(lesson, state), R.lmsScore(lesson, state));
      $("store").textContent = storeNote || store.message();
      $("store").classList.toggle("warn", Boolean(storeNote) || store.warning());
    }

    /** What the learner did, by the lesson's rules; ``moved``: the frame on screen changed too. */
    function change(op, moved = false) {
      const before = state;
      const wasComplete = R.complete(lesson, state);
      state = R.apply(lesson, state, op);
      if (op.op === "next" || op.op === "back" || op.op === "go" || op.op === "restart") openText = null;
      if (openText !== null) { // "Not finished yet" follows the answers, and goes once all are shown
        const todo = R.unfinished(lesson, words.lesson, state);
        openText = todo ? todo.text : null;
      }
      if (state !== before) { storeNote = ""; save(); }
      if (!wasComplete && R.complete(lesson, state)) {
        tabs.open("complete", false);
        setTimeout(() => announce(lesson.completion.title), 0); // (after what completed it is told)
      }
      redraw(state !== before || !moved);
    }

    function onFrame(f) {
      const last = f.step === lesson.run.steps - 1 && lesson.run.stopped;
      change({ op: "event", event: { kind: "stage", stage: f.stage, phase: f.step === 0 ? "prefill" : "decode", last } }, true);
      clearTimeout(saveTimer);
      saveTimer = setTimeout(save, 800); // the place on screen, once the learner stops stepping
    }

    // ------------------------------------------------------------ the tour

    function guessing() {
      const f = ctx.frame();
      return f.stage === "layers" && Boolean(lesson.passes.rounds[f.step]) && !(String(f.step) in state.plays);
    }

    function drawTour() {
      const ui = words.lesson.ui;
      const box = $("tour");
      const t = state.tour;
      const step = R.tour.step(steps, t);
      const [shown, total] = R.goals(lesson, state);
      box.replaceChildren();
      if (!step) {
        box.append(el("p", { text: ui.tour_finished }), el("div", { class: "buttons" },
          el("button", { type: "button", id: "tour-back", text: ui.back, onclick: () => change({ op: "back" }) }),
          el("button", { type: "button", id: "tour-restart", text: ui.restart, onclick: () => change({ op: "restart" }) }),
          el("button", { type: "button", id: "tour-finish", class: "primary", text: ui.finish, onclick: finish })));
        player.setOutline(null);
        markTask(null);
        if (openText) box.append(el("p", { class: "open-list", id: "tour-open", text: openText }));
        return;
      }
      const chapter = lesson.tour.chapters[step.chapter];
      const chapterText = R.fmt(words.lesson.tour.chapter, { n: step.chapter + 1, total: lesson.tour.chapters.length, title: chapter.title });
      const progress = R.fmt(words.lesson.tour.progress, { n: t.index + 1, total: steps.length });
      const text = R.stepText(words.lesson, step, guessing(), shown, total);
      const done = R.tour.canAdvance(steps, t) && step.done.kind !== "next";
      const task = R.fmt(done ? ui.task_done : ui.task, { do: step.do });
      const buttons = el("div", { class: "buttons" },
        el("button", { type: "button", id: "tour-back", text: ui.back, title: R.fmt(ui.back_tip, { keys: "" }).trim(), disabled: t.index === 0,
          onclick: () => change({ op: "back" }) }),
        el("button", { type: "button", id: "tour-next", class: R.tour.canAdvance(steps, t) ? "primary" : "", text: ui.next,
          onclick: () => change({ op: "next" }) }));
      if (step.show) buttons.append(el("button", { type: "button", id: "tour-show", text: ui.show_me, title: ui.show_me_tip, onclick: () => showMe(step) }));
      if (step.web === "generate") {
        buttons.append(el("button", { type: "button", id: "use-run", class: "primary", text: words.web.tour.use_run,
          onclick: () => { change({ op: "event", event: { kind: "generated" } }); player.show(player.count - 1); } }));
      }
      buttons.append(el("button", { type: "button", id: "tour-finish", text: ui.finish, title: ui.finish_tip, onclick: finish }));
      box.append(el("p", { class: "chapter", id: "tour-chapter", text: chapterText }),
        el("p", { class: "progress", id: "tour-progress", text: progress }),
        el("p", { id: "tour-text", text }),
        el("p", { class: "task" + (done ? " done" : ""), id: "tour-task", text: task }), buttons);
      if (openText) box.append(el("p", { class: "open-list", id: "tour-open", text: openText }));
      player.setOutline(step.outline.panel || step.outline.caption ? step.outline : null);
      markTask(step);
      if (shownStep !== t.index) {
        shownStep = t.index;
        announce(R.fmt(words.app.access.tour_step, { chapter: chapterText, progress, text, task }));
      }
    }

    function markTask(step) {
      const section = step && step.show ? step.show.section : null;
      for (const b of document.querySelectorAll("[role=tab]")) b.classList.toggle("task-here", b.dataset.id === section);
      for (const p of document.querySelectorAll(".pointed:not(.caption)")) p.classList.remove("pointed");
      const part = step ? step.outline.part : null;
      const target = part === "lesson" ? null : part === "recorded" ? $("recorded") : part ? document.querySelector(`[role=tab][data-id="${part}"]`) : null;
      if (target) target.classList.add("pointed");
    }

    function showMe(step) {
      const s = step.show;
      if (s.stage) {
        const here = ctx.frame().step;
        const at = s.stage === "pretraining" ? player.find(0, "pretraining") : player.find(
          s.last ? lesson.run.steps - 1 : s.phase === "prefill" ? 0 : s.phase === "decode" ? Math.max(1, here) : here, s.stage);
        if (at >= 0) player.show(at);
      }
      if (s.section) tabs.open(s.section, true);
      if (s.question) quiz.open(s.question);
      else if (step.done.kind === "complete") { const q = R.nextQuestion(lesson, state); if (q) quiz.open(q); }
      if (s.part === "use_run") $("use-run").focus();
      if (s.part === "cut") $("cut-show").focus();
    }

    function finish() {
      const todo = R.unfinished(lesson, words.lesson, state);
      if (todo === null) {
        change({ op: "go", index: steps.length });
        tabs.open("complete", true);
        return;
      }
      if (todo.question !== null) { tabs.open("questions", false); quiz.open(todo.question); }
      else if (todo.tour_step !== null) change({ op: "go", index: todo.tour_step });
      openText = todo.text;
      redraw();
      announce(todo.text);
    }

    // ------------------------------------------------------------ the sections, as tabs

    function buildTabs(list) {
      const bar = $("tabs");
      const panels = $("panels");
      let current = list[0].id;
      for (const s of list) {
        const tab = el("button", { type: "button", role: "tab", id: "tab-" + s.id, "data-id": s.id, "aria-controls": "panel-" + s.id,
          text: s.label, onclick: () => open(s.id, true) });
        bar.append(tab);
        panels.append(el("div", { role: "tabpanel", class: "panel", id: "panel-" + s.id, "aria-labelledby": "tab-" + s.id, tabindex: "0" }, s.body));
      }
      bar.addEventListener("keydown", (e) => {
        const ids = list.map((s) => s.id);
        const i = ids.indexOf(current);
        const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: ids.length - 1 }[e.key];
        if (to === undefined) return;
        e.preventDefault();
        open(ids[(to + ids.length) % ids.length], true);
      });
      function open(id, focus) {
        current = id;
        for (const s of list) {
          const on = s.id === id;
          const tab = $("tab-" + s.id);
          tab.setAttribute("aria-selected", on ? "true" : "false");
          tab.tabIndex = on ? 0 : -1;
          $("panel-" + s.id).hidden = !on;
        }
        if (focus) $("tab-" + id).focus();
      }
      open(current, false);
      return { open };
    }

    /** The tour and the sections again (``all``: the record changed; else only what follows the frame). */
    function redraw(all = true) {
      const focused = document.activeElement && document.activeElement.id;
      drawTour();
      for (const s of sections) if (all || s.frame) s.update();
      // a control drawn anew keeps the focus, so a keyboard stays where it was
      const again = focused ? $(focused) : null;
      if (again && again !== document.activeElement && !again.disabled) again.focus();
    }

    $("theme").addEventListener("change", () => player.setTheme($("theme").value));
    const leave = () => { clearTimeout(saveTimer); save(); store.finish(); };
    window.addEventListener("pagehide", leave);
    window.addEventListener("beforeunload", leave);
    const resume = store.saved && store.saved.state ? store.saved.frame : 0;
    await ExplainerPlayer.prepare(run, document.documentElement.dataset.theme, resume);
    player.show(resume, false);
    redraw();
    save();
    page.dataset.state = "ready";
    performance.mark("lesson-ready");
  }

  start().catch((error) => {
    page.dataset.state = "failed";
    $("position").textContent = String(error);
  });
})();
