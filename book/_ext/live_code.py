"""Live code in the page, from the site itself: Thebe vendored in book/_static/thebe/, a kernel on
localhost (`make live`) or on Binder.

Why Jupyter Book 1's own Thebe integration is replaced rather than configured (sphinx-thebe 0.3.1):

* ``init_thebe_core`` hardcodes ``THEBE_JS_URL = "https://unpkg.com/thebe@0.8.2/lib/index.js"``
  into an inline script on every page, and ``sphinx-thebe.js`` loads that URL on click: a CDN
  request, which fails for an offline reader. No setting changes it.
* The ``x-thebe-config`` it writes carries ``binderOptions`` only, and ``sphinx-thebe.js`` calls
  ``thebelab.bootstrap()`` without options, so no ``thebe_config`` key can point the kernel at a
  local Jupyter server (Thebe's ``useBinder: false`` + ``serverSettings``).
* Its loader says "Loading thebe from CDN" and "Launching from mybinder.org" whatever happens, and
  a failed start leaves the spinner turning; it is written for Thebe 0.8, and the npm registry
  here has Thebe 0.9 only (0.9.3 is vendored), whose options and cell/output pairing differ.

So this extension drops sphinx-thebe's inline script and ``sphinx-thebe.js`` from every page and
puts a small inline ``initThebe()`` in their place (:data:`LOADER`), which the Live Code button of
sphinx-book-theme calls: on the first click it loads ``_static/live-code.js``, which loads Thebe.
Nothing of live code loads with the page. The build
writes ``_static/live-code.json`` with the Binder settings derived from _config.yml's
``repository`` and ``launch_buttons`` sections (the ones the Binder button uses) and no server;
``make live`` runs :func:`main` below, which serves the built site with that file answered with a
Jupyter server on 127.0.0.1 instead.

    python book/_ext/live_code.py --port 8000   # what `make live` runs
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import functools
import http.server
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import ClassVar

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = "live-code.json"
KERNEL_NAME = "python3"


# --- the Sphinx extension ------------------------------------------------------------------------


def _binder_settings(app) -> dict:
    options = app.config.html_theme_options or {}
    launch = options.get("launch_buttons", {}) or {}
    repo = (options.get("repository_url") or "").rstrip("/").removesuffix(".git")
    return {
        "repo": repo.split("github.com/")[-1],
        "ref": options.get("repository_branch") or "main",
        "binderUrl": (launch.get("binderhub_url") or "https://mybinder.org").rstrip("/"),
        "repoProvider": "github",
    }


def _replace_sphinx_thebe_scripts(app, pagename, templatename, context, doctree):
    kept = []
    for script in context.get("script_files", []):
        filename = str(getattr(script, "filename", "") or "")
        body = str(getattr(script, "attributes", {}).get("body", ""))
        if filename.split("?")[0].endswith("sphinx-thebe.js") or "THEBE_JS_URL" in body:
            continue
        kept.append(script)
    context["script_files"] = kept


def _readme_url(app) -> str:
    options = app.config.html_theme_options or {}
    repo = (options.get("repository_url") or "").rstrip("/").removesuffix(".git")
    return f"{repo}#reading-and-running-a-chapter"


def _write_settings(app, exception):
    if exception is not None or app.builder.format != "html":
        return
    options = app.config.html_theme_options or {}
    settings = {
        "server": None,
        "binder": _binder_settings(app),
        "kernelName": KERNEL_NAME,
        "pathToBook": (options.get("path_to_docs") or "").strip("/"),
        # where a "no kernel" message sends the reader: the README's section on running a chapter
        "readme": _readme_url(app),
    }
    static = Path(app.outdir) / "_static"
    static.mkdir(parents=True, exist_ok=True)
    (static / SETTINGS).write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")


# Inline on every page, in place of sphinx-thebe's: the Live Code button's initThebe() loads
# _static/live-code.js on the first click (nothing of live code loads with the page), and says so
# in the page, in the page's language, if it cannot.
LOADER = """window.initThebe = () => {
  if (window.liveCodeLoading) return;
  window.liveCodeLoading = true;
  const script = document.createElement("script");
  script.src = (document.documentElement.dataset.content_root ?? "") + "_static/live-code.js";
  script.onload = () => window.initThebe();
  script.onerror = () => {
    document.querySelectorAll("button.thebe-launch-button").forEach((el) => el.remove());
    const note = document.createElement("p");
    note.className = "live-code-status";
    note.dataset.state = "failed";
    note.setAttribute("role", "status");
    note.textContent = (document.documentElement.lang || "en").startsWith("ko")
      ? "라이브 코드를 쓸 수 없습니다: _static/live-code.js를 불러오지 못했습니다."
      : "Live code is unavailable: _static/live-code.js did not load.";
    (document.querySelector("article h1") ?? document.body).insertAdjacentElement("afterend", note);
  };
  document.head.appendChild(script);
};"""


def setup(app):
    app.add_js_file(None, body=LOADER)
    app.connect("html-page-context", _replace_sphinx_thebe_scripts)
    app.connect("build-finished", _write_settings)
    return {"parallel_read_safe": True, "parallel_write_safe": True}


# --- `make live`: the built site plus a Jupyter server on localhost ------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bind_site(port: int, handler) -> http.server.ThreadingHTTPServer:
    """The site's server on `port`, or on a free port (saying so) when `port` is taken."""
    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as err:
        if err.errno != errno.EADDRINUSE:
            raise
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(f"Port {port} is taken; serving the site on port {server.server_port} instead.", flush=True)
    return server


class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    """The built site, with every `_static/live-code.json` naming the local Jupyter server."""

    jupyter: ClassVar[dict] = {}

    def do_GET(self):
        path = self.path.split("?")[0]
        if not path.endswith(f"/_static/{SETTINGS}"):
            return super().do_GET()
        built = Path(self.translate_path(path))
        if not built.is_file():
            return super().do_GET()
        settings = json.loads(built.read_text(encoding="utf-8"))
        settings["server"] = self.jupyter
        body = json.dumps(settings).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        return None

    def log_message(self, format, *args):
        pass


def _start_jupyter(port: int, token: str, site_port: int) -> subprocess.Popen:
    origins = rf"https?://(127\.0\.0\.1|localhost):{site_port}"
    command = [
        sys.executable,
        "-m",
        "jupyter_server",
        "--ServerApp.ip=127.0.0.1",
        f"--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={ROOT}",
        "--ServerApp.open_browser=False",
        f"--IdentityProvider.token={token}",
        # Thebe talks to the server from the site's origin (another port): allow that one only.
        f"--ServerApp.allow_origin_pat={origins}",
        # A kernel server only: no JupyterLab, terminals or language servers behind the token.
        "--ServerApp.terminals_enabled=False",
    ]
    for extension in ("jupyterlab", "jupyter_lsp", "jupyter_server_terminals", "notebook_shim"):
        command.append(f"--ServerApp.jpserver_extensions={extension}=False")
    if os.geteuid() == 0:  # CI and containers run as root, which Jupyter refuses unless told
        command.append("--ServerApp.allow_root=True")
    # A session of its own: Ctrl-C in the terminal reaches this script, which stops the server
    # (and so its kernels) with SIGTERM, rather than Jupyter's "Shutdown? (y/[n])" prompt.
    return subprocess.Popen(command, cwd=ROOT, start_new_session=True)


def _wait_until_up(url: str, process: subprocess.Popen, timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=1).close()
            return True
        time.sleep(0.2)
    return False


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=8)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Serve the built site with live code on localhost.")
    parser.add_argument("--port", type=int, default=8000, help="the site's port (default 8000)")
    parser.add_argument("--html", type=Path, default=ROOT / "_build" / "html")
    args = parser.parse_args(argv)
    if not (args.html / "_static" / SETTINGS).is_file():
        print(f"no {args.html}/_static/{SETTINGS}: run 'make book' first", file=sys.stderr)
        return 1

    handler = functools.partial(_SiteHandler, directory=str(args.html))
    site = _bind_site(args.port, handler)
    site_port = site.server_port
    jupyter_port = _free_port()
    token = secrets.token_urlsafe(24)
    base = f"http://127.0.0.1:{jupyter_port}/"
    _SiteHandler.jupyter = {"baseUrl": base, "token": token}

    jupyter = _start_jupyter(jupyter_port, token, site_port)

    def stop(signum, frame):
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    try:
        if not _wait_until_up(f"{base}api/status?token={token}", jupyter):
            print(f"The Jupyter server did not start on port {jupyter_port}.", file=sys.stderr)
            return 1
        print(
            f"Live code: open http://127.0.0.1:{site_port}/ and click the rocket, then Live Code.\n"
            f"Kernels run in the Jupyter server at {base} (this .venv). Ctrl-C stops both.",
            flush=True,
        )
        site.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        # A second SIGTERM or Ctrl-C (make passes one on to its children too) must not cut the
        # clean-up short and leave the Jupyter server behind.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        site.server_close()
        _stop(jupyter)
    return 0


if __name__ == "__main__":
    sys.exit(main())
