// Browser hook replaying recordings/campus-taro.har (portal "campus", user taro; see
// /work/shared/foreign/recordings/README.md and record.py, function campus).
//
// What the person does, in one tab, starting at http://127.0.0.1:8471/campus/:
//   IdP (127.0.0.1:8472): the local-storage page submits itself; types user name "taro" and
//   password "sakura2026", presses "Login"; the SAML POST page submits itself.
//   Portal (127.0.0.1:8471): home "ようこそ taro さん" -> link 成績照会 (/campus/seiseki) ->
//   chooses 2025年度 後期 (gakki=2025-2) and presses 表示 -> Back -> Back -> link 貸出状況
//   (/campus/kashidashi) -> Back -> link お知らせ (/campus/news.atom) -> closes the window
//   (unitoolHook("done")).
//
// Contract: runs at the start of every document in every frame; acts only in the top frame after
// the DOM is there; the portal's progress is kept in the portal origin's sessionStorage.
(function () {
  "use strict";
  if (window.top !== window) return;

  var PORTAL = "http://127.0.0.1:8471";
  var IDP = "http://127.0.0.1:8472";
  var USER = "taro";
  var PASSWORD = "sakura2026";       // public test password of the foreign campus portal
  var PAUSE = 250;                   // ms between a person's actions
  var STEP_KEY = "unitoolHook.step";

  // The portal pages in the order the person sees them, and what the person does on each.
  var STEPS = [
    { at: "/campus/", act: function () { return clickLink("成績照会"); } },
    { at: "/campus/seiseki", act: function () { return chooseTermAndShow("2025-2"); } },
    { at: "/campus/seiseki?gakki=2025-2", act: back },
    { at: "/campus/seiseki", act: back },
    { at: "/campus/", act: function () { return clickLink("貸出状況"); } },
    { at: "/campus/kashidashi", act: back },
    { at: "/campus/", act: function () { return clickLink("お知らせ"); } },
    { at: "/campus/news.atom", act: finish },
  ];

  function sleep(ms) { return new Promise(function (r) { setTimeout(r, ms); }); }
  function log(msg) { try { console.log("[unitool hook] " + msg); } catch (e) { /* ignore */ } }

  function type(el, value) {
    el.focus();
    el.value = value;
    el.dispatchEvent(new Event("input", { bubbles: true }));
    el.dispatchEvent(new Event("change", { bubbles: true }));
  }

  function findLink(text) {
    var links = document.querySelectorAll("a");
    for (var i = 0; i < links.length; i++) {
      if (links[i].textContent.replace(/\s+/g, " ").trim() === text) return links[i];
    }
    return null;
  }

  function clickLink(text) {
    var a = findLink(text);
    if (!a) { log("no link " + text); return; }
    a.click();
  }

  async function chooseTermAndShow(term) {
    var sel = document.querySelector("select[name=gakki]");
    type(sel, term);
    await sleep(PAUSE);
    document.querySelector("input[type=submit][value='表示']").click();
  }

  function back() { history.back(); }

  function finish() { unitoolHook("done"); }

  // The IdP's login page: user name, password, "Login" (not "Windows login").
  async function login() {
    var pw = document.querySelector("input[name=j_password]");
    if (!pw) return;                      // the local-storage and SAML POST pages submit themselves
    if (sessionStorage.getItem("unitoolHook.login")) { log("login page again: not retrying"); return; }
    sessionStorage.setItem("unitoolHook.login", "1");
    type(document.querySelector("#username"), USER);
    await sleep(PAUSE);
    type(pw, PASSWORD);
    await sleep(PAUSE);
    document.querySelector("button[name=_eventId_proceed]").click();
  }

  async function portal() {
    var step = parseInt(sessionStorage.getItem(STEP_KEY) || "0", 10);
    if (step >= STEPS.length) return;
    var here = location.pathname + location.search;
    if (here !== STEPS[step].at) { log("step " + step + ": expected " + STEPS[step].at + ", at " + here); return; }
    sessionStorage.setItem(STEP_KEY, String(step + 1));
    await STEPS[step].act();
  }

  var busy = false;
  async function run() {
    if (busy) return;
    busy = true;
    try {
      await sleep(PAUSE);
      if (location.origin === IDP) await login();
      else if (location.origin === PORTAL) await portal();
    } catch (e) {
      log("error: " + e);
    } finally {
      busy = false;
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", run, { once: true });
  else run();
  // A page shown again from the back/forward cache is not a new document: act on it too.
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) run(); });
})();
