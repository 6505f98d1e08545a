// Every page: the theme chosen in this browser (before the first paint: this script is not
// deferred), its toggle, and the service worker that makes Penta installable.
(function () {
  "use strict";

  var KEY = "penta-theme";
  var root = document.documentElement;

  function stored() {
    try {
      return window.localStorage.getItem(KEY);
    } catch (error) {
      return null; // storage refused (private mode): the system's preference applies
    }
  }

  var chosen = stored();
  if (chosen === "dark" || chosen === "light") {
    root.dataset.theme = chosen;
  }

  function isDark() {
    if (root.dataset.theme) {
      return root.dataset.theme === "dark";
    }
    return window.matchMedia("(prefers-color-scheme: dark)").matches;
  }

  function showToggle() {
    document.querySelectorAll("[data-theme-toggle]").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", isDark() ? "true" : "false");
    });
  }

  document.addEventListener("DOMContentLoaded", showToggle);
  window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", showToggle);

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-theme-toggle]") : null;
    if (!button) {
      return;
    }
    var theme = isDark() ? "light" : "dark";
    root.dataset.theme = theme;
    try {
      window.localStorage.setItem(KEY, theme);
    } catch (error) {
      // not remembered, but applied to this page
    }
    showToggle();
  });

  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js").catch(function () {
        // no worker (an insecure origin, a locked-down browser): the site works as before
      });
    });
  }
})();
