// The service worker of a page built by `durak site`: on the first visit it keeps every file of the page (the
// page, the engine and the Python runtime) in this browser's cache, and from then on answers from there, so that
// a reload with no network, or once the site's server has stopped, resumes the deal (seed 004: the page "works the
// same with or without an internet connection once it has loaded").  site.py writes the build's version and its
// files below.  A new build has a new version: the browser fetches this file on each online visit, installs the
// new worker, which takes over at once and drops the old cache; the page in front of you runs the new build from
// its next reload.
"use strict";
const VERSION = "__VERSION__";
const FILES = __FILES__;
const CACHE = `durak-site-${VERSION}`;

self.addEventListener("install", (event) => {
  // "reload": past the browser's HTTP cache, so that a new version never keeps an old file.
  event.waitUntil(caches.open(CACHE)
    .then((cache) => cache.addAll(FILES.map((file) => new Request(file, {cache: "reload"}))))
    .then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((names) => Promise.all(names.filter((name) => name.startsWith("durak-site-") && name !== CACHE)
      .map((name) => caches.delete(name))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  // The page's address carries ?pace= and #game=: the cached page answers it whatever they are.
  event.respondWith(caches.match(event.request, {cacheName: CACHE, ignoreSearch: true})
    .then((hit) => hit || fetch(event.request)));
});
