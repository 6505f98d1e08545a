// Verifiable dice in the browser (docs/fairness.md): this browser's seed for the dice, sent
// with the join and start forms, and "Check the dice", which recomputes every roll of a
// finished game from its log with WebCrypto's HMAC-SHA256. The browser keeps (in
// localStorage, for its last MAX_GAMES games) the commitment it was first shown and the seed
// it gave, and the check compares the log with them. No HTML is built here: the messages
// come translated in data-* attributes and are set as text.
(function () {
  "use strict";

  var SKIPPED_FROM = 252; // bytes from 252 up are skipped, so that every face is as likely
  var MAX_GAMES = 200; // games whose commitment and seed are kept; the oldest go first
  var PREFIX = "penta:fairness:";

  // What this browser keeps of a game: {commitment, seed}; {} when nothing (or no storage).
  function kept(game) {
    try {
      return JSON.parse(localStorage.getItem(PREFIX + game) || "{}");
    } catch (error) {
      return {};
    }
  }

  // Keep a game's commitment (the first one shown is the one to compare with) or this
  // browser's seed (the last one it gave: the start's replaces the one sent before).
  function keep(game, field, value, replace) {
    try {
      var entry = kept(game);
      if (entry[field] && !replace) {
        return;
      }
      entry[field] = value;
      localStorage.setItem(PREFIX + game, JSON.stringify(entry));
      var games = JSON.parse(localStorage.getItem(PREFIX + "games") || "[]");
      games = games.filter(function (other) { return other !== game; });
      games.push(game);
      while (games.length > MAX_GAMES) {
        localStorage.removeItem(PREFIX + games.shift());
      }
      localStorage.setItem(PREFIX + "games", JSON.stringify(games));
    } catch (error) {
      // No storage (private mode, full): the check then compares with nothing kept.
    }
  }

  function gameOfForm(form) {
    var match = /\/games\/([A-Za-z0-9_-]+)\//.exec(form.getAttribute("action") || "");
    return match ? match[1] : null;
  }

  // The commitment the page shows is kept the first time it is seen, and a seed given with
  // the home page's form (before the game had an id) is given to the first game it seats.
  function remember() {
    var section = document.querySelector("#fairness[data-commitment]");
    if (!section) {
      return;
    }
    var game = section.dataset.game;
    keep(game, "commitment", section.dataset.commitment);
    var page = document.getElementById("game");
    var pending = null;
    try {
      pending = localStorage.getItem(PREFIX + "pending");
    } catch (error) {
      return;
    }
    if (pending && page && page.dataset.seat) {
      keep(game, "seed", pending);
      localStorage.removeItem(PREFIX + "pending");
    }
  }

  function randomSeed() {
    var bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (byte) {
      return byte.toString(16).padStart(2, "0");
    }).join("");
  }

  // A form's seed is made as it is sent: a page that stays open long gives a fresh one.
  document.addEventListener("submit", function (event) {
    var field = event.target.querySelector("input[data-client-seed]");
    if (field && !field.value) {
      field.value = randomSeed();
      var game = gameOfForm(event.target);
      if (game) {
        keep(game, "seed", field.value, true);
      } else {
        try {
          localStorage.setItem(PREFIX + "pending", field.value);
        } catch (error) {
          // no storage: nothing to compare with later
        }
      }
    }
  }, true);

  function hexBytes(hex) {
    var bytes = new Uint8Array(hex.length / 2);
    for (var index = 0; index < bytes.length; index++) {
      bytes[index] = parseInt(hex.substr(index * 2, 2), 16);
    }
    return bytes;
  }

  function hex(buffer) {
    return Array.prototype.map.call(new Uint8Array(buffer), function (byte) {
      return byte.toString(16).padStart(2, "0");
    }).join("");
  }

  // The faces of one roll, as many as it needs: HMAC blocks k = 0, 1, … of its message.
  async function faces(key, message, count) {
    var result = [];
    var encoder = new TextEncoder();
    for (var block = 0; result.length < count; block++) {
      var digest = await crypto.subtle.sign("HMAC", key, encoder.encode(message + ":" + block));
      var bytes = new Uint8Array(digest);
      for (var index = 0; index < bytes.length && result.length < count; index++) {
        if (bytes[index] < SKIPPED_FROM) {
          result.push(bytes[index] % 6 + 1);
        }
      }
    }
    return result;
  }

  function asciiHex(text) {
    return Array.prototype.map.call(text, function (character) {
      return character.charCodeAt(0).toString(16).padStart(2, "0");
    }).join("");
  }

  // The message of roll n: scheme 2 names each seat and gives its seed in hex; scheme 1, of
  // older games, joined the seeds with ":".
  function rollMessage(log, n) {
    var seeds = log.fairness.client_seeds;
    if (log.fairness.scheme === 1) {
      return log.game_id + ":" + n + ":" + seeds.map(function (seat) {
        return seat.client_seed;
      }).join(":");
    }
    return "2:" + log.game_id + ":" + n + ":" + seeds.map(function (seat) {
      return seat.seat + "=" + asciiHex(seat.client_seed);
    }).join(",");
  }

  // Whether the log is a whole, well-formed transcript (the checks of docs/fairness.md).
  function wellFormed(log) {
    var fairness = log.fairness || {};
    var rolls = log.rolls;
    var seats = log.seats;
    var hex64 = /^[0-9a-f]{64}$/;
    if (!Array.isArray(rolls) || !Number.isInteger(seats) || seats < 1 || seats > 6 ||
        !Array.isArray(log.computers) || !Array.isArray(fairness.client_seeds) ||
        [1, 2].indexOf(fairness.scheme) < 0 ||
        !hex64.test(fairness.server_seed || "") || !hex64.test(fairness.commitment || "")) {
      return false;
    }
    var humans = [];
    for (var seat = 0; seat < seats; seat++) {
      if (log.computers.indexOf(seat) < 0) {
        humans.push(seat);
      }
    }
    var seeded = fairness.client_seeds.map(function (entry) { return entry && entry.seat; });
    if (seeded.join() !== humans.join() || !fairness.client_seeds.every(function (entry) {
      return typeof entry.client_seed === "string";
    })) {
      return false;
    }
    var turn = 0;
    var inTurn = 0;
    for (var n = 0; n < rolls.length; n++) {
      var roll = rolls[n];
      var next = n > 0 && roll.turn === turn + 1;
      if (roll.n !== n || (roll.turn !== turn && !next)) {
        return false;
      }
      turn = next ? turn + 1 : turn;
      inTurn = next ? 1 : inTurn + 1;
      if (inTurn > 3 || roll.seat !== turn % seats || !Array.isArray(roll.held) ||
          roll.held.length !== 5 || !Array.isArray(roll.dice) || roll.dice.length !== 5 ||
          (inTurn === 1 && roll.held.some(Boolean)) ||
          !roll.dice.every(function (die) { return Number.isInteger(die) && die >= 1 && die <= 6; })) {
        return false;
      }
    }
    return log.status !== "finished" || (rolls.length > 0 && turn === 13 * seats - 1);
  }

  // The problems found in a log: [] when every roll matches.
  async function check(log, messages, mine) {
    if (!wellFormed(log)) {
      return [messages.malformed];
    }
    var fairness = log.fairness;
    var seed = hexBytes(fairness.server_seed);
    var problems = [];
    if (hex(await crypto.subtle.digest("SHA-256", seed)) !== fairness.commitment) {
      problems.push(messages.badCommitment);
    }
    var own = kept(log.game_id);
    if (own.commitment && own.commitment !== fairness.commitment) {
      problems.push(messages.otherCommitment);
    }
    var given = fairness.client_seeds.filter(function (entry) { return entry.seat === mine; });
    if (own.seed && given.length && given[0].client_seed !== own.seed) {
      problems.push(messages.otherSeed);
    }
    var key = await crypto.subtle.importKey(
      "raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]
    );
    var before = [0, 0, 0, 0, 0];
    for (var n = 0; n < log.rolls.length; n++) {
      var roll = log.rolls[n];
      var free = roll.held.filter(function (held) { return !held; }).length;
      var dealt = await faces(key, rollMessage(log, n), free);
      var dice = roll.held.map(function (held, index) {
        return held ? before[index] : dealt.shift();
      });
      if (dice.join() !== roll.dice.join()) {
        problems.push(messages.mismatch
          .replace("{number}", String(n))
          .replace("{logged}", roll.dice.join(" "))
          .replace("{expected}", dice.join(" ")));
      }
      before = dice;
    }
    return problems;
  }

  async function run(button) {
    var result = button.parentNode.querySelector(".fairness-result");
    var messages = button.dataset;
    if (!window.crypto || !crypto.subtle) {
      result.textContent = messages.unavailable;
      return;
    }
    button.disabled = true;
    result.textContent = messages.checking;
    try {
      var answer = await fetch(button.dataset.fairnessCheck, { headers: { Accept: "application/json" } });
      if (!answer.ok) {
        throw new Error(String(answer.status));
      }
      var log = await answer.json();
      var page = document.getElementById("game");
      var mine = page && page.dataset.seat !== "" ? Number(page.dataset.seat) : null;
      var problems = await check(log, messages, mine);
      result.textContent = problems.length
        ? problems.join(" ")
        : messages.allMatch.replace("{count}", String(log.rolls.length));
      result.classList.toggle("mismatch", problems.length > 0);
      result.classList.toggle("match", problems.length === 0);
    } catch (error) {
      result.textContent = messages.failed;
    } finally {
      button.disabled = false;
    }
  }

  remember();
  document.addEventListener("htmx:afterSettle", remember);

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-fairness-check]") : null;
    if (button) {
      run(button);
    }
  });
})();
