// Around the table: "your turn" in the tab title (and, if asked for, a sound and a
// notification), reactions that fade, and the "Reconnecting…" banner while the live stream is
// down. The server renders everything; this file only reads data-* attributes.
(function () {
  "use strict";

  var SOUND_KEY = "penta.turnSound";
  var NOTIFY_KEY = "penta.turnNotify";
  var REACTION_MS = 5000;
  var baseTitle = document.title;
  var seenTurn = null; // the turn key of the last "your turn" the page has told about
  var firstLook = true; // the page as loaded: a turn already there has not just come
  var audio = null;

  function find(content, selector) {
    if (content.matches && content.matches(selector)) {
      return content;
    }
    return content.querySelector ? content.querySelector(selector) : null;
  }

  function stored(key) {
    try {
      return window.localStorage.getItem(key) === "on";
    } catch (error) {
      return false; // storage refused (private mode): nothing was asked for
    }
  }

  function store(key, on) {
    try {
      window.localStorage.setItem(key, on ? "on" : "off");
    } catch (error) {
      // the choice lasts for this page only
    }
  }

  // A short two-note chime made in the browser: no audio file to fetch.
  function chime() {
    var Context = window.AudioContext || window.webkitAudioContext;
    if (!Context) {
      return;
    }
    audio = audio || new Context();
    var start = audio.currentTime;
    [660, 880].forEach(function (frequency, index) {
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      var at = start + index * 0.15;
      tone.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, at);
      gain.gain.exponentialRampToValueAtTime(0.2, at + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.14);
      tone.connect(gain).connect(audio.destination);
      tone.start(at);
      tone.stop(at + 0.15);
    });
  }

  function notify(table) {
    if (!("Notification" in window) || Notification.permission !== "granted") {
      return;
    }
    var option = document.querySelector('[data-alert="notify"]');
    new Notification(table.dataset.turnTitle, {
      body: option ? option.dataset.notificationBody : "",
      tag: "penta-turn",
    });
  }

  function showTurn(table) {
    var mine = table.dataset.yourTurn === "true";
    document.title = mine ? table.dataset.turnTitle : baseTitle;
    document.body.dataset.yourTurn = mine ? "true" : "false";
    var key = table.dataset.turnKey;
    if (!mine) {
      seenTurn = null;
      return;
    }
    if (seenTurn === key || firstLook) {
      seenTurn = key;
      return;
    }
    seenTurn = key;
    if (stored(SOUND_KEY)) {
      chime();
    }
    if (stored(NOTIFY_KEY) && document.hidden) {
      notify(table);
    }
  }

  function setUpAlerts(panel) {
    panel.querySelectorAll("[data-alert]").forEach(function (box) {
      var key = box.dataset.alert === "sound" ? SOUND_KEY : NOTIFY_KEY;
      box.checked = stored(key);
      box.addEventListener("change", function () {
        store(key, box.checked);
        if (box.checked && box.dataset.alert === "sound") {
          chime(); // this click lets the page play sound; and the player hears what it is
        } else if (box.checked && "Notification" in window) {
          Notification.requestPermission().then(function (answer) {
            if (answer !== "granted") {
              box.checked = false;
              store(key, false);
            }
          });
        }
      });
    });
  }

  // Muted players (public games): kept per game on this browser, as the viewer's own choice.
  function muteKey(seat) {
    var group = document.querySelector("[data-mutes]");
    return group ? "penta.mute." + group.dataset.mutes + "." + seat : null;
  }

  function muted(seat) {
    var key = muteKey(seat);
    return key !== null && stored(key);
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("[data-mute-seat]");
    if (!button) {
      return;
    }
    var on = button.getAttribute("aria-pressed") !== "true";
    store(muteKey(button.dataset.muteSeat), on);
    button.setAttribute("aria-pressed", on ? "true" : "false");
  });

  htmx.onLoad(function (content) {
    var mutes = content.querySelectorAll ? content.querySelectorAll("[data-mute-seat]") : [];
    mutes.forEach(function (button) {
      button.setAttribute("aria-pressed", muted(button.dataset.muteSeat) ? "true" : "false");
    });
    var table = find(content, "#table[data-your-turn]");
    if (table) {
      showTurn(table);
      firstLook = false;
    }
    var panel = find(content, "[data-turn-alerts]");
    if (panel) {
      setUpAlerts(panel);
    }
    if (content.querySelectorAll) {
      var reactions = content.matches && content.matches("[data-reaction]")
        ? [content]
        : content.querySelectorAll("[data-reaction]");
      reactions.forEach(function (reaction) {
        if (muted(reaction.dataset.seat)) {
          reaction.remove(); // this viewer muted that player: never shown, never announced
          return;
        }
        window.setTimeout(function () {
          reaction.remove();
        }, REACTION_MS);
      });
    }
  });

  // The live stream: when it drops, say so and hold every action until the page is in step.
  // A page whose stream never opened has nothing to drop: it plays by request and answer,
  // and a refused action resyncs it.
  var connected = false;
  var reconnecting = false;

  function interactive(on) {
    document.querySelectorAll("#game .board, #table, .reactions").forEach(function (part) {
      part.inert = !on;
    });
  }

  document.addEventListener("htmx:sseError", function () {
    var banner = document.getElementById("reconnecting");
    if (!banner || !connected) {
      return;
    }
    reconnecting = true;
    banner.hidden = false;
    interactive(false);
  });

  document.addEventListener("htmx:sseOpen", function () {
    connected = true;
    var banner = document.getElementById("reconnecting");
    if (!reconnecting || !banner) {
      return;
    }
    var done = function () {
      reconnecting = false;
      banner.hidden = true;
      interactive(true);
    };
    // Resync: what the page shows may be older than what the server now has.
    window.Penta.resync().then(done, done);
  });

  document.addEventListener("htmx:beforeRequest", function (event) {
    if (reconnecting) {
      event.preventDefault(); // an action now would fail unseen: wait for the resync
    }
  });
})();
