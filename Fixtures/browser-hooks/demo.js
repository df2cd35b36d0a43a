// The person signing in to the demo university as alice (password wonderland) in the browser,
// for the tests of `unitool auth login --browser` (Tests/EndToEndTests/BrowserLoginTests.swift):
// on each sign-in page of the demo's IdP (the script-built page of login=script-built, the user
// ID page, the password page, the one form of both) it types what a person would and presses the
// page's own button. Each page is answered once, so a refused password does not loop. Signed in,
// it opens Grades from the portal's menu and ends the visit there (`unitoolHook("done")`), as a
// person recording their grades for `recipes new --record` does.
(function () {
  if (window.top !== window) return;
  function type(field, value) {
    field.value = value;
    field.dispatchEvent(new Event("input", { bubbles: true }));
    field.dispatchEvent(new Event("change", { bubbles: true }));
  }
  function act() {
    if (document.querySelector("a#logout")) {
      if (location.pathname === "/grades") {
        unitoolHook("done");
      } else if (!sessionStorage.getItem("unitool-demo-hook:grades")) {
        sessionStorage.setItem("unitool-demo-hook:grades", "1");
        setTimeout(function () { document.querySelector("nav a[href='/grades']").click(); }, 100);
      }
      return;
    }
    var key = "unitool-demo-hook:" + location.pathname + location.search;
    if (sessionStorage.getItem(key)) return;
    var user = document.querySelector("input[name=login], input[name=j_username]");
    var password = document.querySelector("input[name=passwd], input[name=j_password]");
    if (!user && !password) return;
    sessionStorage.setItem(key, "1");
    if (user) type(user, "alice");
    if (password) type(password, "wonderland");
    var button = document.querySelector("#idSIButton9, button[name=_eventId_proceed]");
    setTimeout(function () { button.click(); }, 100);
  }
  addEventListener("load", act);
})();
