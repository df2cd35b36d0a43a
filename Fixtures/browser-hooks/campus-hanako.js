// Browser hook replaying recordings/campus-hanako.har (portal "campus", user hanako, with TOTP;
// see /work/shared/foreign/recordings/README.md and record.py, function campus).
//
// What the person does, in one tab, starting at http://127.0.0.1:8471/campus/:
//   IdP (127.0.0.1:8472): the local-storage page submits itself; types user name "hanako" and
//   password "ume2026", presses "Login"; on the one-time-code page types the current TOTP code
//   (RFC 6238, HMAC-SHA1, 6 digits, 30 s, secret JBSWY3DPEHPK3PXP, computed here with
//   crypto.subtle; like record.py it waits until at least 8 s of the code's 30 s are left) and
//   presses "Verify"; the SAML POST page submits itself.
//   Portal (127.0.0.1:8471): home "ようこそ hanako さん" -> link 貸出状況 (/campus/kashidashi) ->
//   Back -> link 成績照会 (/campus/seiseki) -> closes the window (unitoolHook("done")).
//
// Contract: runs at the start of every document in every frame; acts only in the top frame after
// the DOM is there; the portal's progress is kept in the portal origin's sessionStorage.
(function () {
  "use strict";
  if (window.top !== window) return;

  var PORTAL = "http://127.0.0.1:8471";
  var IDP = "http://127.0.0.1:8472";
  var USER = "hanako";
  var PASSWORD = "ume2026";          // public test password of the foreign campus portal
  var TOTP_SECRET = "JBSWY3DPEHPK3PXP"; // public test TOTP secret (base32)
  var PAUSE = 250;                   // ms between a person's actions
  var STEP_KEY = "unitoolHook.step";

  // The portal pages in the order the person sees them, and what the person does on each.
  var STEPS = [
    { at: "/campus/", act: function () { return clickLink("貸出状況"); } },
    { at: "/campus/kashidashi", act: back },
    { at: "/campus/", act: function () { return clickLink("成績照会"); } },
    { at: "/campus/seiseki", act: finish },
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

  function back() { history.back(); }

  function finish() { unitoolHook("done"); }

  // RFC 6238 TOTP (SHA-1, 6 digits, 30-s steps) with WebCrypto; 127.0.0.1 is a secure context.
  function base32(s) {
    var alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", bits = 0, value = 0, out = [];
    s = s.replace(/=+$/, "").toUpperCase();
    for (var i = 0; i < s.length; i++) {
      value = (value << 5) | alphabet.indexOf(s[i]);
      bits += 5;
      if (bits >= 8) { out.push((value >>> (bits - 8)) & 255); bits -= 8; }
    }
    return new Uint8Array(out);
  }

  async function totp(secret, nowMs) {
    var counter = Math.floor(nowMs / 1000 / 30);
    var msg = new Uint8Array(8);
    for (var i = 7; i >= 0; i--) { msg[i] = counter & 255; counter = Math.floor(counter / 256); }
    var key = await crypto.subtle.importKey("raw", base32(secret), { name: "HMAC", hash: "SHA-1" }, false, ["sign"]);
    var mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, msg));
    var off = mac[mac.length - 1] & 15;
    var bin = ((mac[off] & 127) << 24) | (mac[off + 1] << 16) | (mac[off + 2] << 8) | mac[off + 3];
    return String(bin % 1000000).padStart(6, "0");
  }

  // A code with at least 8 s of its 30-s step left, so that it is still current when posted.
  async function freshTotp(secret) {
    while (30 - (Date.now() / 1000) % 30 < 8) await sleep(500);
    return totp(secret, Date.now());
  }

  // The IdP's one-time-code page: the code, "Verify".
  async function oneTimeCode() {
    if (sessionStorage.getItem("unitoolHook.otp")) { log("one-time-code page again: not retrying"); return; }
    sessionStorage.setItem("unitoolHook.otp", "1");
    var input = document.querySelector("#fudiscr-form input[name=fudis_otp_input]");
    type(input, await freshTotp(TOTP_SECRET));
    await sleep(PAUSE);
    document.querySelector("#fudiscr-form button[name=_eventId_proceed]").click();
  }

  // The IdP's login page: user name, password, "Login" (not "Windows login").
  async function login() {
    if (document.querySelector("#fudiscr-form input[name=fudis_otp_input]")) return oneTimeCode();
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
