// The lesson's rules in the browser: the one place the page decides anything about the learner.
// Each function here is a port of the Python code named beside it, and is held to it by a
// conformance fixture (explainer/lesson_web/conformance.py writes the cases and Python's own
// verdicts; tests/lesson_web/test_conformance.py runs this module over every case in Chromium
// and must agree on all). Change the Python first, then this, then run that test.
//
// What is here: numbers written as Python's format() writes them; a typed number read as
// lesson/numbers.py reads it; an answer checked and its likely mistake named (lesson/questions.py
// check); the learner's record (lesson/state.py, questions.py QuizState, game.py GameState); the
// tour's conditions and moves (lesson/tour.py); the completion rule and "Finish the lesson"
// (state.py outcomes_shown, completion.py); the LMS score (lesson_web/lms.py); and what-if's
// sampler (engine/sampler.py sampling_stages and pick_from, lesson/whatif.py what_if).
// Nothing here touches the page: the functions take the lesson's data and return values.
"use strict";
const ExplainerRules = (() => {
  // ------------------------------------------------------------------ Python's number formats

  /** f"{x:.{d}f}": toFixed, except at an exact tie, which Python rounds to even. */
  function fixed(x, d) {
    if (Number.isNaN(x)) return "nan";
    if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
    const negative = x < 0 || Object.is(x, -0);
    const a = Math.abs(x);
    let s;
    if (a >= 1e21) {
      s = BigInt(a).toString() + (d > 0 ? "." + "0".repeat(d) : "");
    } else {
      s = a.toFixed(d);
      // a tie is a * 10^d = k + 1/2 exactly: a = odd / 2^(d+1); toFixed took k + 1, Python the even one
      const tie = Number.isInteger(a * 2 ** (d + 1)) && !Number.isInteger(a * 2 ** d);
      const last = s.charCodeAt(s.length - 1) - 48;
      if (tie && last % 2 === 1) s = s.slice(0, -1) + String(last - 1);
    }
    return (negative ? "-" : "") + s;
  }

  /** f"{x:,.{d}f}": with thousands separators. */
  function grouped(x, d = 0) {
    return withCommas(fixed(x, d));
  }

  /** A number written out in decimal ("-1234.5"), with thousands separators ("-1,234.5"); text
   * that is no such number ("inf") as it is. */
  function withCommas(s) {
    const sign = s.startsWith("-") ? "-" : "";
    const body = sign ? s.slice(1) : s;
    const dot = body.indexOf(".");
    const whole = dot < 0 ? body : body.slice(0, dot);
    const rest = dot < 0 ? "" : body.slice(dot);
    if (!/^[0-9]+$/.test(whole)) return s;
    return sign + whole.replace(/\B(?=([0-9]{3})+(?![0-9]))/g, ",") + rest;
  }

  /** illustration/formatting.py percent. */
  function percent(p) {
    const x = 100.0 * p;
    if (x >= 10) return fixed(x, 1) + " %";
    if (x >= 1) return fixed(x, 1) + " %";
    if (x >= 0.01) return fixed(x, 2) + " %";
    if (x === 0) return "0 %";
    return "<0.01 %";
  }

  /** f"{x:g}" for the settings the page writes (temperature, top-p). */
  function g(x) {
    if (x === 0) return Object.is(x, -0) ? "-0" : "0";
    const [mantissa, exponent] = x.toExponential(5).split("e");
    const e = Number(exponent);
    if (e < -4 || e >= 6) {
      const m = mantissa.replace(/\.?0+$/, "");
      const sign = e < 0 ? "-" : "+";
      return m + "e" + sign + String(Math.abs(e)).padStart(2, "0");
    }
    const s = fixed(x, Math.max(0, 5 - e));
    return s.includes(".") ? s.replace(/\.?0+$/, "") : s;
  }

  /** str.format for the lesson's templates: {name}, and {{ }} for braces. */
  function fmt(template, fields) {
    let out = "";
    for (let i = 0; i < template.length; i++) {
      const c = template[i];
      if (c === "{" && template[i + 1] === "{") { out += "{"; i++; continue; }
      if (c === "}" && template[i + 1] === "}") { out += "}"; i++; continue; }
      if (c === "{") {
        const end = template.indexOf("}", i);
        const name = template.slice(i + 1, end);
        if (end < 0 || !(name in fields)) throw new Error("no field " + name + " for " + template);
        out += String(fields[name]);
        i = end;
        continue;
      }
      out += c;
    }
    return out;
  }

  /** Python's string order (by code point), for min() over (number, text) pairs. */
  function compareText(a, b) {
    const x = Array.from(a, (c) => c.codePointAt(0));
    const y = Array.from(b, (c) => c.codePointAt(0));
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
    return x.length - y.length;
  }

  // ------------------------------------------------------------------ lesson/numbers.py

  /** A reader of typed numbers with Python's digits and white space (quiz_data.number_reading). */
  function numberReader(tables) {
    const spaces = new Set(Array.from(tables.spaces));
    const zeros = tables.zeros.slice().sort((a, b) => a - b);
    const hex = (c) => "\\u{" + c.toString(16) + "}";
    const digit = "[" + zeros.map((z) => hex(z) + "-" + hex(z + 9)).join("") + "]";
    const space = "[" + Array.from(spaces, (c) => hex(c.codePointAt(0))).join("") + "]";
    const I = "[iI\\u0130\\u0131]"; // what Python's IGNORECASE takes for "i" (JavaScript's misses two)
    const hedge = new RegExp(
      "^(?:about|around|roughly|approx" + I + "mately|approx\\.?|c" + I + "rca|ca\\.?|~|≈|±)" + space + "*", "iu");
    const spacesRe = /[ \u00a0\u202f\u2009_']/gu;
    const groupedRe = new RegExp("^[+-]?" + digit + "{1,3}(?:," + digit + "{3})+(?:\\." + digit + "*)?", "u");
    const numberRe = new RegExp(
      "^([+-]?)(" + digit + "+(?:\\." + digit + "*)?|\\." + digit + "+)(?:e([+-]?" + digit + "+))?([km]?)$", "iu");
    function ascii(text) {
      return Array.from(text, (c) => {
        const cp = c.codePointAt(0);
        if (cp < 128) return c;
        let lo = 0, hi = zeros.length - 1, zero = -1;
        while (lo <= hi) { const mid = (lo + hi) >> 1; if (zeros[mid] <= cp) { zero = zeros[mid]; lo = mid + 1; } else hi = mid - 1; }
        return String(cp - zero);
      }).join("");
    }
    function strip(text) {
      const chars = Array.from(text);
      let a = 0, b = chars.length;
      while (a < b && spaces.has(chars[a])) a++;
      while (b > a && spaces.has(chars[b - 1])) b--;
      return chars.slice(a, b).join("");
    }
    /** numbers.py parse_number: the number in ``text``, or null. */
    function parseNumber(text) {
      let t = strip(text);
      for (;;) {
        const stripped = t.replace(hedge, "");
        if (stripped === t) break;
        t = strip(stripped);
      }
      t = t.replace(spacesRe, "");
      if (t.includes(",")) {
        if (!groupedRe.test(t)) return null;
        t = t.split(",").join("");
      }
      const m = numberRe.exec(t);
      if (m === null) return null;
      const [, sign, digits, exponent, suffix] = m;
      const scale = exponent === undefined ? 1 : parseFloat("1e" + Number(ascii(exponent)));
      const value = parseFloat(ascii(digits)) * scale * { "": 1.0, k: 1e3, m: 1e6 }[suffix.toLowerCase()];
      if (!Number.isFinite(value)) return null;
      return sign === "-" ? -value : value;
    }
    return { parseNumber };
  }

  /** numbers.py distance: within the relative tolerance (the edge counts), or how far off. */
  function distance(given, target, tolerance) {
    const off = Math.abs(given - target);
    const limit = tolerance * Math.abs(target) * (1 + 1e-9) + 1e-9;
    const rel = target ? off / Math.abs(target) : (off === 0 ? 0.0 : Infinity);
    return { within: off <= limit, high: given > target, off, off_rel: rel };
  }

  // ------------------------------------------------------------------ lesson/questions.py

  function amount(x) {
    const digits = x >= 10 ? 0 : x >= 1 ? 1 : x >= 0.01 ? 2 : 4;
    const text = grouped(x, digits);
    return digits ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
  }

  function pct(fraction) {
    return Number.isFinite(fraction) ? percent(fraction).replace(".0 ", " ") : "∞";
  }

  /** lesson/numbers.py as_typed: the learner's number written back with every digit they gave
   * (the shortest decimal that reads back as the number, as Python's repr and JavaScript's
   * String both give it) and thousands separators. */
  function asTyped(value) {
    if (!Number.isFinite(value)) return Number.isNaN(value) ? "nan" : value > 0 ? "inf" : "-inf";
    const a = Math.abs(value);
    if (a >= 1e15 || (a && a < 1e-6)) {  // Python's "{:.6g}": six significant digits, an exponent
      const [mantissa, exp] = value.toExponential(5).split("e");
      const m = mantissa.replace(/0+$/, "").replace(/\.$/, "");
      const e = Number(exp);
      return m + "e" + (e < 0 ? "-" : "+") + String(Math.abs(e)).padStart(2, "0");
    }
    return withCommas((value < 0 || Object.is(value, -0) ? "-" : "") + String(a));
  }

  /** lesson/slips.py GIVEN: where a likely mistake's words quote the learner's number. */
  const GIVEN = "\uE000";

  /** lesson/slips.py named: why ``value`` is wrong when a likely mistake gives it (the nearest;
   * one matched as typed only exactly; the first listed of equals), in the learner's own number. */
  function slip(q, value) {
    let best = null;
    for (const [m, why, exact] of q.mistakes) {
      if (!distance(value, m, exact ? 0 : q.tolerance).within) continue;
      const rel = m ? Math.abs(value - m) / Math.abs(m) : Math.abs(value);
      if (best === null || rel < best[0]) best = [rel, why];
    }
    return best === null ? null : best[1].split(GIVEN).join(asTyped(value));
  }

  /** questions.py check: the verdict on ``given`` (an option's index, a number or its text, a
   * category id per item). ``quiz``: lesson.json's quiz words; ``reader``: numberReader(). */
  function check(quiz, reader, q, given) {
    const verdict = (correct, message, items) =>
      ({ correct, message, explanation: q.explanation, items_right: items || [], revealed: false });
    if (!q.available) return { ...verdict(false, q.text), explanation: "" };
    if (q.kind === "choice") {
      const isIndex = Number.isInteger(given);
      if (isIndex && given === q.answer) return verdict(true, quiz.right);
      const why = isIndex && given >= 0 && given < q.why_wrong.length ? q.why_wrong[given] : "";
      return verdict(false, why ? fmt(quiz.wrong_option, { why }) : quiz.wrong);
    }
    if (q.kind === "number") {
      const value = typeof given === "string" ? reader.parseNumber(given) : typeof given === "number" ? given : null;
      if (value === null || !Number.isFinite(value)) return verdict(false, quiz.not_a_number);
      const d = distance(value, Number(q.answer), q.tolerance);
      if (d.within) return verdict(true, quiz.right);
      const why = slip(q, value);
      if (why !== null) return verdict(false, fmt(d.high ? quiz.mistake_high : quiz.mistake_low, { why }));
      return verdict(false, fmt(d.high ? quiz.too_high : quiz.too_low,
        { off: amount(d.off), off_pct: pct(d.off_rel), tolerance: q.tolerance_text }));
    }
    const answer = Array.isArray(q.answer) ? q.answer : [];
    const sorted = Array.isArray(given) ? given : [];
    const flags = answer.map((a, i) => i < sorted.length && sorted[i] === a);
    if (sorted.length === answer.length && flags.every(Boolean)) return verdict(true, quiz.right, flags);
    const misplaced = q.items.filter((_item, i) => !flags[i]).map((item) => "“" + item + "”");
    const right = flags.filter(Boolean).length;
    return verdict(false, fmt(quiz.match_count, { right, total: answer.length, wrong: misplaced.join("; ") }), flags);
  }

  /** questions.py revealed: "Show the answer" spends a try that is not right. */
  function revealed(q) {
    return { correct: false, message: "", explanation: q.explanation, items_right: [], revealed: true };
  }

  // ------------------------------------------------------------------ the learner's record

  /** QuizState, as {question id: [tries, right]}. */
  const quiz = {
    record(state, id, verdict) {
      const [n, ok] = state[id] || [0, false];
      if (ok) return state;
      return { ...state, [id]: [n + 1, verdict.correct] };
    },
    isRight: (state, id) => Boolean(state[id] && state[id][1]),
    right: (state) => Object.values(state).filter(([, ok]) => ok).length,
    firstTry: (state) => Object.values(state).filter(([n, ok]) => ok && n === 1).length,
    beforeClosing(state, questions) {
      if (!questions.length || quiz.isRight(state, questions[questions.length - 1].id)) return 0;
      return questions.slice(0, -1).filter((q) => !quiz.isRight(state, q.id)).length;
    },
  };

  /** GameState: played, score, streak, best. */
  const game = {
    fresh: () => ({ played: 0, score: 0, streak: 0, best: 0 }),
    after(s, correct) {
      const streak = correct ? s.streak + 1 : 0;
      return { played: s.played + 1, score: s.score + (correct ? 1 : 0), streak, best: Math.max(s.best, streak) };
    },
  };

  // ------------------------------------------------------------------ lesson/tour.py

  function namesSetting(c, e) {
    return e.kind === "setting" && (!c.names.length || c.names.includes(e.name));
  }

  /** tour.py condition_met. Events: {kind: stage|setting|generated|predicted|whatif|answered|branched|complete}. */
  function conditionMet(c, e) {
    switch (c.kind) {
      case "stage":
        return e.kind === "stage" && e.stage === c.stage && (c.phase === null || e.phase === c.phase) && (e.last || !c.last);
      case "setting": return !c.run && namesSetting(c, e);
      case "whatif": return e.kind === "whatif" && (!c.names.length || c.names.includes(e.name));
      case "generate": return e.kind === "generated";
      case "game": return e.kind === "predicted";
      case "question": return e.kind === "answered" && e.question === c.question && e.correct;
      case "complete": return e.kind === "complete";
      case "branch": return e.kind === "branched" && !e.from_top;
      default: return false;
    }
  }

  /** TourState {index, done, runs_to_go} over the tour's steps. */
  const tour = {
    fresh: () => ({ index: 0, done: false, runs_to_go: 0 }),
    step: (steps, t) => (t.index >= 0 && t.index < steps.length ? steps[t.index] : null),
    finished: (steps, t) => t.index >= steps.length,
    canAdvance(steps, t) {
      const step = tour.step(steps, t);
      return step !== null && (t.done || step.done.kind === "next");
    },
    observe(steps, t, e) {
      const step = tour.step(steps, t);
      if (step === null || t.done) return t;
      const c = step.done;
      if (c.kind === "setting" && c.run) {
        if (namesSetting(c, e)) return { ...t, runs_to_go: e.running ? 2 : 1 };
        if (e.kind === "generated" && t.runs_to_go) {
          const left = t.runs_to_go - 1;
          return { ...t, done: left === 0, runs_to_go: left };
        }
        return t;
      }
      return conditionMet(c, e) ? { ...t, done: true } : t;
    },
    next: (steps, t) => ({ index: Math.min(t.index + 1, steps.length), done: false, runs_to_go: 0 }),
    back: (steps, t) => (t.index > 0
      ? { index: Math.max(0, Math.min(t.index, steps.length) - 1), done: false, runs_to_go: 0 } : t),
    goTo: (steps, i) => ({ index: Math.max(0, Math.min(i, steps.length)), done: false, runs_to_go: 0 }),
  };

  function goalsText(words, shown, total) {
    return fmt(words.completion.goals, { shown, total });
  }

  /** tour.py tour_view's text: the step's words (or its guessing or not-yet-complete ones) with
   * the goals, or the "needs a run" text when the run could not fill them. */
  function stepText(words, step, guessing, shown, total) {
    let parts = guessing && step.text_guessing !== null ? step.text_guessing : step.text;
    if (step.text_open !== null && shown < total) parts = step.text_open;
    if (parts.some((p) => p === null)) return words.tour.needs_run;
    return parts.join(goalsText(words, shown, total));
  }

  // ------------------------------------------------------------------ lesson/state.py, completion.py

  /** The learner's record: {tour, quiz, game, plays: {pass: token id picked}}. */
  function freshState() {
    return { tour: tour.fresh(), quiz: {}, game: game.fresh(), plays: {} };
  }

  /** state.py outcomes_shown: every question that checks an outcome answered right (and askable). */
  function outcomesShown(lesson, state) {
    const checks = new Map(lesson.outcomes.map((o) => [o.id, []]));
    for (const q of lesson.questions) {
      for (const o of q.outcomes) {
        if (!checks.has(o)) checks.set(o, []);
        checks.get(o).push([q.id, q.available]);
      }
    }
    return lesson.outcomes
      .filter((o) => checks.get(o.id).length && checks.get(o.id).every(([id, ok]) => ok && quiz.isRight(state.quiz, id)))
      .map((o) => o.id);
  }

  function openOutcomes(lesson, state) {
    const shown = new Set(outcomesShown(lesson, state));
    return lesson.outcomes.filter((o) => !shown.has(o.id));
  }

  const complete = (lesson, state) => openOutcomes(lesson, state).length === 0;
  const goals = (lesson, state) => [outcomesShown(lesson, state).length, lesson.outcomes.length];

  /** What the app's session does after every change: a complete lesson tells the tour so. */
  function toldComplete(lesson, state) {
    if (!complete(lesson, state)) return state;
    return withTour(state, tour.observe(lesson.tour.steps, state.tour, { kind: "complete" }));
  }

  /** state.py _with_tour: the record with the tour at ``t`` (the same record when ``t`` equals its tour). */
  function withTour(state, t) {
    const u = state.tour;
    return t.index === u.index && t.done === u.done && t.runs_to_go === u.runs_to_go ? state : { ...state, tour: t };
  }

  /** state.py _arriving: the tour at a step it moved to, done on arrival when the record shows
   * its task done already (its question answered right, or a round of the game played). */
  function arriving(state, steps, t) {
    const step = tour.step(steps, t);
    if (step !== null && !t.done) {
      const c = step.done;
      const answered = c.kind === "question" && c.question !== null && quiz.isRight(state.quiz, c.question);
      if (answered || (c.kind === "game" && state.game.played > 0)) t = { ...t, done: true };
    }
    return withTour(state, t);
  }

  /** One thing the learner did, as the session applies it (then toldComplete). */
  function apply(lesson, state, op) {
    const steps = lesson.tour.steps;
    let next = state;
    switch (op.op) {
      case "answer": {
        const quizState = quiz.record(state.quiz, op.question, op.verdict);
        if (quizState !== state.quiz) next = { ...next, quiz: quizState };
        next = withTour(next, tour.observe(steps, next.tour, { kind: "answered", question: op.question, correct: op.verdict.correct }));
        break;
      }
      case "play":
        if (String(op.step) in state.plays) return state;
        next = { ...state, game: game.after(state.game, op.correct), plays: { ...state.plays, [op.step]: op.pick } };
        next = withTour(next, tour.observe(steps, next.tour, { kind: "predicted", correct: op.correct }));
        break;
      case "event":
        next = withTour(state, tour.observe(steps, state.tour, op.event));
        if (next === state) return state;
        break;
      case "next":
        if (tour.finished(steps, state.tour)) return state;
        next = arriving(state, steps, tour.next(steps, state.tour));
        break;
      case "back": next = arriving(state, steps, tour.back(steps, state.tour)); break;
      case "go": next = arriving(state, steps, tour.goTo(steps, op.index)); break;
      case "restart": next = withTour(state, tour.fresh()); break;
      default: throw new Error("unknown op " + op.op);
    }
    return toldComplete(lesson, next);
  }

  /** completion.py next_question: the question to answer next for the goals still open. */
  function nextQuestion(lesson, state) {
    const questions = lesson.questions;
    const closingWaits = quiz.beforeClosing(state.quiz, questions) > 0;
    const todo = questions.filter((q) => q.available && !quiz.isRight(state.quiz, q.id));
    for (const o of openOutcomes(lesson, state)) {
      for (const q of todo) {
        if (q.outcomes.includes(o.id) && !(q === questions[questions.length - 1] && closingWaits)) return q.id;
      }
    }
    return null;
  }

  /** completion.py unfinished: what "Finish the lesson" lists, or null when complete. */
  function unfinished(lesson, words, state) {
    const open = openOutcomes(lesson, state);
    if (!open.length) return null;
    const question = nextQuestion(lesson, state);
    let step = null;
    if (question === null) {
      const i = lesson.tour.steps.findIndex((s) => s.outcomes.includes(open[0].id));
      step = i < 0 ? null : i;
    }
    const [shown, total] = goals(lesson, state);
    const c = words.completion;
    const lines = [fmt(c.open_title, { goals: goalsText(words, shown, total) })];
    for (const o of open) lines.push(fmt(c.open_item, { outcome: o.text }));
    lines.push(c.open_first);
    return { outcomes: open.map((o) => o.id), text: lines.join("\n"), question, tour_step: step };
  }

  /** completion.py completion's score lines. */
  function scoreLines(lesson, words, state) {
    const c = words.completion;
    const out = [fmt(c.score_quiz, { right: quiz.right(state.quiz), total: lesson.questions.length, first_try: quiz.firstTry(state.quiz) })];
    const gm = state.game;
    if (gm.played) out.push(fmt(c.score_game, { score: gm.score, played: gm.played, best: gm.best }));
    return out;
  }

  function quizText(lesson, words, state) {
    const [shown, total] = goals(lesson, state);
    return fmt(words.quiz.score, { right: quiz.right(state.quiz), total: lesson.questions.length,
      first_try: quiz.firstTry(state.quiz), goals: goalsText(words, shown, total) });
  }

  function gameText(words, s) {
    return fmt(words.game.score, s);
  }

  /** lesson_web/lms.py lms_score: the share of questions answered right at the first try, 0-100. */
  function lmsScore(lesson, state) {
    const n = lesson.questions.length;
    return n ? Math.round((100 * quiz.firstTry(state.quiz)) / n) : 0;
  }

  // ------------------------------------------------------------------ engine/sampler.py

  /** numpy's sum of a float64 array: pairwise, in blocks of eight (as np.add.reduce adds). */
  function pairwise(a, lo, n) {
    if (n < 8) {
      let r = 0.0;
      for (let i = 0; i < n; i++) r += a[lo + i];
      return r;
    }
    if (n <= 128) {
      const r = [a[lo], a[lo + 1], a[lo + 2], a[lo + 3], a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]];
      let i = 8;
      for (; i < n - (n % 8); i += 8) for (let j = 0; j < 8; j++) r[j] += a[lo + i + j];
      let res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
      for (; i < n; i++) res += a[lo + i];
      return res;
    }
    let n2 = Math.floor(n / 2);
    n2 -= n2 % 8;
    return pairwise(a, lo, n2) + pairwise(a, lo + n2, n - n2);
  }
  const sum = (a) => pairwise(a, 0, a.length);

  function softmax(x, temperature) {
    let max = -Infinity;
    for (let i = 0; i < x.length; i++) if (x[i] > max) max = x[i];
    const e = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) e[i] = Math.exp((x[i] - max) / temperature);
    const total = sum(e);
    for (let i = 0; i < x.length; i++) e[i] = e[i] / total;
    return e;
  }

  /** Ids by probability, most likely first, the lower id first on ties (a stable sort on -p);
   * ``onlyLikely``: those with any probability only (sampler.py _ranked). */
  function order(p, onlyLikely) {
    const ids = [];
    for (let i = 0; i < p.length; i++) if (!onlyLikely || p[i] > 0) ids.push(i);
    return ids.sort((a, b) => (p[b] - p[a]) || (a - b));
  }

  /** The first ``n`` ids of order(p), without sorting the vocabulary (sampler.py _top_order). */
  function top(p, n) {
    const best = [];
    for (let i = 0; i < p.length; i++) {
      // (ids come in ascending order, so an equal probability never goes before one already in)
      if (best.length === n && !(p[i] > p[best[n - 1]])) continue;
      let at = best.length;
      while (at > 0 && p[i] > p[best[at - 1]]) at--;
      best.splice(at, 0, i);
      if (best.length > n) best.pop();
    }
    return best;
  }

  function renormalise(p, keep) {
    const out = new Float64Array(p.length);
    for (const i of keep) out[i] = p[i];
    const total = sum(out);
    for (let i = 0; i < out.length; i++) out[i] = out[i] / total;
    return out;
  }

  /** sampler.py sampling_stages. */
  function samplingStages(logits, s) {
    const x = Float64Array.from(logits);
    const raw = softmax(x, 1.0);
    if (s.temperature === 0) {
      let chosen = 0;
      for (let i = 1; i < x.length; i++) if (x[i] > x[chosen]) chosen = i;
      const oneHot = new Float64Array(x.length);
      oneHot[chosen] = 1.0;
      return { raw, t: oneHot, k: oneHot, p: oneHot, kept: 1, greedy: chosen };
    }
    const t = softmax(x, s.temperature);
    let k = t;
    if (s.top_k > 0 && s.top_k < t.length) k = renormalise(t, top(t, s.top_k));
    let p = k;
    if (s.top_p < 1.0) {
      const ranked = order(k, true);
      let cum = 0.0, n = ranked.length;
      for (let i = 0; i < ranked.length; i++) {
        cum += k[ranked[i]];
        if (cum >= s.top_p - 1e-12) { n = i; break; }
      }
      n = Math.max(1, Math.min(n + 1, ranked.length));
      p = renormalise(k, ranked.slice(0, n));
    }
    let kept = 0;
    for (let i = 0; i < p.length; i++) if (p[i] > 0) kept++;
    return { raw, t, k, p, kept, greedy: null };
  }

  /** sampler.py pick_from: the token ``draw`` lands on (``ranked``: order(p, true), if known). */
  function pickFrom(p, draw, ranked = order(p, true)) {
    const cum = new Float64Array(ranked.length);
    let c = 0.0;
    for (let i = 0; i < ranked.length; i++) { c += p[ranked[i]]; cum[i] = c; }
    const last = cum[cum.length - 1];
    let index = ranked.length;
    for (let i = 0; i < ranked.length; i++) if (cum[i] / last > draw) { index = i; break; }
    return ranked[Math.min(index, ranked.length - 1)];
  }

  // ------------------------------------------------------------------ lesson/whatif.py

  function settingsText(w, s) {
    if (s.temperature === 0) return w.greedy;
    const k = s.top_k ? fmt(w.top_k, { top_k: s.top_k }) : w.top_k_off;
    const p = s.top_p < 1 ? fmt(w.top_p, { top_p: g(s.top_p) }) : w.top_p_off;
    return fmt(w.sampled, { temperature: g(s.temperature), top_k: k, top_p: p });
  }

  function keptWords(w, kept) {
    return kept === 1 ? w.kept_one : fmt(w.kept, { kept: grouped(kept) });
  }

  /** whatif.py _spans: the kept tokens on the draw bar (``ranked``: order(p, true)). */
  function spans(p, ranked, landed, label, n, other) {
    const kept = ranked.length;
    const cum = new Float64Array(kept);
    let c = 0.0;
    for (let i = 0; i < kept; i++) { c += p[ranked[i]]; cum[i] = c; }
    const total = cum[kept - 1];  // (the zeros after them add nothing to the sum)
    const out = [];
    let start = 0.0;
    for (let j = 0; j < Math.min(n, kept); j++) {
      const end = cum[j] / total;
      out.push({ label: "“" + label(ranked[j]) + "”", start, end, landed: ranked[j] === landed });
      start = end;
    }
    if (kept > n) out.push({ label: other, start, end: 1.0, landed: ranked.slice(n).includes(landed) });
    return out;
  }

  /** whatif.py what_if: a pass's sampling redone with ``settings``. ``step``: the pass's
   * {draw, chosen, recorded_label}; ``labels``: every id's label; ``words``: lesson.json's. */
  function whatIf(words, step, logits, labels, settings, nBars = 10) {
    const w = words.whatif;
    const label = (id) => labels[id];
    const st = samplingStages(logits, settings);
    const greedy = st.greedy !== null;
    const stages = [st.raw, st.t, st.k, st.p];
    const ranked = greedy ? [st.greedy] : order(st.p, true);
    const landed = greedy ? st.greedy : step.draw !== null ? pickFrom(st.p, step.draw, ranked) : null;
    const bars = top(st.raw, nBars).map((id) => {
      const probs = stages.map((a) => a[id]);
      const cut = probs[3] > 0 || greedy ? "" : probs[2] === 0 && probs[1] > 0 ? "top_k"
        : probs[3] === 0 && probs[2] > 0 ? "top_p" : "";
      return { id, label: "“" + label(id) + "”", probs, cut_by: cut, cut_label: cut ? w["cut_" + cut] : "",
        landed: id === landed, recorded: id === step.chosen };
    });
    const other = stages.map((a) => Math.max(0.0, 1.0 - sum(Float64Array.from(bars, (b) => a[b.id]))));
    const kept = keptWords(w, st.kept);
    let message, landedLabel = "", landedProb = 0.0, same = false;
    if (landed === null) {
      message = fmt(w.greedy_recorded, { kept });
    } else {
      landedLabel = "“" + label(landed) + "”";
      landedProb = st.p[landed];
      same = landed === step.chosen;
      const first = fmt(greedy ? w.greedy_now : w.lands,
        { draw: step.draw !== null ? fixed(step.draw, 3) : "", token: landedLabel, pct: percent(landedProb) });
      const then = same ? w.same : fmt(w.changed, { recorded: step.recorded_label });
      message = fmt(w.summary, { settings: settingsText(words.settings, settings), kept, lands: first, verdict: then });
    }
    return {
      available: true, message, greedy, bars, other, kept: st.kept, draw: step.draw,
      landed_id: landed, landed_label: landedLabel, landed_prob: landedProb,
      recorded_id: step.chosen, recorded_label: step.recorded_label, same,
      spans: greedy ? [] : spans(st.p, ranked, landed, label, nBars, w.other),
    };
  }

  return {
    fixed, grouped, percent, g, fmt, numberReader, distance, check, revealed, quiz, game, tour, conditionMet,
    goalsText, stepText, freshState, outcomesShown, openOutcomes, complete, goals, toldComplete, apply,
    nextQuestion, unfinished, scoreLines, quizText, gameText, lmsScore, samplingStages, pickFrom, whatIf,
    settingsText,
  };
})();
