// Every page: the theme chosen in this browser (before the first paint: this script is not
// deferred), its toggle, the optional dice sound, and the service worker that makes Penta
// installable.
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

  // Scripts run: the phone's header folds into its menu (penta.css, html.js).
  root.classList.add("js");

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

  // The site menu of a phone's header: the button opens and closes it, Escape closes it.
  function setMenu(button, open) {
    var menu = document.getElementById(button.getAttribute("aria-controls"));
    button.setAttribute("aria-expanded", open ? "true" : "false");
    if (menu) {
      menu.toggleAttribute("data-open", open);
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-menu-toggle]") : null;
    if (button) {
      setMenu(button, button.getAttribute("aria-expanded") !== "true");
    }
  });

  document.addEventListener("keydown", function (event) {
    var button = document.querySelector('[data-menu-toggle][aria-expanded="true"]');
    if (event.key === "Escape" && button) {
      setMenu(button, false);
      button.focus();
    }
  });

  // The dice sound: off until this browser turns it on (remembered), made by the Web Audio API
  // (no audio file), played when board.js says a roll landed. <html data-sound> tells the
  // page's state; the AudioContext is made only once a person has touched the page, as
  // browsers ask, and only when the sound is on.
  var SOUND_KEY = "penta-sound";
  var soundOn = false;
  try {
    soundOn = window.localStorage.getItem(SOUND_KEY) === "on";
  } catch (error) {
    soundOn = false;
  }
  root.dataset.sound = soundOn ? "on" : "off";
  var audio = null;

  function audioContext() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!audio && Context) {
      audio = new Context();
    }
    if (audio && audio.state === "suspended") {
      audio.resume();
    }
    return audio;
  }

  function rattle() {
    var context = audioContext();
    if (!context) {
      return;
    }
    // A few short clicks of filtered noise, each fading fast: dice knocking together.
    var rate = context.sampleRate;
    var noise = context.createBuffer(1, Math.round(rate * 0.04), rate);
    var samples = noise.getChannelData(0);
    for (var index = 0; index < samples.length; index += 1) {
      samples[index] = (Math.random() * 2 - 1) * Math.pow(1 - index / samples.length, 3);
    }
    var start = context.currentTime + 0.01;
    for (var knock = 0; knock < 5; knock += 1) {
      var source = context.createBufferSource();
      var filter = context.createBiquadFilter();
      var gain = context.createGain();
      source.buffer = noise;
      filter.type = "bandpass";
      filter.frequency.value = 1800 + Math.random() * 2200;
      filter.Q.value = 4;
      gain.gain.value = 0.35 - knock * 0.05;
      source.connect(filter);
      filter.connect(gain);
      gain.connect(context.destination);
      source.start(start + knock * 0.06 + Math.random() * 0.03);
    }
  }

  function showSoundToggle() {
    document.querySelectorAll("[data-sound-toggle]").forEach(function (button) {
      button.hidden = false;
      button.setAttribute("aria-pressed", soundOn ? "true" : "false");
    });
  }

  document.addEventListener("DOMContentLoaded", showSoundToggle);

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-sound-toggle]") : null;
    if (!button) {
      return;
    }
    soundOn = !soundOn;
    root.dataset.sound = soundOn ? "on" : "off";
    try {
      window.localStorage.setItem(SOUND_KEY, soundOn ? "on" : "off");
    } catch (error) {
      // not remembered, but on for this page
    }
    if (soundOn) {
      audioContext(); // inside the click: the browser lets it start
    }
    showSoundToggle();
  });

  document.addEventListener("penta:rolled", function () {
    var touched = !navigator.userActivation || navigator.userActivation.hasBeenActive;
    if (soundOn && touched) {
      rattle();
    }
  });

  if ("serviceWorker" in navigator) {
    window.addEventListener("load", function () {
      navigator.serviceWorker.register("/sw.js").catch(function () {
        // no worker (an insecure origin, a locked-down browser): the site works as before
      });
    });
  }
})();
