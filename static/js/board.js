// The board's feel on top of the server-rendered fragments: the whole scoresheet row selects
// its box, dice tumble once per roll. No game logic and no HTML building here.
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
  }

  htmx.onLoad(function (content) {
    var tray = content.id === "dice-tray" ? content : content.querySelector("#dice-tray");
    if (tray) {
      tumble(tray);
    }
  });
})();
