/*
 * Live code: the "Live Code" launch button turns the page's code cells into cells that run in a
 * Jupyter kernel. It replaces sphinx-thebe's loader (see book/_ext/live_code.py for why).
 *
 * - This file and Thebe (_static/thebe/, vendored) are served by the site itself and loaded only
 *   on the first click (the page's inline initThebe() loads this file, see live_code.py).
 * - The kernel comes from the server that _static/live-code.json names: `make live` answers that
 *   file with a Jupyter server on localhost; the published site's copy names none, so the page asks
 *   Binder (the repository's .binder/ environment).
 * - Every outcome is said in words in the page, in the page's language (English or Korean): a missing library, a server or Binder that does not
 *   answer, a kernel that dies. A wait without news ends with a message, never an endless spinner.
 */
(() => {
  "use strict";

  // Every message, in the page's language (<html lang>, "ko" in the Korean edition); {name} is filled in
  // by say(). The table is JSON between the markers (tests/test_site.py reads it).
  const MESSAGES = /* messages */ {
    "en": {
      "gave_up": "No answer from {describe} for {seconds} s, so live code gave up. Reload the page to try again.",
      "cell_failed": "Not run: live code has no kernel (the message under the page title says why).",
      "cell_starting": "Not run yet: the kernel is still starting (see the message under the page title).",
      "died": "The kernel died, and with it every variable of this page. Reload the page to start a new one.",
      "restarted": "The kernel crashed and restarted: its variables are gone. Run the cells from the top again.",
      "lost_local": "Lost the connection to the Jupyter server: is `make live` still running? Restart it, then reload the page.",
      "lost_binder": "Lost the connection to the Binder kernel (Binder stops idle kernels). Reload the page to start a new one.",
      "reading": "Live code: reading the settings…",
      "no_settings": "Live code is unavailable: its settings (_static/live-code.json) did not load ({error}).",
      "local_server": "the Jupyter server at {url}",
      "binder": "Binder ({url})",
      "loading": "Live code: loading Thebe…",
      "no_thebe": "Live code is unavailable: the Thebe library (_static/thebe/index.js) did not load ({error}).",
      "no_cells": "This page has no code cells to run.",
      "starting_news": "Starting a kernel on {describe}: {news}",
      "starting": "Starting a kernel on {describe}…",
      "ready": "Live code is on: the cells below run in a kernel on {describe}. Run them from the top (each cell has a run button, or press Shift+Enter in it).",
      "no_kernel_local": "No kernel: the Jupyter server at {url} did not answer ({error}). Start it with `make live` (see the README), then reload this page.",
      "no_kernel_binder": "No kernel: Binder could not start one ({error}). Binder needs an internet connection; offline, run this chapter with `make live` or `make lab` (see the README).",
      "stopped": "Live code stopped: {error}",
      "button_run": "run",
      "button_run_title": "run this cell",
      "button_runall": "run all",
      "button_runall_title": "run all cells",
      "button_restart": "restart",
      "button_restart_title": "restart the kernel",
      "button_restartall": "restart & run all",
      "button_restartall_title": "restart the kernel and run all cells"
    },
    "ko": {
      "gave_up": "{describe}에서 {seconds}초 동안 응답이 없어 라이브 코드를 멈췄습니다. 다시 시도하려면 페이지를 새로 고치세요.",
      "cell_failed": "실행하지 않음: 라이브 코드에 커널이 없습니다(이유는 페이지 제목 아래의 안내에 있습니다).",
      "cell_starting": "아직 실행하지 않음: 커널이 아직 시작하는 중입니다(페이지 제목 아래의 안내를 보세요).",
      "died": "커널이 종료되어 이 페이지의 변수가 모두 사라졌습니다. 새 커널을 시작하려면 페이지를 새로 고치세요.",
      "restarted": "커널이 비정상 종료된 뒤 다시 시작되어 변수가 모두 사라졌습니다. 셀을 처음부터 다시 실행하세요.",
      "lost_local": "Jupyter 서버와의 연결이 끊어졌습니다. `make live`가 아직 실행 중인지 확인하고, 다시 시작한 뒤 페이지를 새로 고치세요.",
      "lost_binder": "Binder 커널과의 연결이 끊어졌습니다(Binder는 쉬고 있는 커널을 멈춥니다). 새 커널을 시작하려면 페이지를 새로 고치세요.",
      "reading": "라이브 코드: 설정을 읽는 중…",
      "no_settings": "라이브 코드를 쓸 수 없습니다: 설정 파일(_static/live-code.json)을 불러오지 못했습니다({error}).",
      "local_server": "{url}의 Jupyter 서버",
      "binder": "Binder({url})",
      "loading": "라이브 코드: Thebe를 불러오는 중…",
      "no_thebe": "라이브 코드를 쓸 수 없습니다: Thebe 라이브러리(_static/thebe/index.js)를 불러오지 못했습니다({error}).",
      "no_cells": "이 페이지에는 실행할 코드 셀이 없습니다.",
      "starting_news": "{describe}에서 커널을 시작하는 중입니다. 상태: {news}",
      "status_launching": "서버를 여는 중",
      "status_server-ready": "서버 준비됨",
      "status_starting": "커널을 시작하는 중",
      "status_ready": "커널 준비됨",
      "status_attached": "세션에 연결됨",
      "status_closed": "서버 연결이 닫힘",
      "starting": "{describe}에서 커널을 시작하는 중입니다…",
      "ready": "라이브 코드가 켜졌습니다. 아래 셀은 {describe}의 커널에서 실행됩니다. 처음부터 차례로 실행하세요(셀마다 실행 버튼이 있고, 셀 안에서 Shift+Enter를 눌러도 됩니다).",
      "no_kernel_local": "커널 없음: {url}의 Jupyter 서버가 응답하지 않았습니다({error}). `make live`로 서버를 시작한 뒤(README 참고) 이 페이지를 새로 고치세요.",
      "no_kernel_binder": "커널 없음: Binder가 커널을 시작하지 못했습니다({error}). Binder를 쓰려면 인터넷에 연결되어 있어야 합니다. 오프라인에서는 이 장을 `make live`나 `make lab`으로 실행하세요(README 참고).",
      "stopped": "라이브 코드가 멈췄습니다: {error}",
      "button_run": "실행",
      "button_run_title": "이 셀 실행하기",
      "button_runall": "모두 실행",
      "button_runall_title": "모든 셀 실행하기",
      "button_restart": "다시 시작",
      "button_restart_title": "커널 다시 시작하기",
      "button_restartall": "다시 시작 후 모두 실행",
      "button_restartall_title": "커널을 다시 시작하고 모든 셀 실행하기"
    }
  } /* end messages */;
  const LANGUAGE = (document.documentElement.lang || "en").startsWith("ko") ? "ko" : "en";
  const say = (key, values = {}) =>
    MESSAGES[LANGUAGE][key].replace(/\{(\w+)\}/g, (_, name) => String(values[name] ?? ""));
  const ROOT = document.documentElement.dataset.content_root ?? "";
  const staticUrl = (path) => new URL(`${ROOT}_static/${path}`, document.baseURI).href;
  // Longest wait without any news from the server before the page says it gave up.
  const QUIET_LIMIT_MS = { local: 30000, binder: 180000 };

  let state = "idle"; // idle | starting | ready | failed
  let box = null;
  let watchdog = null;
  let readme = null; // the README's "Reading and running a chapter", from live-code.json

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
    // `make live` shows as code, and "README" as a link to the README's section on running a chapter.
    el.replaceChildren();
    text.split(/(`[^`]+`|README)/).forEach((part) => {
      if (part.startsWith("`") && part.endsWith("`") && part.length > 1) {
        const code = document.createElement("code");
        code.textContent = part.slice(1, -1);
        el.append(code);
      } else if (part === "README" && readme) {
        const link = document.createElement("a");
        link.href = readme;
        link.textContent = part;
        el.append(link);
      } else if (part) {
        el.append(document.createTextNode(part));
      }
    });
  }

  function fail(text) {
    clearTimeout(watchdog);
    show("failed", text);
  }

  function keepWaiting(where, describe) {
    clearTimeout(watchdog);
    watchdog = setTimeout(() => {
      if (state === "starting") {
        fail(say("gave_up", { describe, seconds: QUIET_LIMIT_MS[where] / 1000 }));
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

  // Thebe names a cell's buttons in English (button.thebe-run-button: "run", title "run this cell", ...);
  // they take the page's words as soon as Thebe adds them.
  const BUTTONS = ["run", "runall", "restart", "restartall"];
  function nameCellButtons(root = document) {
    if (!(root instanceof Element || root instanceof Document)) return;
    BUTTONS.forEach((name) => {
      const selector = `button.thebe-${name}-button`;
      const buttons = [...root.querySelectorAll(selector)];
      if (root instanceof Element && root.matches(selector)) buttons.push(root);
      buttons.forEach((button) => {
        const text = say(`button_${name}`);
        if (button.textContent !== text) button.textContent = text;
        button.setAttribute("title", say(`button_${name}_title`));
      });
    });
  }
  function watchCellButtons() {
    nameCellButtons();
    new MutationObserver((changes) => {
      changes.forEach((change) => change.addedNodes.forEach((node) => nameCellButtons(node)));
    }).observe(document.body, { childList: true, subtree: true });
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
        note.textContent = say(state === "failed" ? "cell_failed" : "cell_starting");
      },
      true,
    );
  }

  function watchKernel(session, where) {
    const kernel = session?.kernel;
    if (!kernel) return;
    kernel.statusChanged.connect((_, status) => {
      if (status === "dead") {
        fail(say("died"));
      } else if (status === "autorestarting") {
        show("ready", say("restarted"));
      }
    });
    kernel.connectionStatusChanged.connect((_, status) => {
      if (status === "disconnected") {
        fail(say(where === "local" ? "lost_local" : "lost_binder"));
      }
    });
  }

  async function start() {
    show("starting", say("reading"));
    let settings;
    try {
      const response = await fetch(staticUrl("live-code.json"), { cache: "no-store" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      settings = await response.json();
      readme = settings.readme ?? null;
    } catch (err) {
      fail(say("no_settings", { error: err.message }));
      return;
    }
    const where = settings.server ? "local" : "binder";
    const describe = settings.server
      ? say("local_server", { url: settings.server.baseUrl })
      : say("binder", { url: settings.binder.binderUrl });

    show("starting", say("loading"));
    try {
      await loadScript(staticUrl("thebe/index.js"));
    } catch (err) {
      fail(say("no_thebe", { error: err.message }));
      return;
    }
    // After the script, whose bundled CodeMirror styles (a fixed 300px editor) this overrides.
    loadStyle(staticUrl("thebe/thebe.css"));
    if (markCells() === 0) {
      show("ready", say("no_cells"));
      return;
    }

    const thebe = window.thebe;
    // Thebe's news is English debug text; the Korean page says the stage it names in Korean, or
    // only that the kernel is starting.
    const news = (data) =>
      LANGUAGE === "en" ? data?.message : MESSAGES.ko[`status_${data?.status}`];
    thebe.on("status", (_, data) => {
      if (state !== "starting") return;
      keepWaiting(where, describe);
      const text = news(data);
      show("starting", text ? say("starting_news", { describe, news: text }) : say("starting", { describe }));
    });
    thebe.on("error", (_, data) => {
      if (state === "starting" && data?.message) {
        keepWaiting(where, describe);
        show("starting", say("starting_news", { describe, news: data.message }));
      }
    });
    guardCellButtons();
    watchCellButtons();
    keepWaiting(where, describe);
    show("starting", say("starting", { describe }));

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
      show("ready", say("ready", { describe }));
    } catch (err) {
      const detail = typeof err === "string" ? err : err?.message ?? String(err);
      fail(settings.server
        ? say("no_kernel_local", { url: settings.server.baseUrl, error: detail })
        : say("no_kernel_binder", { error: detail }));
    }
  }

  // Replaces the page's inline loader; called by sphinx-book-theme's Live Code button (initThebeSBT).
  window.initThebe = () => {
    if (state === "idle") {
      start().catch((err) => fail(say("stopped", { error: err?.message ?? err })));
    } else {
      statusBox().scrollIntoView({ block: "nearest" });
    }
  };
})();
