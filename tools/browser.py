"""Which Chromium the browser tests drive, and `make browser`, which provides one.

Order: $CHROMIUM, then `chromium` or `chromium-browser` on the PATH, then Debian's /usr/bin/chromium.
`make browser` (run by `make test` before the browser tests) installs Debian's `chromium` package with
apt (and `fonts-noto-cjk`, a Hangul font, when fontconfig has none) when none of those exists and it may (root, or passwordless sudo, on Debian or Ubuntu); only where
that is impossible (macOS, say) it falls back to Playwright's managed browser
(`playwright install chromium`), and `chromium_executable()` then returns None, which tells
Playwright to launch that one.

    python tools/browser.py          # print the browser the tests will use (exit 1 when none)
    python tools/browser.py install  # what `make browser` runs
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

DEBIAN_CHROMIUM = Path("/usr/bin/chromium")
# Flags that keep Chromium from phoning home on a closed network (and work as root).
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Offline as a reader without a network is: every host but 127.0.0.1 fails to resolve, inside
    # Chromium (no request is routed through Python to be refused).
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
WHAT_TO_DO = (
    "No Chromium for the browser tests. Run `make browser` (as root or with passwordless sudo on "
    "Debian/Ubuntu it installs the `chromium` package; elsewhere it runs `playwright install "
    "chromium`), or install Chromium yourself and set CHROMIUM=/path/to/chromium."
)


def chromium_executable() -> str | None:
    """The Chromium to launch, or None for Playwright's managed browser."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    if os.access(DEBIAN_CHROMIUM, os.X_OK):
        return str(DEBIAN_CHROMIUM)
    return None


def managed_chromium() -> str | None:
    """Playwright's own Chromium, when `playwright install chromium` has put it in place."""
    try:
        from playwright.sync_api import Error, sync_playwright
    except ImportError:
        return None
    try:
        with sync_playwright() as playwright:
            path = playwright.chromium.executable_path
    except (
        Error,
        OSError,
    ):  # Playwright's driver cannot start: no managed browser either
        return None
    return path if path and os.access(path, os.X_OK) else None


def missing_browser() -> str | None:
    """Why the browser tests cannot start (a message saying what to do), or None when they can."""
    executable = chromium_executable()
    if executable is not None:
        if os.access(executable, os.X_OK):
            return None
        return f"CHROMIUM={executable} is not an executable file. Unset CHROMIUM or point it at Chromium."
    if managed_chromium() is not None:
        return None
    return WHAT_TO_DO


def _can_use_apt() -> list[str] | None:
    """The command prefix that runs apt-get as root here (empty, or sudo -n), or None."""
    os_release = Path("/etc/os-release")
    if shutil.which("apt-get") is None or not os_release.exists():
        return None
    fields = dict(line.split("=", 1) for line in os_release.read_text().splitlines() if "=" in line)
    family = {fields.get("ID", "").strip('"')} | set(fields.get("ID_LIKE", "").strip('"').split())
    if not family & {"debian", "ubuntu"}:
        return None
    if os.geteuid() == 0:
        return []
    if (
        shutil.which("sudo")
        and subprocess.run(["sudo", "-n", "true"], check=False, capture_output=True).returncode == 0
    ):
        return ["sudo", "-n"]
    return None


def has_korean_font() -> bool:
    """Whether fontconfig knows a font with Hangul (the Korean pages' line-break tests need one)."""
    if shutil.which("fc-list") is None:
        return True  # not a fontconfig system (macOS): its system fonts carry Hangul
    out = subprocess.run(["fc-list", ":lang=ko", "family"], check=False, capture_output=True, text=True)
    return bool(out.stdout.strip())


def install_korean_font() -> None:
    """Debian's Noto CJK fonts where apt may run and no Hangul font is there (a Korean reader's
    browser has one; without it the Korean pages render as boxes and their tests prove nothing)."""
    prefix = _can_use_apt()
    if has_korean_font() or prefix is None:
        return
    print("No Hangul font found: installing Debian's fonts-noto-cjk with apt-get.")
    apt = [*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-qq"]
    if subprocess.run([*apt, "install", "-y", "fonts-noto-cjk"], check=False).returncode:
        subprocess.run([*apt, "update"], check=False)
        subprocess.run([*apt, "install", "-y", "fonts-noto-cjk"], check=False)


def install() -> int:
    """Provide a Chromium if there is none; 0 when the browser tests can run afterwards."""
    if chromium_executable() is not None:
        problem = missing_browser()
        if problem:
            print(problem, file=sys.stderr)
            return 1
        install_korean_font()
        return 0
    prefix = _can_use_apt()
    if prefix is not None:
        print("No Chromium found: installing Debian's chromium package with apt-get.")
        # sudo drops the environment, so the frontend setting goes through env(1).
        apt = [*prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-qq"]
        ok = (
            subprocess.run([*apt, "update"], check=False).returncode == 0
            and subprocess.run([*apt, "install", "-y", "chromium", "fonts-noto-cjk"], check=False).returncode == 0
        )
        if ok and chromium_executable() is not None:
            return 0
        print("apt-get could not install chromium; trying Playwright's managed browser.")
    if managed_chromium() is None:
        print("No Chromium found: installing Playwright's managed Chromium.")
        playwright = Path(sys.executable).with_name("playwright")
        subprocess.run([str(playwright), "install", "chromium"], check=False)
    if managed_chromium() is None:
        print(WHAT_TO_DO, file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if argv[1:] == ["install"]:
        return install()
    problem = missing_browser()
    if problem:
        print(problem, file=sys.stderr)
        return 1
    print(chromium_executable() or f"Playwright's managed Chromium: {managed_chromium()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
