/*
 * Live code: the "Live Code" launch button turns the page's code cells into cells that run in a
 * Jupyter kernel. It replaces sphinx-thebe's loader (see book/_ext/live_code.py for why).
 *
 * - This file and Thebe (_static/thebe/, vendored) are served by the site itself and loaded only
 *   on the first click (the page's inline initThebe() loads this file, see live_code.py).
 * - The kernel comes from the server that _static/live-code.json names: `make live` answers that
 *   file with a Jupyter server on localhost; the published site's copy names none, so the page asks
 *   Binder (the repository's .binder/ environment).
 * - Every outcome is said in words in the page: a missing library, a server or Binder that does not
 *   answer, a kernel that dies. A wait without news ends with a message, never an endless spinner.
 */
(() => {
  "use strict";

  const ROOT = document.documentElement.dataset.content_root ?? "";
  const staticUrl = (path) => new URL(`${ROOT}_static/${path}`, document.baseURI).href;
  // Longest wait without any news from the server before the page says it gave up.
  const QUIET_LIMIT_MS = { local: 30000, binder: 180000 };

  let state = "idle"; // idle | starting | ready | failed
  let box = null;
  let watchdog = null;

  function statusBox() {
    // sphinx-book-theme inserts an empty <button class="thebe-launch-button"> under the title
    // for sphinx-thebe's spinner; this page reports in its own status box instead.
    document.querySelectorAll("button.thebe-launch-button").forEach((el) => el.remove());
    if (!box) {
      box = document.createElement("div");
      box.className = "live-code-status";
      box.setAttribute("role", "status");
      box.setAttribute("aria-live", "polite");
      box.style.cssText =
        "margin:0.5rem 0 1rem;padding:0.5rem 0.75rem;border-left:4px solid #888;background:rgba(127,127,127,0.08)";
      const title = document.querySelector("article h1") ?? document.querySelector("h1");
      if (title) title.insertAdjacentElement("afterend", box);
      else document.body.prepend(box);
    }
    return box;
  }

  const COLOURS = { starting: "#1a73e8", ready: "#188038", failed: "#c5221f" };

  function show(newState, text) {
    state = newState;
    const el = statusBox();
    el.dataset.state = newState;
    el.style.borderLeftColor = COLOURS[newState] ?? "#888";
    el.textContent = text;
  }

  function fail(text) {
    clearTimeout(watchdog);
    show("failed", text);
  }

  function keepWaiting(where, describe) {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      if (state === "starting") {
        fail(`No answer from ${describe} for ${QUIET_LIMIT_MS[where] / 1000} s, so live code gave up. ` +
          "Reload the page to try again.");
      }
    }, QUIET_LIMIT_MS[where]);
  }

  function loadScript(url) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = resolve;
      script.onerror = () => reject(new Error(`could not load ${url}`));
      document.head.appendChild(script);
    });
  }

  function loadStyle(url) {
    const link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = url;
    document.head.appendChild(link);
  }

  // Thebe pairs the n-th [data-executable] with the n-th [data-output], so every code cell gets
  // exactly one output element (an empty one where the page shows no output).
  function markCells() {
    const cells = document.querySelectorAll("article .cell");
    cells.forEach((cell) => {
      const source = cell.querySelector(".cell_input pre");
      if (!source) return;
      source.setAttribute("data-executable", "true");
      source.setAttribute("data-language", "python");
      let output = cell.querySelector(".cell_output");
      if (!output) {
        output = document.createElement("div");
        output.className = "cell_output";
        cell.querySelector(".cell_input").insertAdjacentElement("afterend", output);
      }
      output.setAttribute("data-output", "");
      cell.querySelectorAll("button.copybtn").forEach((el) => el.remove());
    });
    return cells.length;
  }

  // A cell's buttons exist before the kernel does; a click then says why nothing runs.
  function guardCellButtons() {
    document.addEventListener(
      "click",
      (event) => {
        const button = event.target.closest?.(".thebe-cell .thebe-button");
        if (!button || state === "ready") return;
        event.preventDefault();
        event.stopImmediatePropagation();
        const cell = button.closest(".thebe-cell");
        let note = cell.querySelector(".live-code-cell-note");
        if (!note) {
          note = document.createElement("p");
          note.className = "live-code-cell-note";
          note.setAttribute("role", "status");
          cell.querySelector(".thebe-controls")?.insertAdjacentElement("afterend", note);
        }
        note.textContent = state === "failed"
          ? "Not run: live code has no kernel (the message under the page title says why)."
          : "Not run yet: the kernel is still starting (see the message under the page title).";
      },
      true,
    );
  }

  function watchKernel(session, where) {
    const kernel = session?.kernel;
    if (!kernel) return;
    kernel.statusChanged.connect((_, status) => {
      if (status === "dead") {
        fail("The kernel died, and with it every variable of this page. Reload the page to start a new one.");
      } else if (status === "autorestarting") {
        show("ready", "The kernel crashed and restarted: its variables are gone. Run the cells from the top again.");
      }
    });
    kernel.connectionStatusChanged.connect((_, status) => {
      if (status === "disconnected") {
        fail(where === "local"
          ? "Lost the connection to the Jupyter server: is `make live` still running? Restart it, then reload the page."
          : "Lost the connection to the Binder kernel (Binder stops idle kernels). Reload the page to start a new one.");
      }
    });
  }

  async function start() {
    show("starting", "Live code: reading the settings…");
    let settings;
    try {
      const response = await fetch(staticUrl("live-code.json"), { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      settings = await response.json();
    } catch (err) {
      fail(`Live code is unavailable: its settings (_static/live-code.json) did not load (${err.message}).`);
      return;
    }
    const where = settings.server ? "local" : "binder";
    const describe = settings.server
      ? `the Jupyter server at ${settings.server.baseUrl}`
      : `Binder (${settings.binder.binderUrl})`;

    show("starting", "Live code: loading Thebe…");
    try {
      await loadScript(staticUrl("thebe/index.js"));
    } catch (err) {
      fail(`Live code is unavailable: the Thebe library (_static/thebe/index.js) did not load (${err.message}).`);
      return;
    }
    // After the script, whose bundled CodeMirror styles (a fixed 300px editor) this overrides.
    loadStyle(staticUrl("thebe/thebe.css"));
    if (markCells() === 0) {
      show("ready", "This page has no code cells to run.");
      return;
    }

    const thebe = window.thebe;
    thebe.on("status", (_, data) => {
      if (state !== "starting") return;
      keepWaiting(where, describe);
      show("starting", `Starting a kernel on ${describe}: ${data.message}`);
    });
    thebe.on("error", (_, data) => {
      if (state === "starting" && data?.message) {
        keepWaiting(where, describe);
        show("starting", `Starting a kernel on ${describe}: ${data.message}`);
      }
    });
    guardCellButtons();
    keepWaiting(where, describe);
    show("starting", `Starting a kernel on ${describe}…`);

    const pagename = window.DOCUMENTATION_OPTIONS?.pagename ?? "";
    const folder = pagename.includes("/") ? pagename.slice(0, pagename.lastIndexOf("/")) : "";
    const options = {
      requestKernel: true,
      useBinder: !settings.server,
      mountStatusWidget: false,
      mountActivateWidget: false,
      predefinedOutput: true,
      selector: "[data-executable]",
      outputSelector: "[data-output]",
      mathjaxUrl: "", // no CDN: LaTeX outputs stay plain text
      codeMirrorConfig: { theme: "default", mode: "python" },
      kernelOptions: {
        kernelName: settings.kernelName,
        path: [settings.pathToBook, folder].filter(Boolean).join("/") || "/",
      },
      binderOptions: settings.binder,
    };
    if (settings.server) {
      options.serverSettings = {
        baseUrl: settings.server.baseUrl,
        wsUrl: settings.server.baseUrl.replace(/^http/, "ws"),
        token: settings.server.token,
        appendToken: true,
      };
      options.savedSessionOptions = { enabled: false };
    }
    try {
      const { session } = await thebe.bootstrap(options);
      if (!session) throw new Error("the server started no kernel");
      clearTimeout(watchdog);
      if (state !== "starting") return;
      watchKernel(session, where);
      show("ready", `Live code is on: the cells below run in a kernel on ${describe}. ` +
        "Run them from the top (each cell has a run button, or press Shift+Enter in it).");
    } catch (err) {
      const detail = typeof err === "string" ? err : err?.message ?? String(err);
      fail(settings.server
        ? `No kernel: the Jupyter server at ${settings.server.baseUrl} did not answer (${detail}). ` +
          "Start it with `make live` (see the README), then reload this page."
        : `No kernel: Binder could not start one (${detail}). Binder needs an internet connection; ` +
          "offline, run this chapter with `make live` or `make lab` (see the README).");
    }
  }

  // Replaces the page's inline loader; called by sphinx-book-theme's Live Code button (initThebeSBT).
  window.initThebe = () => {
    if (state === "idle") {
      start().catch((err) => fail(`Live code stopped: ${err?.message ?? err}`));
    } else {
      statusBox().scrollIntoView({ block: "nearest" });
    }
  };
})();
