// Browser hook replaying recordings/saml-peer-alice.har (portal "saml-peer", user alice; see
// /work/shared/foreign/recordings/README.md and record.py, function saml_peer).
//
// What the person does, in one tab, starting at the SP's front page http://127.0.0.1:8492/:
//   SP (127.0.0.1:8492): "Not signed in" -> clicks "My grades" (/grades).
//   IdP (SimpleSAMLphp, 127.0.0.1:8491): on "Enter your username and password" types user name
//   "alice" and password "wonderland" and presses Login (#submit_button); the "POST data" page
//   posts itself (post.js).
//   SP: /grades ("Signed in as alice") -> closes the window (unitoolHook("done")).
//
// Contract: runs at the start of every document in every frame; acts only in the top frame after
// the DOM is there; the SP's progress is kept in the SP origin's sessionStorage.
(function () {
  "use strict";
  if (window.top !== window) return;

  var PORTAL = "http://127.0.0.1:8492";   // the SP
  var IDP = "http://127.0.0.1:8491";
  var USER = "alice";
  var PASSWORD = "wonderland";       // public test password of the foreign saml-peer IdP
  var PAUSE = 250;                   // ms between a person's actions
  var STEP_KEY = "unitoolHook.step";

  // The SP's pages in the order the person sees them, and what the person does on each.
  var STEPS = [
    { at: "/", act: function () { return clickLink("My grades"); } },
    { at: "/grades", act: finish },
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

  function finish() { unitoolHook("done"); }

  // SimpleSAMLphp's login page (form f): user name, password, the Login button (#submit_button).
  async function login() {
    var pw = document.querySelector("form[name=f] input[name=password]");
    if (!pw) return;                      // the "POST data" page posts itself (post.js)
    if (sessionStorage.getItem("unitoolHook.login")) { log("login page again: not retrying"); return; }
    sessionStorage.setItem("unitoolHook.login", "1");
    type(document.querySelector("#username"), USER);
    await sleep(PAUSE);
    type(pw, PASSWORD);
    await sleep(PAUSE);
    document.querySelector("#submit_button").click();
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
