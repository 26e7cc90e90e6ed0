// The join page: the class address without a room, or with a code that is no room's, asks for
// the room's code and goes to that room's page. Every text comes from the server's words
// (class_page.json); what is typed only ever becomes a value and a path, never HTML. Submitting
// is this script's (the page's CSP allows no form action).
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const say = (id, text) => { $(id).textContent = text; };
  // the line under the box: a mistake to fix (the box marked too), or news
  function tell(text, mistake) {
    say("join-status", text);
    $("join-status").classList.toggle("mistake", mistake);
    if (mistake) $("code").setAttribute("aria-invalid", "true");
    else $("code").removeAttribute("aria-invalid");
  }
  // a room code is letters and digits; a phone's keyboard may add a space or a lower case
  const clean = (text) => String(text || "").toUpperCase().replace(/[^A-Z0-9]/g, "");

  // /r/CODE served this page: that code is no room's now
  function tried() {
    const parts = location.pathname.split("/");
    if (parts[1] !== "r" || !parts[2]) return "";
    try { return clean(decodeURIComponent(parts[2])); } catch (e) { return clean(parts[2]); }
  }

  // this tab was in that room (the class page keeps its id under this key): its session ended
  function wasIn(code) {
    try { return sessionStorage.getItem("explainer-class-" + code) !== null; } catch (e) { return false; }
  }

  async function start() {
    let words = {};
    try {
      const r = await fetch("/words.json", { cache: "no-store", credentials: "omit" });
      if (!r.ok) throw new Error("words");
      words = (await r.json()).join || {};
    } catch (e) {
      document.body.dataset.ready = "failed";
      return;
    }
    const t = (key) => String(words[key] || "");
    document.title = t("title");
    say("heading", t("heading"));
    say("code-label", t("label"));
    say("code-hint", t("hint"));
    say("join", t("button"));
    const box = $("code");
    const code = tried();
    if (code && wasIn(code)) tell(t("ended"), false); // the old room: a new code is needed
    else if (code) {
      box.value = code; // shown again, to spot the typo
      tell(t("wrong"), true);
    }
    $("join-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = clean(box.value);
      if (!typed) {
        tell(t("empty"), true);
        box.focus();
        return;
      }
      location.assign("/r/" + encodeURIComponent(typed));
    });
    document.body.dataset.ready = "yes";
  }

  start();
})();
