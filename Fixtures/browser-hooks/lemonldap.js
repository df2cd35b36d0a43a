// The person signing in at LemonLDAP::NG 2.16's own portal as msmith (password msmith), for the
// interop test of `unitool auth login --browser` with a WebAuthn second factor
// (Tests/EndToEndTests/LemonLDAPInteropTests.swift): on the login form it types the user name
// and password and presses the form's button, once. The second factor is LemonLDAP's own
// page, whose script asks the browser for the security key; the test's virtual authenticator
// (UNITOOL_BROWSER_VIRTUAL_AUTHENTICATOR) answers it, as a person touching their key would.
(function () {
  if (window.top !== window) return;
  function act() {
    var user = document.querySelector("form input[name=user]");
    var password = document.querySelector("form input[name=password]");
    if (!user || !password || sessionStorage.getItem("unitool-lemonldap-hook")) return;
    sessionStorage.setItem("unitool-lemonldap-hook", "1");
    user.value = "msmith";
    password.value = "msmith";
    var button = user.form.querySelector("button[type=submit]");
    setTimeout(function () { button.click(); }, 100);
  }
  addEventListener("load", act);
})();
