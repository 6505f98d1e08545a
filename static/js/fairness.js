// Verifiable dice in the browser (docs/fairness.md): this browser's seed for the dice, sent
// with the join and start forms, and "Check the dice", which recomputes every roll of a
// finished game from its log with WebCrypto's HMAC-SHA256. No HTML is built here: the
// messages come translated in data-* attributes and are set as text.
(function () {
  "use strict";

  var SKIPPED_FROM = 252; // bytes from 252 up are skipped, so that every face is as likely

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

  // The problems found in a log: [] when every roll matches.
  async function check(log, messages) {
    var fairness = log.fairness;
    var seed = hexBytes(fairness.server_seed);
    var problems = [];
    if (hex(await crypto.subtle.digest("SHA-256", seed)) !== fairness.commitment) {
      problems.push(messages.badCommitment);
    }
    var key = await crypto.subtle.importKey(
      "raw", seed, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]
    );
    var clientSeeds = fairness.client_seeds.map(function (seat) {
      return seat.client_seed;
    }).join(":");
    var before = [0, 0, 0, 0, 0];
    for (var n = 0; n < log.rolls.length; n++) {
      var roll = log.rolls[n];
      var free = roll.held.filter(function (held) { return !held; }).length;
      var dealt = await faces(key, log.game_id + ":" + n + ":" + clientSeeds, free);
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
      var problems = await check(log, messages);
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

  document.addEventListener("click", function (event) {
    var button = event.target.closest ? event.target.closest("[data-fairness-check]") : null;
    if (button) {
      run(button);
    }
  });
})();
