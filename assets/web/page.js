// The replay of one recorded run (explainer/export/web.py writes the page around this script).
// The run is one deflated JSON document in base64 (#run-data): the distinct panel drawings per
// theme (SVG markup in canvas coordinates), and per frame the drawing numbers of its panels, the
// position line, the caption in pieces (a piece with a term links to its definition), the frame
// in words and where "next token" jumps. Nothing here asks the network for anything.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const words = JSON.parse($("words-json").textContent);
  const player = $("player");
  const canvas = $("canvas");
  const SVG = canvas.namespaceURI; // (the inline <svg> is in the SVG namespace already)
  let run = null;
  let index = 0;
  let theme = document.documentElement.dataset.theme;
  let timer = null;
  const nodes = new Map(); // "theme/number" -> the drawing's <g>, parsed once

  async function inflate() {
    const text = $("run-data").textContent.trim();
    const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return JSON.parse(await new Response(stream).text());
  }

  function drawing(number) {
    const key = theme + "/" + number;
    let g = nodes.get(key);
    if (!g) {
      g = document.createElementNS(SVG, "g");
      g.innerHTML = run.drawings[theme][number];
      nodes.set(key, g);
    }
    return g;
  }

  function caption(frame) {
    ExplainerCaption.show(frame, run.terms, $("heading"), $("text"), $("terms"));
  }

  function show(i, announce = true) {
    index = Math.max(0, Math.min(run.frames.length - 1, i));
    const frame = run.frames[index];
    canvas.replaceChildren(...frame.d[theme].map(drawing));
    caption(frame);
    $("position").textContent = frame.position;
    $("words").textContent = frame.words;
    $("description").textContent = frame.words; // what aria-describedby reads, open details or not
    $("ill").setAttribute("aria-label", words.diagram + ": " + frame.heading);
    if (announce) $("live").textContent = frame.words;
    player.dataset.index = String(index);
    player.dataset.stage = frame.stage;
    $("reset").disabled = index === 0;
    $("prev").disabled = index === 0;
    $("next").disabled = index === run.frames.length - 1;
    $("next_token").disabled = frame.next_token === null;
    if (timer !== null && index === run.frames.length - 1) pause();
    fit();
  }

  // Alone in a window, the picture is at most as tall as leaves its caption in view (the bar
  // and title above it, the caption below): its width is capped, so it keeps the canvas's
  // aspect. In a frame the holder grows to the page instead (it is told the height below).
  const framed = window.parent !== window;
  if (framed) document.documentElement.classList.add("framed");
  function fit() {
    if (!framed) {
      const top = $("ill").getBoundingClientRect().top + window.scrollY;
      const below = $("caption").getBoundingClientRect().height + 16;
      const room = Math.max(160, window.innerHeight - top - below);
      canvas.style.maxWidth = Math.floor((room * 1600) / CANVAS_HEIGHT) + "px";
    }
    tellHeight();
  }

  // In an iframe (a course page, an LMS) the page tells its holder how tall it is, so the
  // holder can size the frame to it (the snippet in the README); alone it says nothing.
  let told = -1;
  function tellHeight() {
    if (!framed) return;
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === told) return;
    told = height;
    window.parent.postMessage({ type: "explainer-height", height: height }, "*");
  }

  function pause() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").textContent = words.play;
    $("play").setAttribute("aria-pressed", "false");
  }

  function play() {
    if (timer !== null) return pause();
    if (index === run.frames.length - 1) show(0);
    timer = setInterval(() => show(index + 1), PLAY_MS);
    $("play").textContent = words.pause;
    $("play").setAttribute("aria-pressed", "true");
  }

  const commands = {
    reset: () => { pause(); show(0); },
    prev: () => show(index - 1),
    play: play,
    next: () => show(index + 1),
    next_token: () => {
      const target = run.frames[index].next_token;
      if (target !== null) show(target);
    },
  };
  // the app's keys (explainer/ui/actions.py); presentation clickers send Page Up / Page Down
  const keys = {
    " ": "next", ArrowRight: "next", PageDown: "next",
    ArrowLeft: "prev", PageUp: "prev", Backspace: "prev",
    n: "next_token", N: "next_token", ArrowDown: "next_token",
    p: "play", P: "play", Home: "reset",
  };

  function onKey(event) {
    if (!run || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target === $("ill") && event.key === "Enter") return $("ill").click(); // as a tap on it
    if (target instanceof HTMLSelectElement || target instanceof HTMLInputElement) return;
    if (target instanceof HTMLButtonElement && (event.key === " " || event.key === "Enter")) return; // the button's own
    const name = keys[event.key];
    if (!name) return;
    event.preventDefault();
    commands[name]();
  }

  function setTheme(name) {
    if (!(name in run.drawings)) return;
    theme = name;
    document.documentElement.dataset.theme = name;
    show(index, false);
  }

  async function start() {
    for (const name of Object.keys(commands)) {
      const button = $(name);
      button.textContent = words[name];
      if (words[name + "_tip"]) button.title = words[name + "_tip"];
      button.addEventListener("click", () => commands[name]());
    }
    if (typeof DecompressionStream === "undefined") {
      $("unsupported").hidden = false;
      player.dataset.state = "unsupported";
      return;
    }
    run = await inflate();
    document.addEventListener("keydown", onKey);
    // the picture at its full size, in its own sideways scroll (a phone shows it a fifth as wide)
    $("ill").addEventListener("click", () => { $("ill").classList.toggle("large"); fit(); });
    const select = $("theme");
    if (select) {
      select.value = theme;
      select.addEventListener("change", () => setTheme(select.value));
    }
    show(0, false);
    window.addEventListener("resize", fit);
    if (typeof ResizeObserver !== "undefined") new ResizeObserver(tellHeight).observe(document.body);
    player.dataset.state = "ready";
  }

  start().catch((error) => {
    player.dataset.state = "failed";
    $("position").textContent = String(error);
  });
})();
