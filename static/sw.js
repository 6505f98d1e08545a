// Penta's service worker: keeps the static files and a friendly offline page, nothing else.
// Games live on the server: actions, live streams and API calls always go to the network.
// Static files are fetched network first (never an old stylesheet after an update) and the
// cached copy serves only when the network fails.
"use strict";

var CACHE = "penta-__PENTA_VERSION__";
var OFFLINE = "/offline";
var PRECACHE = [
  OFFLINE,
  "/static/css/penta.css",
  "/static/css/fonts.css",
  "/static/js/site.js",
  "/static/js/penta.js",
  "/static/js/fairness.js",
  "/static/vendor/htmx-2.0.11.min.js",
  "/static/vendor/htmx-ext-sse-2.2.4.min.js",
  "/static/favicon.svg",
  "/static/icons/icon-192.png",
];

self.addEventListener("install", function (event) {
  event.waitUntil(
    caches.open(CACHE).then(function (cache) {
      return cache.addAll(PRECACHE);
    }).then(function () {
      return self.skipWaiting();
    })
  );
});

self.addEventListener("activate", function (event) {
  event.waitUntil(
    caches.keys().then(function (names) {
      return Promise.all(names.filter(function (name) {
        return name !== CACHE;
      }).map(function (name) {
        return caches.delete(name);
      }));
    }).then(function () {
      return self.clients.claim();
    })
  );
});

function fromNetworkKeeping(request) {
  return fetch(request).then(function (response) {
    if (response.ok) {
      var copy = response.clone();
      caches.open(CACHE).then(function (cache) {
        cache.put(request, copy);
      });
    }
    return response;
  });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET") {
    return;
  }
  var url = new URL(request.url);
  if (url.origin !== self.location.origin) {
    return;
  }
  if (url.pathname.indexOf("/static/") === 0) {
    event.respondWith(fromNetworkKeeping(request).catch(function () {
      return caches.match(request);
    }));
  } else if (request.mode === "navigate") {
    event.respondWith(fetch(request).catch(function () {
      return caches.match(OFFLINE);
    }));
  }
});
