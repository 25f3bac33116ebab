"""The wheel on the built site (run after `make book`): at the URL each notebook's first cell installs
from, and installable offline into a fresh virtual environment with `--no-deps`, where `inside-nn --help`
works before torch is there."""

from __future__ import annotations

import subprocess
import sys
import venv

from conftest import ROOT
from wheel import wheel_name

import inside_nn

SITE = ROOT / "_build" / "html"


def test_the_wheel_is_published_with_the_site():
    assert (SITE / "wheels" / wheel_name()).is_file()


def test_the_published_wheel_installs_offline_into_a_fresh_venv(tmp_path):
    venv.EnvBuilder(with_pip=True).create(tmp_path / "venv")
    python = tmp_path / "venv" / "bin" / "python"
    install = subprocess.run(
        [python, "-m", "pip", "install", "--quiet", "--no-index", "--no-deps"] + [SITE / "wheels" / wheel_name()],
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PIP_CONFIG_FILE": "/dev/null"},
    )
    assert install.returncode == 0, install.stderr
    script = tmp_path / "venv" / "bin" / "inside-nn"
    help_text = subprocess.run([script, "--help"], capture_output=True, text=True, check=False)
    assert help_text.returncode == 0, help_text.stderr
    assert "inspect" in help_text.stdout
    version = subprocess.run([script, "--version"], capture_output=True, text=True, check=False)
    assert version.stdout.strip() == f"inside-nn {inside_nn.__version__}"
    assert sys.executable != str(python)
