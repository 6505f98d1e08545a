// Penta's client glue: the auto-confirm countdown, keyboard play, live-update ordering, and
// saying so when an action gets no answer.
// No game logic and no HTML building here: the server renders every state and every rule.
(function () {
  "use strict";

  var countdown = { key: null, deadline: 0, timer: null };
  // Confirm turn sits in the dice tray beside Roll, for the thumb (it submits the scoresheet).
  var CONFIRM = '#dice-tray [data-key="Enter"]';

  function boxSelected() {
    return document.querySelector('#scoresheet input[name="box"]:checked') !== null;
  }

  // The box the player chose (a tap, a click, Space, a box key), of this turn and roll. A box
  // the arrow keys pass over on their way through the sheet is selected but not chosen: at the
  // deadline the computer's box is recorded unless the selected box was chosen.
  var chosen = { turn: null, box: null };
  var browsing = false;

  function sheetTurn() {
    var sheet = document.getElementById("scoresheet");
    return sheet ? turnOf(sheet) : null;
  }

  function boxChosen() {
    var checked = document.querySelector('#scoresheet input[name="box"]:checked');
    return checked !== null && checked.value === chosen.box && chosen.turn === sheetTurn();
  }

  function stopCountdown() {
    if (countdown.timer !== null) {
      clearInterval(countdown.timer);
      countdown.timer = null;
    }
    var shown = document.querySelector("[data-countdown]");
    if (shown) {
      shown.classList.add("stopped");
    }
  }

  function tick() {
    var shown = document.querySelector("[data-countdown]");
    if (!shown) {
      stopCountdown();
      return;
    }
    var left = Math.max(0, countdown.deadline - Date.now());
    shown.querySelectorAll(".countdown-seconds").forEach(function (seconds) {
      seconds.textContent = String(Math.ceil(left / 1000));
    });
    showChoice(shown);
    if (left === 0) {
      stopCountdown();
      var form = shown.dataset.autoForm && document.getElementById(shown.dataset.autoForm);
      if (!form) {
        return;  // someone else's turn: the countdown is shown, not acted on
      }
      // The player's selected box is theirs at the deadline; nothing selected, the computer's.
      if (!(boxChosen() && press(CONFIRM))) {
        htmx.trigger(form, "penta:auto");
      }
    }
  }

  // The server sends the deadline it set (epoch ms), so a reload does not restart the count;
  // the full duration bounds it, in case this device's clock is off from the server's.
  function deadlineOf(shown) {
    var duration = parseFloat(shown.dataset.countdown) * 1000;
    var left = parseInt(shown.dataset.deadline, 10) - Date.now();
    if (isNaN(left)) {
      left = duration;
    }
    return Date.now() + Math.min(Math.max(left, 0), duration);
  }

  // The countdown's sentence: which of its two (server-rendered) lines is true now.
  function showChoice(shown) {
    var isChosen = boxChosen();
    var none = shown.querySelector(".countdown-none");
    var selected = shown.querySelector(".countdown-chosen");
    if (none && selected) {
      none.hidden = isChosen;
      selected.hidden = !isChosen;
    }
  }

  function startCountdown(shown) {
    var key = shown.dataset.countdownKey || "";
    if (key !== countdown.key) {
      countdown.key = key;
      countdown.deadline = deadlineOf(shown);
    }
    if (countdown.timer === null) {
      countdown.timer = setInterval(tick, 100);
    }
    tick();
  }

  // The turn timer of a game with friends: a display only, the server enforces it.
  var turnTimer = { key: null, deadline: 0, timer: null };

  function tickTurnTimer() {
    var shown = document.querySelector("[data-turn-deadline]");
    if (!shown) {
      clearInterval(turnTimer.timer);
      turnTimer.timer = null;
      return;
    }
    var left = Math.max(0, turnTimer.deadline - Date.now());
    shown.querySelector(".turn-seconds").textContent = String(Math.ceil(left / 1000));
  }

  function startTurnTimer(shown) {
    if (shown.dataset.turnKey !== turnTimer.key) {
      turnTimer.key = shown.dataset.turnKey;
      turnTimer.deadline = Date.now() + parseFloat(shown.dataset.turnDeadline) * 1000;
    }
    if (turnTimer.timer === null) {
      turnTimer.timer = setInterval(tickTurnTimer, 250);
    }
    tickTurnTimer();
  }

  function find(content, selector) {
    if (content.matches && content.matches(selector)) {
      return content;
    }
    return content.querySelector ? content.querySelector(selector) : null;
  }

  // A live fragment is rendered once for every reader of its version: the mover's controls
  // come hidden, marked with the mover's seat (data-only-seat), and the watchers' lines with
  // data-except-seat. This page shows those of the seat it holds (#game's data-seat; none when
  // it watches), as htmx swaps each fragment in (htmx:oobBeforeSwap, below). The server checks
  // the seat of every action all the same.
  function applySeat(content) {
    var game = document.getElementById("game");
    if (!game || !content.querySelectorAll) {
      return;
    }
    var seat = game.dataset.seat || "";
    var each = function (selector, apply) {
      content.querySelectorAll(selector).forEach(apply);
    };
    // What is not this page's is taken out, so that the page holds what it would have had
    // rendered for it alone (one Roll, one countdown, one line saying whose turn).
    each("[data-only-seat]", function (element) {
      if (element.dataset.onlySeat === seat) {
        element.hidden = false;
      } else {
        element.remove();
      }
    });
    each("[data-except-seat]", function (element) {
      if (element.dataset.exceptSeat === seat) {
        element.remove();
      } else {
        element.hidden = false;
      }
    });
    // What only a page with a seat has (the hand-over of an absent player's turn).
    each("[data-seated]", function (element) {
      if (seat === "") {
        element.remove();
      }
    });
    // Whose turn it is, for the table (table.js: the tab title and the turn's alerts).
    each("[data-turn-seat]", function (element) {
      element.dataset.yourTurn = element.dataset.turnSeat === seat ? "true" : "false";
    });
    each("[data-enable-seat]", function (element) {
      element.disabled = element.dataset.enableSeat !== seat;
    });
    each("[data-mark-seat]", function (element) {
      element.classList.toggle(element.dataset.mark, element.dataset.markSeat === seat);
    });
    // The sheet's header: swapped in with the whole sheet, or as a row of its own.
    each("th.player[data-seat]", function (element) {
      element.classList.toggle("me", element.dataset.seat === seat);
    });
  }

  htmx.onLoad(function (content) {
    var shown = find(content, "[data-countdown]");
    if (shown) {
      startCountdown(shown);
    }
    var turn = find(content, "[data-turn-deadline]");
    if (turn) {
      startTurnTimer(turn);
    }
    // A live update that moves the game elsewhere (the start, a rematch) takes the page along.
    var redirect = find(content, "[data-redirect]");
    if (redirect) {
      window.location.assign(redirect.dataset.redirect);
    }
  });

  // Fragments that arrive live are shared by every reader, so their forms carry no CSRF
  // token of their own: a plain (non-htmx) form gets this browser's token as it is sent.
  document.addEventListener("submit", function (event) {
    var field = event.target.querySelector('input[name="csrf_token"]');
    if (field && !field.value) {
      field.value = document.body.dataset.csrfToken;
    }
  }, true);

  // An empty name is refused by the browser in the page's language, not its own.
  document.addEventListener("invalid", function (event) {
    var field = event.target;
    if (field.dataset && field.dataset.missing && field.validity.valueMissing) {
      field.setCustomValidity(field.dataset.missing);
    }
  }, true);
  document.addEventListener("input", function (event) {
    if (event.target.dataset && event.target.dataset.missing) {
      event.target.setCustomValidity("");
    }
  });

  // The native share sheet, where the browser has one (phones): its button is shown then.
  function offerSharing() {
    if (navigator.share) {
      document.querySelectorAll("[data-share][hidden]").forEach(function (button) {
        button.hidden = false;
      });
    }
  }
  offerSharing();
  document.addEventListener("htmx:afterSettle", offerSharing);

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-share]") : null;
    if (!button || !navigator.share) {
      return;
    }
    var field = document.getElementById(button.dataset.share);
    navigator.share({ title: document.title, text: button.dataset.shareText, url: field.value })
      .catch(function () {
        // dismissed, or not allowed here: Copy link is beside it
      });
  });

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-copy]") : null;
    if (!button) {
      return;
    }
    var field = document.getElementById(button.dataset.copy);
    field.select();
    var done = function () {
      button.textContent = button.dataset.copied;
    };
    if (navigator.clipboard) {
      navigator.clipboard.writeText(field.value).then(done, done);
    } else {
      done();
    }
  });

  document.addEventListener("change", function (event) {
    var target = event.target;
    if (target.matches('#scoresheet input[name="box"]')) {
      chosen = browsing ? { turn: null, box: null } : { turn: sheetTurn(), box: target.value };
      browsing = false;
      var shown = document.querySelector("[data-countdown]");
      if (shown) {
        showChoice(shown);
      }
    } else if (target.matches("[data-autosubmit]")) {
      target.form.requestSubmit();
    }
  });

  // A change swaps in only the sheet's rows that differ: one that brings a new turn or roll
  // (#sheet-turn) leaves no box selected, as a whole new sheet would (a row whose offer is the
  // same on the new roll is not sent, and its radio would stay checked).
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var shown = event.detail.target;
    var incoming = shown.id === "sheet-turn" && event.detail.fragment.querySelector("#sheet-turn");
    if (!incoming || turnOf(incoming) === turnOf(shown)) {
      return;
    }
    var checked = document.querySelector('#scoresheet input[name="box"]:checked');
    if (checked) {
      checked.checked = false;
    }
  });

  // A scoresheet of the same turn and roll as the one shown (our own action's answer landing
  // after its live echo, or a resync) keeps the box the player has selected meanwhile.
  function turnOf(form) {
    var turn = form.querySelector('input[name="turn"]');
    var roll = form.querySelector('input[name="roll"]');
    return turn && roll ? turn.value + "/" + roll.value : null;
  }

  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    var shown = event.detail.target;
    var checked = shown.id === "scoresheet" && shown.querySelector('input[name="box"]:checked');
    var incoming = checked && event.detail.fragment.querySelector("#scoresheet");
    if (!incoming || turnOf(incoming) === null || turnOf(incoming) !== turnOf(shown)) {
      return;
    }
    var same = incoming.querySelector('input[name="box"][value="' + checked.value + '"]');
    if (same) {
      same.checked = true;
    }
  });

  // Live events are versions of the game, each sent once, in order. An ``update`` is the whole
  // board; a ``change`` only the fragments that differ from the version before, so it applies
  // only onto that version. One older than what the page shows (our own action's echo) is not
  // swapped in, so that it cannot undo a box the player has just selected; a change that finds
  // a version missing (the page skipped one) resyncs the whole board instead.
  function shownVersion() {
    var tray = document.getElementById("dice-tray");
    return tray ? parseInt(tray.dataset.version, 10) : 0;
  }

  // The board as it is now, in place of what the page shows (also after a reconnection:
  // table.js): a promise settled once it has been swapped in. One fetch at a time; a resync
  // asked for meanwhile, or a version heard and not shown when it lands, fetches again.
  // The answer goes in place of the tray that is there when it lands (the stream may have
  // swapped in another since it was asked for), and not at all if the page shows a newer
  // version by then: a board read before the stream's last versions would take the page
  // back, and no later change would mend it.
  var BOARD_VERSION = /id="dice-tray"[^>]*data-version="(\d+)"/;
  var fetching = null;
  var fetchAgain = false;

  function swapBoard(html) {
    var tray = document.getElementById("dice-tray");
    var answer = BOARD_VERSION.exec(html);
    if (!tray || (answer && parseInt(answer[1], 10) < shownVersion())) {
      return;
    }
    htmx.swap(tray, html, {
      swapStyle: "outerHTML",
      swapDelay: 0,
      settleDelay: htmx.config.defaultSettleDelay,
    });
  }

  function resync() {
    var game = document.getElementById("game");
    if (!game || !game.dataset.game) {
      return Promise.resolve();
    }
    if (fetching) {
      fetchAgain = true;
      return fetching;
    }
    fetchAgain = false;
    var answered = false;
    fetching = fetch("/games/" + game.dataset.game + "/board", {
      headers: { "HX-Request": "true" },
    })
      .then(function (answer) {
        answered = answer.ok;
        return answered ? answer.text().then(swapBoard) : undefined;
      })
      .catch(function () {
        answered = false; // no answer: the next version, or the reconnection, asks again
      })
      .then(function () {
        fetching = null;
        if (answered && (fetchAgain || heard > shownVersion())) {
          return resync();
        }
        return undefined;
      });
    return fetching;
  }

  window.Penta = { resync: resync };

  // The stream's version of our own action (its echo) usually comes before the action's
  // answer, and is shown at once. With hints on, it waits for the answer instead: the answer
  // is this seat's own rendering (the dice and box the hints mark), the stream's everyone's.
  // A version the page heard of meanwhile and the answer did not bring is fetched after it.
  var acting = 0;
  var heard = 0;

  // An action is over when its request is (loadend, after htmx has swapped the answer in),
  // heard on the request itself: htmx:afterRequest is dispatched on the element that sent
  // it, which the stream may have taken out of the page meanwhile (a roll's echo swaps in a
  // new tray, its Roll button with it), and would never reach the document.
  document.addEventListener("htmx:beforeSend", function (event) {
    var xhr = event.detail.xhr;
    var config = event.detail.requestConfig;
    if (!xhr || !config || config.verb !== "post") {
      return;
    }
    acting += 1;
    xhr.addEventListener("loadend", function () {
      acting -= 1; // once a request: its loadend comes once, after its beforeSend
      if (acting === 0 && heard > shownVersion()) {
        resync(); // a version heard meanwhile that the answer did not bring
      }
    });
  });

  document.addEventListener("htmx:sseBeforeMessage", function (event) {
    var type = event.detail.type;
    if (type !== "update" && type !== "change") {
      return; // the table, reactions (table.js) and hints are not versions of the game
    }
    var version = parseInt(event.detail.lastEventId, 10);
    heard = isNaN(version) ? heard : Math.max(heard, version);
    if (acting > 0 && document.querySelector('#hints .hints-toggle button[aria-pressed="true"]')) {
      event.preventDefault();
      return;
    }
    var game = document.getElementById("game");
    if (game && (event.detail.data || "").indexOf("data-seat-lost") !== -1) {
      // The seat moved to another device: this page watches now, from this event's first
      // fragment on (applySeat reads the seat as each fragment is swapped in). What a change
      // leaves in place still shows the seat's controls: the whole board follows, once.
      if (game.dataset.seat) {
        window.setTimeout(resync, 0);
      }
      game.dataset.seat = "";
    }
    var shown = shownVersion();
    var incoming = parseInt(event.detail.lastEventId, 10);
    if (isNaN(incoming) || isNaN(shown)) {
      return;
    }
    if (incoming <= shown) {
      event.preventDefault();
    } else if (type === "change" && incoming !== shown + 1) {
      event.preventDefault();
      resync();
    } else if (type === "change" && document.getElementById("dice-tray")) {
      // A change may leave the tray in place (a hold sends its die alone): the page is at
      // the change's version all the same, which the tray it swaps in (if any) carries too.
      document.getElementById("dice-tray").dataset.version = String(incoming);
    }
  });

  // The seat's own fragments of a shared live rendering are shown before they are swapped in.
  document.addEventListener("htmx:oobBeforeSwap", function (event) {
    applySeat(event.detail.fragment);
  });

  // An action's answer that comes after a newer version has been shown is not swapped in.
  function skipOlderAnswer(event) {
    var xhr = event.detail.xhr;
    if (!xhr || xhr.status !== 200 || !event.detail.requestConfig) {
      return;
    }
    if (event.detail.requestConfig.verb !== "post") {
      return;
    }
    var answer = BOARD_VERSION.exec(xhr.responseText || "");
    if (answer && parseInt(answer[1], 10) < shownVersion()) {
      event.detail.shouldSwap = false;
    }
  }

  document.addEventListener("htmx:beforeSwap", skipOlderAnswer);

  // An action that got no answer of Penta's (no connection, or a proxy's error page while no
  // worker answers) says so, in the message the page holds, rather than seem to ignore the
  // click; shown anew at each failure, so that each is announced. Penta's own 5xx (busy,
  // could not save) carries its message (#flash, out of band) and is swapped for it; any
  // answer of Penta's hides the page's message again, a reaction's empty 204 too.
  var NO_ANSWER = '#flash [data-error-code="no_answer"]';

  function carriesMessage(xhr) {
    var answer = new DOMParser().parseFromString(xhr.responseText || "", "text/html");
    return answer.getElementById("flash") !== null;
  }

  function showNoAnswer(shown) {
    var message = document.querySelector(NO_ANSWER);
    if (!message) {
      return;
    }
    message.hidden = true;
    if (shown) {
      window.requestAnimationFrame(function () {
        message.hidden = false;
      });
    }
  }

  function sayIfNoAnswer(event) {
    var xhr = event.detail.xhr;
    if (!xhr) {
      return;
    }
    var ours = xhr.status < 500 || carriesMessage(xhr);
    if (xhr.status >= 500) {
      event.detail.shouldSwap = ours;
    }
    showNoAnswer(!ours);
  }

  document.addEventListener("htmx:beforeSwap", sayIfNoAnswer);

  // An action's answer goes in place of the tray it was sent from (hx-target, found as it is
  // sent). When the stream has swapped in another tray meanwhile (the action's own echo,
  // or a version after it), htmx would swap the answer into a tray no longer in the page:
  // only its out-of-band parts would land, an older version's sheet over a newer one, and
  // htmx:beforeSwap, dispatched on that tray, would not reach the document's listeners
  // above. The answer goes to the tray that is there, checked as any other.
  document.addEventListener("htmx:beforeSend", function (event) {
    var sentTo = event.detail.target;
    var xhr = event.detail.xhr;
    if (!sentTo || sentTo.id !== "dice-tray") {
      return;
    }
    var retarget = function (swap) {
      if (swap.detail.xhr !== xhr) {
        return; // another action's answer
      }
      sentTo.removeEventListener("htmx:beforeSwap", retarget);
      var tray = document.getElementById("dice-tray");
      if (sentTo.isConnected || !tray) {
        return; // in the page: heard on the document as any other
      }
      swap.detail.target = tray;
      skipOlderAnswer(swap);
      sayIfNoAnswer(swap);
    };
    sentTo.addEventListener("htmx:beforeSwap", retarget);
  });

  document.addEventListener("htmx:sendError", function () {
    showNoAnswer(true);
  });

  function press(selector) {
    var button = document.querySelector(selector);
    if (button && !button.disabled) {
      button.click();
      return true;
    }
    return false;
  }

  // An arrow key on a box moves the selection: the change it makes is not a choice.
  document.addEventListener("keydown", function (event) {
    if (event.key.indexOf("Arrow") === 0 && event.target.matches('#scoresheet input[name="box"]')) {
      browsing = true;
      window.setTimeout(function () {
        browsing = false;
      }, 0);
    }
  }, true);

  // The box keys are the letters A to M: as typed on a Latin keyboard, else (Hebrew, Thai) by
  // the key's place, where a Latin keyboard has them.
  function boxKey(event) {
    var typed = /^[a-z]$/i.test(event.key) ? event.key.toLowerCase() : null;
    var placed = /^Key[A-Z]$/.test(event.code || "") ? event.code.slice(3).toLowerCase() : null;
    var letter = typed || placed;
    return letter && letter >= "a" && letter <= "m" ? letter : null;
  }

  // A box key chooses its box, as a tap on its row does.
  function chooseBox(key) {
    var radio = document.querySelector('#scoresheet input[name="box"][data-box-key="' + key + '"]');
    if (!radio) {
      return false;
    }
    radio.checked = true;
    radio.focus();
    radio.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    var target = event.target;
    if (target.matches && target.matches("input:not([type=radio]), select, textarea")) {
      return;
    }
    var key = event.key;
    var handled = false;
    if (key >= "1" && key <= "5") {
      handled = press('#dice-tray [data-key="' + key + '"]');
    } else if (key === "r" || key === "R") {
      handled = press('#dice-tray [data-key="r"]');
    } else if (key === "Enter" && boxSelected()) {
      handled = press(CONFIRM);
    } else if (boxKey(event)) {
      handled = chooseBox(boxKey(event));
    }
    if (handled) {
      event.preventDefault();
    }
  });
})();
