// The board's feel on top of the server-rendered fragments: the whole scoresheet row selects
// its box, dice tumble once per roll, a Penta and the upper bonus are celebrated, new dice are
// announced, focus lands on the next sensible control, "?" shows the keys.
// No game logic and no HTML building here: the server marks what happened.
(function () {
  "use strict";

  // The row's name is already a <label> (works without JS); a tap anywhere else in the row
  // selects the box too, as a change the countdown (penta.js) listens to.
  document.addEventListener("click", function (event) {
    var row = event.target.closest ? event.target.closest("#scoresheet tr.selectable") : null;
    if (!row || event.target.closest("label, input")) {
      return;
    }
    var radio = row.querySelector('input[name="box"]');
    if (radio && !radio.checked) {
      radio.checked = true;
      radio.dispatchEvent(new Event("change", { bubbles: true }));
    }
    if (radio) {
      radio.focus();
    }
  });

  // Only a new roll tumbles: not the page's first tray (a reload is not a roll), not a tray
  // re-rendered by a hold. The same roll often lands twice (the live echo and the answer to
  // our own request, in either order): the second tray continues the tumble where the first
  // left it, rather than cutting it short. TUMBLE_MS matches die-tumble in penta.css.
  var TUMBLE_MS = 450;
  var seen = false;
  var lastRoll = null;
  var rolledAt = -Infinity;

  function tumble(tray) {
    var roll = tray.dataset.roll || null;
    var now = performance.now();
    var isNew = seen && roll !== null && roll !== lastRoll;
    seen = true;
    if (isNew) {
      rolledAt = now;
    } else if (roll === null || roll !== lastRoll || now - rolledAt >= TUMBLE_MS) {
      lastRoll = roll;
      return;
    }
    lastRoll = roll;
    var elapsed = now - rolledAt;
    tray.querySelectorAll("[data-rolled]").forEach(function (die) {
      die.style.animationDelay = -elapsed + "ms";
      die.classList.add("tumble");
    });
    if (tray.hasAttribute("data-penta")) {
      tray.classList.add("celebrate");
    }
    if (isNew) {
      document.dispatchEvent(new CustomEvent("penta:rolled")); // site.js may rattle
      var announcer = document.getElementById("dice-announcer");
      if (announcer) {
        announcer.textContent = tray.dataset.announce || "";
      }
    }
  }

  // The upper bonus: a cell that held 0 and now holds the bonus has just been reached. As with
  // the dice, a second rendering of the same sheet continues the flash (BONUS_MS, penta.css).
  var BONUS_MS = 2400;
  var bonuses = null;
  var reachedAt = {};

  function celebrateBonus(sheet) {
    var cells = sheet.querySelectorAll("tr.upper-bonus td");
    var now = performance.now();
    cells.forEach(function (cell, seat) {
      var value = cell.textContent.trim();
      if (bonuses !== null && bonuses[seat] === "0" && value !== "0") {
        reachedAt[seat] = now;
      }
      if (reachedAt[seat] !== undefined && now - reachedAt[seat] < BONUS_MS) {
        cell.style.animationDelay = -(now - reachedAt[seat]) + "ms";
        cell.classList.add("celebrate");
      }
    });
    bonuses = Array.prototype.map.call(cells, function (cell) {
      return cell.textContent.trim();
    });
  }

  // Focus: an action replaces the control that had it; give it to the same control in the
  // new fragment (the same die), else to the next thing to do (Roll, Confirm, a box, what to
  // do after the game). Only when the focus was in the game, so that nothing is stolen.
  var focusKey = null;

  document.addEventListener("htmx:beforeRequest", function () {
    var active = document.activeElement;
    focusKey = active && active.closest && active.closest("#game") ? active.dataset.key || "" : null;
  });

  document.addEventListener("htmx:afterSettle", function () {
    var active = document.activeElement;
    if (focusKey === null || (active && active !== document.body && document.contains(active))) {
      return;
    }
    var candidates = [
      focusKey ? '#dice-tray [data-key="' + focusKey + '"]:not([disabled])' : null,
      '#dice-tray [data-key="r"]',
      '#dice-tray [data-key="Enter"]',
      '#scoresheet input[name="box"]',
      "#status .after-game .primary",
    ];
    for (var index = 0; index < candidates.length; index += 1) {
      var target = candidates[index] && document.querySelector(candidates[index]);
      if (target) {
        target.focus();
        break;
      }
    }
    focusKey = null;
  });

  // A game page opens with Roll in focus when it is this player's turn: no Tabs to reach it.
  document.addEventListener("DOMContentLoaded", function () {
    var roll = document.querySelector('#dice-tray [data-key="r"]');
    if (roll && (!document.activeElement || document.activeElement === document.body)) {
      roll.focus({ preventScroll: true });
    }
  });

  document.addEventListener("keydown", function (event) {
    if (event.key !== "?" || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    if (event.target.matches && event.target.matches("input:not([type=radio]), select, textarea")) {
      return;
    }
    var list = document.getElementById("shortcuts");
    if (list) {
      list.open = !list.open;
      list.querySelector("summary").focus();
      event.preventDefault();
    }
  });

  htmx.onLoad(function (content) {
    var tray = content.id === "dice-tray" ? content : content.querySelector("#dice-tray");
    if (tray) {
      tumble(tray);
    }
    var sheet = content.id === "scoresheet" ? content : content.querySelector("#scoresheet");
    if (!sheet && content.id === "sheet-upper-bonus") {
      sheet = content.closest("#scoresheet"); // a change may swap in that row alone
    }
    if (sheet) {
      celebrateBonus(sheet);
    }
  });
})();
