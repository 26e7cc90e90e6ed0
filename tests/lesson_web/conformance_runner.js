// Runs the page's own rules (ExplainerRules, assets/lesson_web/rules.js) over every case of the
// conformance fixture (explainer/lesson_web/conformance.py) and reports each disagreement with
// the verdict Python gave. Injected into the lesson page by tests/lesson_web/test_conformance.py,
// one part of the fixture at a time (the first argument holds only that part); the last argument
// is selenium's callback.
const [F, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const R = ExplainerRules;
  const lesson = await ExplainerPlayer.inflateJson("lesson-data");
  const words = lesson.words.lesson;
  const reader = R.numberReader(lesson.numbers);
  const counts = {};
  const wrong = [];
  // equal as JSON values, whatever the order of their keys (-0 is not 0: Python writes "-0.0")
  const canonical = (v) => JSON.stringify(v, (_k, x) => (x && typeof x === "object" && !Array.isArray(x)
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, x[k]])) : Object.is(x, -0) ? "-0" : x));
  const same = (a, b) => canonical(a) === canonical(b);
  const close = (a, b) => (a === b) || (typeof a === "number" && typeof b === "number" && Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)));
  function expect(kind, what, got, want, cmp = same) {
    counts[kind] = (counts[kind] || 0) + 1;
    if (!cmp(got, want) && wrong.length < 40) wrong.push({ kind, what, got, want });
  }

  for (const [text, value] of F.numbers || []) expect("numbers", text, reader.parseNumber(text), value);

  for (const [x, f0, f1, f2, f3, g1, p, gg] of F.formats || []) {
    expect("formats", [x, 0], R.fixed(x, 0), f0);
    expect("formats", [x, 1], R.fixed(x, 1), f1);
    expect("formats", [x, 2], R.fixed(x, 2), f2);
    expect("formats", [x, 3], R.fixed(x, 3), f3);
    expect("formats", [x, ","], R.grouped(x, 1), g1);
    expect("formats", [x, "%"], R.percent(x), p);
    expect("formats", [x, "g"], R.g(x), gg);
  }

  const byId = Object.fromEntries(lesson.questions.map((q) => [q.id, q]));
  for (const [id, given, want] of F.checks || []) {
    const q = byId[id];
    const got = given === "__revealed__" ? R.revealed(q) : R.check(words.quiz, reader, q, given);
    expect("checks", [id, given], got, want);
  }

  const steps = lesson.tour.steps;
  const t = F.tour || { states: [], texts: [] };
  const asState = ([index, done, runs]) => ({ index, done, runs_to_go: runs });
  const asList = (s) => [s.index, s.done, s.runs_to_go];
  t.states.forEach((s, i) => {
    const state = asState(s);
    t.events.forEach((e, j) => expect("tour", [s, e], asList(R.tour.observe(steps, state, e)), t.observed[i][j]));
    const n = steps.length;
    const moves = [R.tour.next(steps, state), R.tour.back(steps, state), ...[-1, 0, 5, n, n + 3].map((k) => R.tour.goTo(steps, k))];
    expect("tour moves", s, moves.map(asList), t.moves[i]);
  });
  for (const [i, guessing, goals, text] of t.texts) {
    expect("tour texts", [i, guessing, goals], R.stepText(words, steps[i], guessing, goals, lesson.outcomes.length), text);
  }

  (F.sessions || []).forEach((walk, w) => {
    let state = R.freshState();
    walk.ops.forEach((op, k) => {
      state = R.apply(lesson, state, op);
      const todo = R.unfinished(lesson, words, state);
      const got = {
        tour: [state.tour.index, state.tour.done, state.tour.runs_to_go],
        quiz: state.quiz,
        game: [state.game.played, state.game.score, state.game.streak, state.game.best],
        plays: state.plays,
        shown: R.outcomesShown(lesson, state),
        complete: R.complete(lesson, state),
        next_question: R.nextQuestion(lesson, state),
        unfinished: todo === null ? null : [todo.text, todo.question, todo.tour_step],
        scores: R.scoreLines(lesson, words, state),
        quiz_text: R.quizText(lesson, words, state),
        game_text: R.gameText(words, state.game),
        lms: R.lmsScore(lesson, state),
      };
      const want = walk.snaps[k];
      const sorted = (o) => JSON.stringify(Object.keys(o).sort().map((key) => [key, o[key]]));
      const cmp = (a, b) => Object.keys(b).every((key) => (key === "quiz" || key === "plays" ? sorted(a[key]) === sorted(b[key]) : same(a[key], b[key])));
      expect("sessions", [w, k, op], got, want, cmp);
    });
  });

  const labels = new Map();
  const scoresOf = new Map();
  for (const c of F.whatif || []) {
    const meta = lesson.passes.whatif[c.step];
    if (!labels.has(meta.labels)) labels.set(meta.labels, await ExplainerPlayer.inflateJson("labels-" + meta.labels));
    if (!scoresOf.has(c.step)) scoresOf.set(c.step, await ExplainerPlayer.scores("scores-" + c.step));
    const scores = scoresOf.get(c.step);
    const w = R.whatIf(words, meta, scores, labels.get(meta.labels), c.settings);
    const exact = ["available", "message", "greedy", "kept", "landed_id", "landed_label", "same", "recorded_id", "recorded_label"];
    const ok = exact.every((k) => same(w[k], c[k])) && close(w.landed_prob, c.landed_prob)
      && w.bars.length === c.bars.length && w.bars.every((b, i) => {
        const p = c.bars[i];
        return b.id === p.id && b.label === p.label && b.cut_by === p.cut_by && b.cut_label === p.cut_label
          && b.landed === p.landed && b.recorded === p.recorded && b.probs.every((v, j) => close(v, p.probs[j]));
      })
      && w.other.every((v, j) => close(v, c.other[j]))
      && w.spans.length === c.spans.length && w.spans.every((s, i) => s.label === c.spans[i][0] && close(s.start, c.spans[i][1])
        && close(s.end, c.spans[i][2]) && s.landed === c.spans[i][3]);
    expect("whatif", [c.step, c.settings], ok ? "agrees" : w, ok ? "agrees" : c);
  }
  return { counts, wrong };
})().then(done, (error) => done({ error: String(error && error.stack || error) }));
