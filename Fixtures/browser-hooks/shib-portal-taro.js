// Browser hook replaying recordings/shib-portal-taro.har (portal "shib-portal", user taro; see
// /work/shared/foreign/recordings/README.md and record.py, function shib_portal).
//
// What the person does, in one tab, starting at http://127.0.0.1:8481/campus/:
//   IdP (127.0.0.1:8482): the local-storage page submits itself; types user name "taro" and
//   password "sakura2026" (the check boxes left unchecked), presses "Login"; the SAML POST page
//   submits itself.
//   Portal (127.0.0.1:8481, Shift_JIS pages with a menu on the left): トップ -> menu 成績照会
//   (/campus/seiseki) -> chooses 2025年度 前期 (gakki=2025-1) and presses 表示 -> menu 利用規約
//   (/campus/terms.html) -> Back -> menu 貸出状況 (/campus/kashidashi, a Koha OPAC page) -> its
//   brand link 附属図書館 (back to /campus/) -> menu お知らせ (/campus/news.atom) -> closes the
//   window (unitoolHook("done")).
//   "menu X" is the first link whose text is exactly X (the left menu comes before the page body).
//
// Contract: runs at the start of every document in every frame; acts only in the top frame after
// the DOM is there; the portal's progress is kept in the portal origin's sessionStorage.
(function () {
  "use strict";
  if (window.top !== window) return;

  var PORTAL = "http://127.0.0.1:8481";
  var IDP = "http://127.0.0.1:8482";
  var USER = "taro";
  var PASSWORD = "sakura2026";       // public test password of the foreign shib-portal
  var PAUSE = 250;                   // ms between a person's actions
  var STEP_KEY = "unitoolHook.step";

  // The portal pages in the order the person sees them, and what the person does on each.
  var STEPS = [
    { at: "/campus/", act: function () { return clickLink("成績照会"); } },
    { at: "/campus/seiseki", act: function () { return chooseTermAndShow("2025-1"); } },
    { at: "/campus/seiseki?gakki=2025-1", act: function () { return clickLink("利用規約"); } },
    { at: "/campus/terms.html", act: back },
    { at: "/campus/seiseki?gakki=2025-1", act: function () { return clickLink("貸出状況"); } },
    { at: "/campus/kashidashi", act: function () { return clickLink("附属図書館"); } },
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

  // The IdP's login page: user name, password, "Login" (not "Windows login"); the check boxes
  // ("Don't Remember Login", "Clear prior granting of permission") are left as they are.
  async function login() {
    var pw = document.querySelector("input[name=j_password]");
    if (!pw) return;                      // the local-storage and SAML POST pages submit themselves
    if (sessionStorage.getItem("unitoolHook.login")) { log("login page again: not retrying"); return; }
    sessionStorage.setItem("unitoolHook.login", "1");
    type(document.querySelector("#username"), USER);
    await sleep(PAUSE);
    type(pw, PASSWORD);
    await sleep(PAUSE);
    pw.form.querySelector("button[name=_eventId_proceed]").click();
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
