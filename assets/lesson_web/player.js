// The illustration of the recorded run, stepped by keys and buttons (explainer/lesson_web/page.py
// puts this in the lesson page). The drawings and each frame's words are the web page export's
// (explainer/export/web_run.py): a frame is a list of drawing numbers per theme. The lesson adds
// frames drawn with the next token held back (a guess open in Predict), the outline a tour step
// points with, and the chart as a table. Nothing here decides anything about the learner.
"use strict";
const ExplainerPlayer = (() => {
  const $ = (id) => document.getElementById(id);

  /** A block of the page (a <script type="application/octet-stream">): base64 of deflated bytes
   * (read by the browser's own base64 decoder where it has one: several times faster on a phone). */
  async function inflateBytes(id) {
    const text = $(id).textContent.trim();
    const bytes = typeof Uint8Array.fromBase64 === "function"
      ? Uint8Array.fromBase64(text) : Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  async function inflateJson(id) {
    return JSON.parse(new TextDecoder().decode(await inflateBytes(id)));
  }

  /** A pass's scores (explainer/lesson_web/logits.py: float32 in four byte planes). */
  async function scores(id) {
    const planes = await inflateBytes(id);
    const n = planes.length / 4;
    const bytes = new Uint8Array(planes.length);
    for (let b = 0; b < 4; b++) for (let i = 0; i < n; i++) bytes[i * 4 + b] = planes[b * n + i];
    return new Float32Array(bytes.buffer);
  }

  /** The drawings (export/web_run.py's ``drawings``), in blocks of a few dozen per theme, in the
   * order the run first shows them: a block is inflated when a frame first needs one of its
   * drawings, so the page opens having read only what its first frame shows, however long the run. */
  const blocks = new Map(); // "theme/block" -> a promise of the block's drawings
  const loaded = new Map(); // "theme/block" -> the block's drawings, once inflated
  function block(theme, b) {
    const key = theme + "/" + b;
    if (!blocks.has(key)) {
      blocks.set(key, inflateJson("drawings-" + key.replace("/", "-")).then((list) => { loaded.set(key, list); return list; }));
    }
    return blocks.get(key);
  }
  const hasTheme = (name) => Boolean($("drawings-" + name + "-0"));

  function create(run, lesson, words, onShown) {
    const canvas = $("drawing");
    const SVG = canvas.namespaceURI;
    const nodes = new Map();
    const main = run.hidden ? run.hidden.length : run.frames.length;
    let theme = document.documentElement.dataset.theme;
    let index = 0;
    let timer = null;
    let holdBack = () => false; // whether a guess is open at a pass (lesson.js sets the rule)
    let outlined = null;

    const per = run.block; // drawings per block (explainer/lesson_web/page.py)
    const blocksOf = (numbers) => [...new Set(numbers.map((n) => Math.floor(n / per)))];
    const ready = (numbers) => blocksOf(numbers).every((b) => loaded.has(theme + "/" + b));

    function drawing(number) {
      const key = theme + "/" + number;
      let g = nodes.get(key);
      if (!g) {
        g = document.createElementNS(SVG, "g");
        g.innerHTML = loaded.get(theme + "/" + Math.floor(number / per))[number % per];
        nodes.set(key, g);
      }
      return g;
    }

    function caption(frame) {
      ExplainerCaption.show(frame, run.terms, $("heading"), $("text"), $("terms"));
    }

    function chartTable(number) {
      const t = lesson.charts[number];
      const w = words.app.chart_table;
      const box = $("chart");
      box.replaceChildren();
      if (t.state === "empty" || t.state === "hidden") {
        const p = document.createElement("p");
        p.textContent = t.state === "empty" ? w.empty : w.hidden;
        box.append(p);
        return;
      }
      const table = document.createElement("table");
      const cap = document.createElement("caption");
      cap.className = "sr";
      cap.textContent = w.title;
      const head = document.createElement("tr");
      for (const k of ["token", "raw", "final", "kept", "chosen"]) {
        const th = document.createElement("th");
        th.scope = "col";
        th.textContent = w[k];
        head.append(th);
      }
      table.append(cap, head);
      for (const row of t.rows) {
        const tr = document.createElement("tr");
        row.forEach((cell, i) => {
          const td = document.createElement(i === 0 ? "th" : "td");
          if (i === 0) td.scope = "row";
          else td.className = i < 3 ? "num" : "";
          td.textContent = cell || (i >= 2 ? w.not_yet : "");
          tr.append(td);
        });
        table.append(tr);
      }
      box.append(table);
    }

    /** The frame number to draw for cursor ``i``: its held-back twin while a guess is open there. */
    function shown(i) {
      const held = run.hidden ? run.hidden[i] : null;
      const f = lesson.frames[i];
      return held !== null && held !== undefined && holdBack(f.step, f.stage) ? held : i;
    }

    function show(i, announce = true) {
      index = Math.max(0, Math.min(main - 1, i));
      const k = shown(index);
      const frame = run.frames[k];
      const numbers = frame.d[theme];
      if (ready(numbers)) canvas.replaceChildren(...numbers.map(drawing));
      else {
        const want = theme + "/" + k;
        Promise.all(blocksOf(numbers).map((b) => block(theme, b))).then(() => {
          if (theme + "/" + shown(index) === want) canvas.replaceChildren(...numbers.map(drawing));
        });
      }
      const ahead = run.frames[Math.min(main - 1, index + 6)].d[theme]; // the next frames' blocks, read ahead
      setTimeout(() => blocksOf(ahead).forEach((b) => block(theme, b)), 50);
      caption(frame);
      chartTable(lesson.frames[k].chart);
      $("position").textContent = frame.position;
      $("words").textContent = frame.words;
      $("description").textContent = frame.words;
      $("ill").setAttribute("aria-label", words.app.access.diagram + ": " + frame.heading);
      if (announce) $("live").textContent = frame.words;
      $("reset").disabled = index === 0;
      $("prev").disabled = index === 0;
      $("next").disabled = index === main - 1;
      $("next_token").disabled = frame.next_token === null;
      if (timer !== null && index === main - 1) pause();
      drawOutline();
      onShown(lesson.frames[index]);
    }

    function drawOutline() {
      const rect = $("outline");
      const r = outlined && outlined.panel ? lesson.outlines[outlined.panel] : null;
      rect.setAttribute("visibility", r ? "visible" : "hidden");
      if (r) {
        rect.setAttribute("x", r[0] - 5);
        rect.setAttribute("y", r[1] - 5);
        rect.setAttribute("width", r[2] + 10);
        rect.setAttribute("height", Math.min(r[3] + 10, lesson.canvas[1] - r[1]));
      }
      $("caption").classList.toggle("pointed", Boolean(outlined && outlined.caption));
    }

    function pause() {
      if (timer !== null) clearInterval(timer);
      timer = null;
      $("play").textContent = words.app.actions.play;
      $("play").setAttribute("aria-pressed", "false");
    }

    function play() {
      if (timer !== null) return pause();
      if (index === main - 1) show(0);
      timer = setInterval(() => show(index + 1), 1500);
      $("play").textContent = words.app.actions.pause;
      $("play").setAttribute("aria-pressed", "true");
    }

    const commands = {
      reset: () => { pause(); show(0); },
      prev: () => show(index - 1),
      play,
      next: () => show(index + 1),
      next_token: () => {
        const target = run.frames[index].next_token;
        if (target !== null) show(target);
      },
    };
    const keys = {
      " ": "next", ArrowRight: "next", PageDown: "next", ArrowLeft: "prev", PageUp: "prev",
      n: "next_token", N: "next_token", Home: "reset",
    };

    function onKey(event) {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      const t = event.target;
      if (t === $("ill") && event.key === "Enter") { $("ill").click(); return; }
      if (t instanceof HTMLInputElement || t instanceof HTMLSelectElement || t instanceof HTMLTextAreaElement) return;
      if ((t instanceof HTMLButtonElement || t instanceof HTMLAnchorElement || t instanceof HTMLElement && t.getAttribute("role") === "tab")
        && (event.key === " " || event.key === "Enter" || event.key.startsWith("Arrow") || event.key === "Home")) return;
      if (t instanceof HTMLElement && t.tagName === "SUMMARY" && (event.key === " " || event.key === "Enter")) return;
      const name = keys[event.key];
      if (!name) return;
      event.preventDefault();
      commands[name]();
    }

    for (const name of Object.keys(commands)) {
      const button = $(name);
      button.textContent = words.app.actions[name];
      const tip = words.app.actions[name + "_tip"];
      if (tip) button.title = tip;
      button.addEventListener("click", () => commands[name]());
    }
    document.addEventListener("keydown", onKey);
    $("ill").addEventListener("click", () => $("ill").classList.toggle("large"));

    return {
      show,
      get index() { return index; },
      get count() { return main; },
      frame: (i) => lesson.frames[i],
      /** The frame of ``step`` at ``stage``, or -1 when the run has none. */
      find: (step, stage) => lesson.frames.slice(0, main).findIndex((f) => f.step === step && f.stage === stage),
      setHoldBack(rule) { holdBack = rule; },
      refresh: () => show(index, false),
      setOutline(target) { outlined = target; drawOutline(); },
      setTheme(name) {
        if (!hasTheme(name)) return;
        theme = name;
        document.documentElement.dataset.theme = name;
        show(index, false);
      },
    };
  }

  /** The blocks the first frame of ``theme`` needs, read before the page is shown. */
  function prepare(run, theme, frame) {
    const per = run.block;
    return Promise.all([...new Set(run.frames[frame].d[theme].map((n) => Math.floor(n / per)))].map((b) => block(theme, b)));
  }

  return { inflateJson, scores, prepare, create };
})();
