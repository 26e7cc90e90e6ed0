// Where the learner's progress is kept: the course's LMS through SCORM 1.2, else this browser.
//
// SCORM 1.2 (what Moodle plays): the LMS puts an object named API on a window above the page (a
// frame holding it, or the window that opened it); the page finds it, calls LMSInitialize, keeps
// cmi.core.lesson_status at "incomplete" until the lesson's own completion rule holds (then
// "completed"), reports cmi.core.score.raw/min/max, keeps its place and answers in
// cmi.suspend_data (at most 4,096 characters: the record is written compactly, below) and the
// tour's step in cmi.core.lesson_location, commits after every change, and calls LMSFinish
// when the page goes away (lesson.js calls finish as the page is hidden for good, after a last save). Without an LMS the same record goes to localStorage, under this
// page's address, and the page says so.
//
// A saved record is data, never code: it is read field by field against strict patterns and
// ranges, and one that does not read (damaged, or written by another export of the lesson) is
// set aside with a message; the lesson then starts afresh. Nothing of it is ever run or shown.
"use strict";
const ExplainerStore = (() => {
  const LIMIT = 4096; // cmi.suspend_data's size in SCORM 1.2
  const VERSION = "L1";

  function findApi(start) {
    let win = start;
    for (let tries = 0; win && tries < 8; tries++) {
      try {
        if (win.API && typeof win.API.LMSInitialize === "function") return win.API;
      } catch (_error) {
        return null; // (a window of another origin: not the LMS's)
      }
      if (!win.parent || win.parent === win) break;
      win = win.parent;
    }
    return null;
  }

  /** The LMS's API: the frames above this page first, then the window that opened it. */
  function discover() {
    const api = findApi(window.parent !== window ? window.parent : null);
    if (api) return api;
    try {
      return window.opener ? findApi(window.opener) : null;
    } catch (_error) {
      return null;
    }
  }

  // ---------------------------------------------------------------- the record, compactly
  // L1.<export id>.<tour step>.<done>.<runs to go>.<answers>.<game>.<rounds>.<frame>
  // answers: two base-36 digits per question, in the lesson's order (tries * 2 + right);
  // game: played-score-streak-best; rounds: pass:pick pairs (pick: the candidate's place, 0-3).

  const b36 = (n) => n.toString(36);

  function encode(lesson, state, frame) {
    const quiz = lesson.questions.map((q) => {
      const [n, ok] = state.quiz[q.id] || [0, false];
      return b36(Math.min(n, 647) * 2 + (ok ? 1 : 0)).padStart(2, "0");
    }).join("");
    const g = state.game;
    const game = [g.played, g.score, g.streak, g.best].map(b36).join("-");
    const plays = Object.entries(state.plays).map(([step, pick]) => {
      const round = lesson.passes.rounds[Number(step)];
      return b36(Number(step)) + ":" + round.candidates.findIndex((c) => c.id === pick);
    });
    const t = state.tour;
    const parts = () => [VERSION, lesson.id, b36(t.index), t.done ? 1 : 0, t.runs_to_go, quiz, game, plays.join("_"), b36(frame)];
    let text = parts().join(".");
    while (text.length > LIMIT && plays.length) { plays.shift(); text = parts().join("."); }
    return text;
  }

  const NUMBER = /^[0-9a-z]{1,8}$/;
  const num = (s) => (NUMBER.test(s) ? parseInt(s, 36) : NaN);

  /** The record in ``text``: {state, frame}, or {error: "unreadable" | "other"}. */
  function decode(lesson, text, fresh) {
    if (typeof text !== "string" || !text) return null;
    const parts = text.split(".");
    if (parts.length !== 9 || parts[0] !== VERSION || !/^[0-9a-f]{16}$/.test(parts[1])) return { error: "unreadable" };
    if (parts[1] !== lesson.id) return { error: "other" };
    const [index, done, runs, quiz, game, plays, frame] = [num(parts[2]), parts[3], parts[4], parts[5], parts[6], parts[7], num(parts[8])];
    const steps = lesson.tour.steps.length;
    if (!(index >= 0 && index <= steps) || !/^[01]$/.test(done) || !/^[012]$/.test(runs)) return { error: "unreadable" };
    if (quiz.length !== lesson.questions.length * 2 || !/^[0-9a-z]*$/.test(quiz)) return { error: "unreadable" };
    if (!(frame >= 0 && frame < lesson.frames.length)) return { error: "unreadable" };
    const state = fresh();
    state.tour = { index, done: done === "1", runs_to_go: Number(runs) };
    lesson.questions.forEach((q, i) => {
      const v = parseInt(quiz.slice(2 * i, 2 * i + 2), 36);
      if (v >= 2) state.quiz[q.id] = [Math.floor(v / 2), v % 2 === 1];
    });
    const g = game.split("-").map(num);
    if (g.length !== 4 || g.some((v) => !(v >= 0))) return { error: "unreadable" };
    const [played, score, streak, best] = g;
    if (!(score <= played && streak <= best && best <= score)) return { error: "unreadable" };
    state.game = { played, score, streak, best };
    for (const pair of plays ? plays.split("_") : []) {
      const m = /^([0-9a-z]{1,4}):([0-3])$/.exec(pair);
      const round = m ? lesson.passes.rounds[parseInt(m[1], 36)] : null;
      if (!round) return { error: "unreadable" };
      state.plays[parseInt(m[1], 36)] = round.candidates[Number(m[2])].id;
    }
    return { state, frame };
  }

  // ---------------------------------------------------------------- the two places

  function open(lesson, words, fresh) {
    const w = words.web.storage;
    const api = discover();
    if (api) return lmsStore(api, lesson, w, fresh);
    return localStore(lesson, w, fresh);
  }

  function lmsStore(api, lesson, w, fresh) {
    const started = Date.now();
    let finished = false;
    let status = "";
    let problem = "";
    const call = (name, ...args) => {
      const result = api[name](...args);
      const code = String(api.LMSGetLastError ? api.LMSGetLastError() : "0");
      if (code !== "0" && code !== "") problem = ExplainerRules.fmt(w.lms_error, { code });
      return result;
    };
    call("LMSInitialize", "");
    status = String(api.LMSGetValue("cmi.core.lesson_status") || "");
    if (status === "" || status === "not attempted") {
      call("LMSSetValue", "cmi.core.lesson_status", "incomplete");
      status = "incomplete";
    }
    const saved = decode(lesson, String(api.LMSGetValue("cmi.suspend_data") || ""), fresh);
    call("LMSCommit", "");
    const finish = () => {
      if (finished) return;
      finished = true;
      const s = Math.round((Date.now() - started) / 10) / 100;
      const hms = [Math.floor(s / 3600), Math.floor((s % 3600) / 60)].map((v) => String(v).padStart(2, "0"));
      call("LMSSetValue", "cmi.core.session_time", hms.join(":") + ":" + (s % 60).toFixed(2).padStart(5, "0"));
      call("LMSCommit", "");
      call("LMSFinish", "");
    };
    return {
      kind: "lms",
      message: () => problem || w.lms,
      warning: () => Boolean(problem),
      saved,
      save(state, frame, location, complete, score) {
        if (finished) return;
        problem = "";
        call("LMSSetValue", "cmi.suspend_data", encode(lesson, state, frame));
        call("LMSSetValue", "cmi.core.lesson_location", location);
        call("LMSSetValue", "cmi.core.score.min", "0");
        call("LMSSetValue", "cmi.core.score.max", "100");
        call("LMSSetValue", "cmi.core.score.raw", String(score));
        if (complete && status !== "completed" && status !== "passed") {
          call("LMSSetValue", "cmi.core.lesson_status", "completed");
          status = "completed";
        }
        call("LMSSetValue", "cmi.core.exit", complete ? "" : "suspend");
        call("LMSCommit", "");
      },
      finish,
    };
  }

  function localStore(lesson, w, fresh) {
    const key = "explainer-lesson:" + location.pathname;
    let storage = null;
    try {
      storage = window.localStorage;
      storage.setItem(key + ":probe", "1");
      storage.removeItem(key + ":probe");
    } catch (_error) {
      storage = null;
    }
    let saved = null;
    if (storage) {
      try { saved = decode(lesson, storage.getItem(key), fresh); } catch (_error) { saved = { error: "unreadable" }; }
    }
    return {
      kind: storage ? "local" : "none",
      message: () => (storage ? w.local : w.none),
      warning: () => false,
      saved,
      save(state, frame) {
        if (!storage) return;
        try { storage.setItem(key, encode(lesson, state, frame)); } catch (_error) { /* full: kept until the page closes */ }
      },
      finish() {},
    };
  }

  return { open, encode, decode, LIMIT };
})();
