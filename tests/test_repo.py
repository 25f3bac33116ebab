"""The repository's promises: two commands, used the same way by the README and CI."""

from __future__ import annotations

import re

import yaml
from conftest import ROOT

TOP_LEVEL = {
    ".ci",
    ".git",
    ".github",
    ".gitignore",
    ".pre-commit-config.yaml",
    "Makefile",
    "README.md",
    "_config.yml",
    "_toc.yml",
    "book",
    "notebooks",
    "requirements.txt",
    "tests",
}
IGNORED = {".venv", "_build", ".pytest_cache", ".ruff_cache", "__pycache__"}


def readme_commands() -> list[str]:
    """Shell lines of the README's code blocks, in order."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh|console)\n(.*?)```", readme, flags=re.DOTALL)
    return [
        line.strip() for block in blocks for line in block.splitlines() if line.strip()
    ]


def test_readme_starts_with_the_two_commands():
    assert readme_commands()[:2] == ["make book", "make test"]


def test_ci_runs_make_test_and_nothing_the_readme_lacks():
    script = (ROOT / ".ci" / "run").read_text()
    make_calls = re.findall(r"^\s*(make [\w\- ]+?)\s*$", script, flags=re.MULTILINE)
    assert make_calls == ["make test"]
    readme = (ROOT / "README.md").read_text()
    assert "apt-get install" in script and "chromium" in script
    assert "apt-get install -y chromium" in readme


def test_github_cpu_job_runs_make_test():
    workflow = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    steps = workflow["jobs"]["cpu"]["steps"]
    assert any(step.get("run", "").strip() == "bash .ci/run" for step in steps)


def test_gpu_jobs_use_the_same_nbval_target():
    workflow = yaml.safe_load((ROOT / ".github/workflows/ci.yml").read_text())
    for job, device in (("cuda", "cuda"), ("mps", "mps")):
        runs = " ".join(step.get("run", "") for step in workflow["jobs"][job]["steps"])
        assert "make nbval" in runs
        assert workflow["jobs"][job]["env"]["BOOK_DEVICE"] == device


def test_top_level_is_the_design_cards():
    present = {p.name for p in ROOT.iterdir()} - IGNORED
    assert present <= TOP_LEVEL, present - TOP_LEVEL


def pinned() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if "==" in line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower()] = version.strip()
    return pins


def test_requirements_pin_everything_exactly():
    lines = [
        line
        for line in (ROOT / "requirements.txt").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert all("==" in line for line in lines), [
        line for line in lines if "==" not in line
    ]
    assert pinned()["torch"] == "2.13.0"
    assert pinned()["jupyter-book"].startswith("1.")


def test_pre_commit_hooks_match_the_pins():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    revs = {
        repo["repo"].rstrip("/").split("/")[-1]: repo["rev"] for repo in config["repos"]
    }
    assert revs["ruff-pre-commit"].lstrip("v") == pinned()["ruff"]
    assert revs["codespell"].lstrip("v") == pinned()["codespell"]
