// The class page: join the room, vote in each round, see the reveal, send a prompt and watch its
// answer stream. Every text comes from the server's words (class_page.json) and every text from
// a student or the model is written with textContent, never as HTML. Nothing is stored but the
// phone's room id, in this tab only (sessionStorage), so a reload stays the same phone.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const code = (location.pathname.split("/")[2] || "").toUpperCase();
  const base = "/r/" + encodeURIComponent(code);
  const MAX = 300;
  const state = {
    words: { page: {}, refused: {} },
    device: null,
    round: null,
    choices: [],
    source: null,
    tokens: 0,
    ended: false, // the session is over: nothing is tried again
    retrying: false,
    tries: 0, // joins tried again since the channel was last open
    timer: null,
  };

  function fill(template, fields) {
    return String(template || "").replace(/\{(\w+)\}/g, (m, k) => (k in fields ? String(fields[k]) : m));
  }
  const t = (key, fields) => fill(state.words.page[key], fields || {});
  const why = (key) => state.words.refused[key] || state.words.refused.refused || "";
  const say = (id, text) => { $(id).textContent = text; };
  const seconds = (s) => (s === null || s === undefined ? "–" : t("seconds", { s: s < 0.1 ? s.toFixed(3) : s.toFixed(2) }));
  const storeKey = "explainer-class-" + code;

  // A request's answer: ok, its status (0: no answer at all), its JSON (a refusal's "error") and
  // the seconds its Retry-After asks to wait (null: none; every 429 and 503 has one).
  async function request(path, init) {
    try {
      const r = await fetch(base + path, Object.assign({ cache: "no-store", credentials: "omit" }, init));
      let data = {};
      try { data = await r.json(); } catch (e) { data = {}; }
      const after = parseInt(r.headers.get("Retry-After") || "", 10);
      return { ok: r.ok, status: r.status, data: data, wait: after > 0 ? after : null };
    } catch (e) {
      return { ok: false, status: 0, data: { error: "busy" }, wait: null };
    }
  }
  // a refusal that passes: the room asked to wait (429, 503), or did not answer
  const passes = (r) => r.status === 0 || r.status === 429 || r.status === 503;
  // a refusal's words, with when to try again
  const refused = (r) => (r.wait ? why(r.data.error) + " " + t("retry_after", { s: r.wait }) : why(r.data.error));
  // run ``then`` once the refusal's wait is over (at once when it asked none)
  const after = (r, then) => setTimeout(() => { if (!state.ended) then(); }, (r.wait || 0) * 1000);
  const post = (path, body) =>
    request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });

  function remembered() {
    try { return sessionStorage.getItem(storeKey); } catch (e) { return null; }
  }
  function remember(device) {
    try { sessionStorage.setItem(storeKey, device); } catch (e) { /* a private tab: not kept */ }
  }

  // --- rounds -------------------------------------------------------------------------------
  function showRound(data) {
    state.round = data.round_id;
    state.choices = data.choices;
    $("reveal").hidden = true;
    $("vote").hidden = false;
    say("question", data.question);
    say("choices-label", t("choices"));
    const box = $("choices");
    box.replaceChildren();
    data.choices.forEach((token, i) => {
      const b = document.createElement("button");
      b.type = "button";
      b.className = "choice";
      b.dataset.choice = String(i);
      b.setAttribute("aria-label", t("choice", { n: i + 1, token: token }));
      b.setAttribute("aria-pressed", data.yours === i ? "true" : "false");
      const n = document.createElement("span");
      n.className = "n";
      n.setAttribute("aria-hidden", "true");
      n.textContent = String(i + 1);
      b.append(n, document.createTextNode(token));
      b.addEventListener("click", () => vote(i));
      box.append(b);
    });
    if (data.yours !== null && data.yours !== undefined) {
      lockChoices();
      say("status", t("vote_counted"));
    } else {
      say("status", "");
      $("question").focus(); // a screen reader reads the new question first
    }
  }

  function lockChoices() {
    for (const b of $("choices").querySelectorAll("button")) b.disabled = true;
  }

  async function vote(i) {
    const round = state.round;
    lockChoices();
    const r = await post("/vote", { device: state.device, round: round, choice: i });
    if (r.ok) {
      const chosen = $("choices").querySelector('[data-choice="' + i + '"]');
      if (chosen) chosen.setAttribute("aria-pressed", "true");
      say("status", t("vote_counted") + " " + t("voted_for", { token: state.choices[i] }));
      return;
    }
    say("status", refused(r));
    if (passes(r)) {
      after(r, () => {
        if (state.round !== round) return; // the screen moved on meanwhile
        for (const b of $("choices").querySelectorAll("button")) b.disabled = false;
        if (r.wait) say("status", why(r.data.error));
      });
    }
  }

  function showEnded() {
    lockChoices();
    say("status", t("round_ended"));
  }

  // The round was closed without a reveal: its choices go, and the phone waits for the next one.
  function showWithdrawn(data) {
    if (data.round_id !== state.round) return; // an older round's news: the one shown is newer
    state.round = null;
    $("vote").hidden = true;
    say("status", t("withdrawn"));
  }

  function showReveal(data) {
    const choices = data.choices.length ? data.choices : state.choices;
    const label = (i) => (i === null || i === undefined ? "–" : choices[i] !== undefined ? choices[i] : String(i + 1));
    $("vote").hidden = true;
    $("reveal").hidden = false;
    say("reveal-heading", t("result"));
    const yours = $("yours");
    yours.classList.toggle("right", data.yours === data.favourite);
    if (data.yours === null || data.yours === undefined) yours.textContent = t("no_vote");
    else if (data.yours === data.favourite) yours.textContent = t("right", { token: label(data.yours) });
    else yours.textContent = t("wrong", { token: label(data.yours), model: label(data.favourite) });
    const pct = (100 * data.probs[data.favourite]).toFixed(1);
    say("model", t("model_choice", { token: label(data.favourite), pct: pct }));
    const votes = data.class_pick === null ? 0 : data.votes[data.class_pick];
    const pick = { token: label(data.class_pick), votes: votes };
    say("class", data.class_pick === null ? t("class_none") : t(votes === 1 ? "class_choice_one" : "class_choice", pick));
    say("score", scoreText(data.right, data.rounds));
    say("status", "");
  }

  function scoreText(right, rounds) {
    if (rounds === 0) return t("score_none");
    if (rounds === 1) return t(right ? "score_first_right" : "score_first_wrong");
    return t("score", { right: right, rounds: rounds });
  }

  // --- the prompt -------------------------------------------------------------------------------
  // Characters as a reader counts them (a flag or a family emoji is one), as the server counts
  // them (explainer/illustration/characters.py): a textarea's maxlength counts UTF-16 units, so
  // it stopped at 150 emoji. A longer text is cut back to the first MAX characters as it is typed.
  const segmenter = typeof Intl === "object" && Intl.Segmenter ? new Intl.Segmenter(undefined, { granularity: "grapheme" }) : null;
  const characters = (text) => (segmenter ? Array.from(segmenter.segment(text), (s) => s.segment) : Array.from(text));
  function count() {
    const box = $("prompt");
    let chars = characters(box.value);
    if (chars.length > MAX || Array.from(box.value).length > 8 * MAX) {
      chars = characters(Array.from(box.value).slice(0, 8 * MAX).join("")).slice(0, MAX);
      box.value = chars.join("");
    }
    say("counter", t("counter", { n: chars.length, max: MAX }));
  }

  async function send(event) {
    event.preventDefault();
    const button = $("send");
    button.disabled = true;
    say("ask-status", t("sending"));
    // cleared before sending: the answer's first tokens may come on the channel before this reply
    $("reply").hidden = true;
    state.tokens = 0;
    say("answer-heading", t("answer"));
    say("answer", "");
    say("figures", "");
    const r = await post("/prompt", { device: state.device, text: $("prompt").value });
    if (!r.ok) {
      say("ask-status", refused(r));
      after(r, () => {
        button.disabled = false;
        if (r.wait) say("ask-status", why(r.data.error)); // the wait is over: no more "in 2 s"
      });
    }
  }

  function showRequest(kind, data) {
    const over = kind === "done" || kind === "declined";
    if (!over && kind !== "answer") $("send").disabled = true; // one request at a time
    if (kind === "held") say("ask-status", t("held", { number: data.number }));
    else if (kind === "declined") { $("send").disabled = false; say("ask-status", t("declined")); }
    else if (kind === "queued") say("ask-status", t("queued", { number: data.number, ahead: data.ahead }));
    else if (kind === "started") say("ask-status", t("started", { number: data.number, wait: seconds(data.wait_s) }));
    else if (kind === "reading") say("ask-status", t("reading"));
    else if (kind === "token") {
      if (data.n <= state.tokens) return; // already in the answer a reconnect caught up with
      state.tokens = data.n;
      $("reply").hidden = false;
      $("answer").append(document.createTextNode(data.text));
    } else if (kind === "answer") {
      state.tokens = data.tokens;
      $("reply").hidden = false;
      say("answer-heading", t("answer"));
      say("answer", data.text);
    } else if (kind === "done") {
      $("send").disabled = false;
      if (data.state !== "done") { say("ask-status", t("failed")); return; }
      say("ask-status", data.unfinished ? t("unfinished") : "");
      const fields = { wait: seconds(data.wait_s), ttft: seconds(data.ttft_s), tpot: seconds(data.tpot_s), tokens: data.tokens };
      say("figures", data.tpot_s === null ? t("figures_one", fields) : t("figures", fields));
    }
  }

  // --- the live channel -------------------------------------------------------------------------
  function listen() {
    const source = new EventSource(base + "/events?device=" + encodeURIComponent(state.device));
    state.source = source;
    const on = (kind, handle) => source.addEventListener(kind, (e) => handle(JSON.parse(e.data)));
    on("round", showRound);
    on("ended", showEnded);
    on("withdrawn", showWithdrawn);
    on("reveal", showReveal);
    for (const kind of ["held", "declined", "queued", "started", "reading", "token", "answer", "done"]) {
      on(kind, (d) => showRequest(kind, d));
    }
    on("replaced", () => { source.close(); say("status", t("replaced")); });
    on("closed", () => sessionEnded("ended"));
    source.addEventListener("open", () => {
      state.tries = 0;
      document.body.dataset.live = "open";
      if ($("status").textContent === t("offline") || state.retrying) say("status", state.round === null ? t("waiting") : "");
      state.retrying = false;
    });
    source.addEventListener("error", () => {
      if (state.ended || source !== state.source) return;
      if (source.readyState === EventSource.CLOSED) { lost(); return; }
      document.body.dataset.live = "retrying"; // a network blip: the browser reconnects by itself
      say("status", t("offline"));
    });
  }

  // The server answered the channel with a refusal (the browser gives up on any answer but a
  // stream): the room may be gone, a new session having a new code, so ask the room before
  // joining again, later and later (or after the wait it asks for), never in a tight loop.
  async function lost() {
    state.source.close();
    state.retrying = true;
    document.body.dataset.live = "retrying";
    const r = await request("/words.json");
    if (r.status === 404) { sessionEnded("ended_new"); return; }
    again(r.wait, false);
  }

  function again(wait, first) {
    if (state.ended) return;
    const s = wait || Math.min(30, 2 ** (state.tries + 1));
    state.tries += 1;
    say("status", t(first ? "join_again" : "retrying", { s: s }));
    state.timer = setTimeout(() => enter(first), s * 1000);
  }

  // Join the room (first: as the page opens; else again, keeping this phone's id), then listen.
  async function enter(first) {
    const joined = await post("/join", { device: state.device || remembered() });
    if (joined.status === 404) { sessionEnded("ended_new"); return; } // the room is gone
    if (!joined.ok && passes(joined)) { again(joined.wait, first); return; }
    if (!joined.ok) { say("status", why(joined.data.error) || t("no_join")); return; }
    state.device = joined.data.device;
    remember(state.device);
    if (first) ready();
    listen();
  }

  // The session is over: nothing more to listen to or send, and nothing is tried again.
  function sessionEnded(key) {
    state.ended = true;
    clearTimeout(state.timer);
    if (state.source) state.source.close();
    document.body.dataset.live = "ended";
    lockChoices();
    $("vote").hidden = true;
    $("send").disabled = true;
    $("prompt-form").hidden = true; // an answer already shown stays to read
    say("ask-status", "");
    $("ask").hidden = $("reply").hidden;
    say("status", t(key));
  }

  async function start() {
    try {
      const r = await fetch(base + "/words.json", { cache: "no-store", credentials: "omit" });
      if (!r.ok) throw new Error("words");
      state.words = await r.json();
    } catch (e) {
      document.body.dataset.live = "closed";
      return;
    }
    document.title = t("title");
    say("heading", t("heading"));
    say("room", t("room", { room: code }));
    say("status", t("joining"));
    enter(true);
  }

  // In the room: the prompt box, and the question to wait for.
  function ready() {
    state.tries = 0;
    say("status", t("waiting"));
    say("ask-heading", t("prompt_heading"));
    say("prompt-label", t("prompt_label"));
    say("send", t("send"));
    $("ask").hidden = false;
    count();
    $("prompt").addEventListener("input", count);
    $("prompt-form").addEventListener("submit", send);
    document.body.dataset.joined = "yes";
  }

  start();
})();
