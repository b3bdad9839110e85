// The engine of a page built by `durak site`, in a worker so that the page stays responsive while a bot thinks:
// Pyodide runs the project's Python (durak.zip, unpacked as it is) and answers each request of the page's JSON API
// (frontends/web/page.py), one at a time, in the order they come.  Nothing is fetched after the start.
import { loadPyodide } from "../pyodide/pyodide.mjs";

const site = new URL("../", import.meta.url);
const started = (async () => {
  const pyodide = await loadPyodide({indexURL: new URL("pyodide/", site).href});
  const [code, config] = await Promise.all([
    fetch(new URL("durak.zip", site)).then((r) => r.arrayBuffer()),
    fetch(new URL("site.json", site)).then((r) => r.text()),
  ]);
  pyodide.unpackArchive(code, "zip", {extractDir: "/durak"});
  pyodide.runPython("import sys; sys.path.insert(0, '/durak')");
  return pyodide.pyimport("frontends.web.page").start(config, "/durak");
})();

self.onmessage = async (event) => {
  const {id, method, path, body} = event.data;
  try {
    const call = await started;
    const answer = call(method, path, body);
    const [status, text] = answer.toJs();
    answer.destroy();
    self.postMessage({id, status, text});
  } catch (err) {
    const error = `the engine in this page stopped: ${String(err.message || err).trim().split("\n").pop()}`;
    self.postMessage({id, status: 503, text: JSON.stringify({error, code: "engine_stopped"})});
  }
};
