// The page's second back end (`durak site`): the project's engine running in this browser tab, in a worker
// (worker.js), answers the same calls that `durak serve` answers over HTTP.  app.js uses it where it is present.
"use strict";
// The site's service worker (sw.js) keeps the page's files, so that it reloads with no network.  Where the browser
// keeps no site data (blocked, or the page inside another site's frame), it cannot register: the page plays, and
// a reload needs the network.
try {
  navigator.serviceWorker.register("sw.js").catch(() => {});
} catch (err) { /* no service workers here */ }
window.durakBackend = (() => {
  const worker = new Worker("static/worker.js", {type: "module"});
  const waiting = new Map();
  let next = 0;
  worker.onmessage = (event) => {
    const {id, status, text} = event.data;
    const resolve = waiting.get(id);
    waiting.delete(id);
    resolve({status, data: JSON.parse(text)});
  };
  worker.onerror = (event) => {  // the worker could not start (a browser without module workers)
    const error = `the engine could not start in this page (${event.message || "a worker error"})`;
    for (const resolve of waiting.values()) resolve({status: 503, data: {error, code: "engine_stopped"}});
    waiting.clear();
  };
  return {
    inPage: true,
    call(method, path, body) {
      return new Promise((resolve) => {
        const id = next++;
        waiting.set(id, resolve);
        const text = body === undefined ? "" : typeof body === "string" ? body : JSON.stringify(body);
        worker.postMessage({id, method, path, body: text});
      });
    },
  };
})();
