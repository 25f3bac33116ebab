"""The repository's promises: two commands, used the same way by the README and CI."""

from __future__ import annotations

import ast
import re

import yaml
from conftest import ROOT, load_notebook, real_notebook_paths, toc_files

TOP_LEVEL = {
    ".binder",
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
    "inside_nn",
    "notebooks",
    "pyproject.toml",
    "requirements.txt",
    "tests",
    "tools",
}
IGNORED = {
    ".venv",
    ".compat",
    ".whl",
    "_build",
    ".pytest_cache",
    ".ruff_cache",
    "__pycache__",
}


def readme_commands() -> list[str]:
    """Shell lines of the code blocks of the README's maintainer part, in order."""
    readme = (ROOT / "README.md").read_text().split("\n# For maintainers\n", 1)[1]
    blocks = re.findall(r"```(?:bash|sh|console)\n(.*?)```", readme, flags=re.DOTALL)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip()]


def test_readme_starts_with_the_two_commands():
    assert readme_commands()[:2] == ["make book", "make test"]


SITE = "https://inside-nn-module.github.io/inside-nn-module"
GITHUB = "inside-nn-module/inside-nn-module"


def readme_first_screen() -> str:
    """The README's reader part: everything above its maintainer part, which it must precede."""
    readme = (ROOT / "README.md").read_text()
    assert "\n# For maintainers\n" in readme, "the README's maintainer part has no heading"
    return readme.split("\n# For maintainers\n", 1)[0]


def test_readme_opens_for_readers_with_the_site_and_every_chapter():
    first = readme_first_screen()
    # the branch the site's Colab buttons open, where the publish job pushes the reader notebooks
    branch = re.search(
        r'^READER_BRANCH = "([\w-]+)"',
        (ROOT / "book/_ext/reader_notebooks.py").read_text(),
        flags=re.MULTILINE,
    ).group(1)
    assert len(first.splitlines()) <= 45, "the reader part fits a first screen or two"
    assert f"{SITE}/" in first and f"{SITE}/ko/" in first
    for page in toc_files():
        if page.startswith("notebooks/"):
            assert f"]({SITE}/{page}.html)" in first, f"no link to {page} on the site"
            colab = f"https://colab.research.google.com/github/{GITHUB}/blob/{branch}/"
            assert f"]({colab}{page}.ipynb)" in first, f"no Colab link for {page}"
    for way in ("On the site", "In Colab", "Locally"):
        assert f"**{way}**" in first


def test_readme_names_the_wheel_the_site_publishes():
    from inside_nn import __version__

    wheels = re.findall(r"inside_nn-([\w.]+)-py3-none-any\.whl", readme_first_screen())
    assert wheels and set(wheels) == {__version__}


def test_ci_runs_make_test_and_nothing_the_readme_lacks():
    script = (ROOT / ".ci" / "run").read_text()
    make_calls = re.findall(r"^\s*(make [\w\- ]+?)\s*$", script, flags=re.MULTILINE)
    assert make_calls == ["make test"]
    # make does the set-up itself: nothing is installed by the CI script or by hand.
    assert "apt-get" not in script and "pip install" not in script
    readme = (ROOT / "README.md").read_text()
    assert "sudo apt-get install" not in readme


def test_make_test_provides_the_browser_before_the_browser_tests():
    rules = makefile_recipes()
    assert "site" in rules["test"][0]
    assert "browser" in rules["site"][0]
    assert "tools/browser.py install" in (ROOT / "Makefile").read_text()


def makefile_pytest_calls() -> list[str]:
    """Every Makefile line that runs pytest (recipes and the variables recipes expand)."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    return [line for line in lines if not line.lstrip().startswith("#") and re.search(r"(/pytest\b|-m pytest\b)", line)]


def test_every_pytest_call_in_the_makefile_fails_on_a_warning():
    calls = makefile_pytest_calls()
    assert len(calls) >= 5, calls
    for call in calls:
        assert re.search(r"(-W error\b|filterwarnings=error)", call), call
    text = (ROOT / "Makefile").read_text()
    assert "--sanitize-with" not in text.replace("--nbval-sanitize-with", "")


def test_the_supported_range_is_stated_and_tested_at_both_ends():
    text = (ROOT / "Makefile").read_text()
    releases = re.search(r"^COMPAT_RELEASES := (.+)$", text, flags=re.MULTILINE)
    tested = releases.group(1).split()
    oldest, newest = tested[0], tested[-1]
    assert oldest.startswith("2.6.")
    short = [".".join(v.split(".")[:2]) for v in (oldest, newest)]
    for page in ("README.md", "book/intro.md"):
        body = (ROOT / page).read_text()
        assert f"torch {short[0]} to {short[1]}" in body, page
        assert oldest in body and newest in body, page
    workflow = yaml.safe_load((ROOT / ".github/workflows/compat.yml").read_text())
    job = workflow["jobs"]["compat"]
    assert [str(v) for v in job["strategy"]["matrix"]["torch"]] == [oldest, newest]
    runs = " ".join(step.get("run", "") for step in job["steps"])
    assert "make compat TORCH=${{ matrix.torch }}" in runs


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
    assert all("==" in line for line in lines), [line for line in lines if "==" not in line]
    assert pinned()["torch"] == "2.13.0"
    assert pinned()["jupyter-book"].startswith("1.")


def test_pre_commit_hooks_match_the_pins():
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text())
    revs = {repo["repo"].rstrip("/").split("/")[-1]: repo["rev"] for repo in config["repos"]}
    assert revs["ruff-pre-commit"].lstrip("v") == pinned()["ruff"]
    assert revs["codespell"].lstrip("v") == pinned()["codespell"]


def makefile_recipes() -> dict[str, tuple[list[str], str]]:
    """target -> (prerequisites, recipe text) for the Makefile's plain rules."""
    rules: dict[str, tuple[list[str], str]] = {}
    target = None
    for line in (ROOT / "Makefile").read_text().splitlines():
        match = re.match(r"^([\w.$()/%-]+):(?!=)[ \t]*(.*)$", line)
        if match:
            target = match.group(1)
            rules[target] = (match.group(2).split(), "")
        elif line.startswith("\t") and target:
            prereqs, recipe = rules[target]
            # a recipe's `$(MAKE) ... TARGETS` runs those targets: they count as prerequisites here
            if "$(MAKE)" in line:
                prereqs = prereqs + [w for w in line.split("$(MAKE)", 1)[1].split() if not w.startswith("-")]
            rules[target] = (prereqs, recipe + line + "\n")
        elif not line.strip().startswith("#"):
            target = None
    return rules


def test_make_test_never_rewrites_the_record():
    rules = makefile_recipes()
    seen, todo = set(), ["test"]
    while todo:
        target = todo.pop()
        if target in seen or target not in rules:
            continue
        seen.add(target)
        prereqs, recipe = rules[target]
        assert "tools/record.py" not in recipe and "--junitxml" not in recipe, target
        todo += prereqs
    assert {"nbval", "site", "verified"} <= seen
    assert all("tools/record.py" in rules[t][1] for t in ("record", "compat"))


def test_every_setup_cell_stops_below_the_oldest_supported_release():
    text = (ROOT / "Makefile").read_text()
    oldest = re.search(r"^COMPAT_RELEASES := (\S+)", text, flags=re.MULTILINE).group(1)
    floor = ".".join(oldest.split(".")[:2])
    for path in real_notebook_paths():
        code = [c for c in load_notebook(path)["cells"] if c["cell_type"] == "code"]
        setup = "".join(code[0]["source"])
        assert f'if torch.__version__ < "{floor}":' in setup, path.stem
        assert f"needs torch {floor} or newer" in setup, path.stem


def python_imports(path) -> set[str]:
    """Top-level module names a Python file imports."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
    return names


def test_tests_holds_only_tests_and_what_only_tests_use():
    """tests/: test files, conftest.py, the cases and fixtures tests read, and helpers only tests
    import. What builds, records, translates, benchmarks or installs lives in tools/."""
    tests = ROOT / "tests"
    test_files = sorted(tests.glob("test_*.py")) + [tests / "conftest.py"]
    test_text = "\n".join(p.read_text(encoding="utf-8") for p in test_files)
    # What a test-only helper reads (tests/page_report.py reads axe) is read by the tests too.
    helpers_text = "\n".join(p.read_text(encoding="utf-8") for p in tests.glob("*.py") if p not in test_files)
    outside = [
        p for folder in ("tools", "book/_ext") for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts
    ]
    wrong = []
    for path in sorted(tests.rglob("*")):
        if path.is_dir() or "__pycache__" in path.parts:
            continue
        name = path.relative_to(tests).as_posix()
        if path.parent == tests and (name.startswith("test_") or name == "conftest.py"):
            assert path.suffix == ".py", name
        elif name.startswith("exercise_cases/"):
            # Right and wrong answers, loaded by tests/test_exercises.py.
            ok = path.suffix == ".py" and "exercise_cases" in test_text
            wrong += [] if ok else [name]
        elif path.suffix == ".py":
            # A helper: imported by a test, and by nothing the build or the tools run.
            module = path.stem
            by_tests = any(module in python_imports(p) for p in test_files)
            by_others = [p for p in outside if module in python_imports(p)]
            wrong += [] if by_tests and not by_others else [name]
        elif name.endswith("-LICENSE"):
            # The licence of a vendored fixture, beside it.
            prefix = path.name.removesuffix("-LICENSE").split("-")[0]
            wrong += [] if list(path.parent.glob(prefix + "*.js")) else [name]
        else:
            # A fixture: read by a test, or by the strict nbval run (a test run).
            nbval = any("--nbval" in line and name in line for line in makefile_pytest_calls())
            wrong += [] if path.name in test_text + helpers_text or nbval else [name]
    assert not wrong, f"not a test, a fixture or a test-only helper (move it to tools/): {wrong}"


def test_nothing_outside_tests_runs_or_imports_from_tests():
    """The build, the tools, CI and the Sphinx extensions use tools/, never tests/ (pytest aside)."""
    tools = {p.stem for p in (ROOT / "tools").glob("*.py")}
    assert {"korean", "record", "execute_notebooks", "bench", "browser"} <= tools
    for path in (ROOT / "book" / "_ext").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"[\"'/]tests[\"'/]", text.replace("tests/test_", "")), path.name
        helpers = {p.stem for p in (ROOT / "tests").glob("*.py")}
        assert not python_imports(path) & helpers, path.name
    files = [
        ROOT / "Makefile",
        ROOT / ".ci" / "run",
        *(ROOT / ".github").rglob("*.yml"),
    ]
    files += [*(ROOT / "tools").glob("*.py"), *(ROOT / "tools").glob("*.sh")]
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            for script in re.findall(r"tests/([\w/]+\.(?:py|sh))", line):
                # Only pytest reads test files, and only tools/ holds scripts.
                assert script.startswith("test_"), f"{path.name}: {line.strip()}"


def test_the_shape_check_names_what_is_too_long(tmp_path):
    """tools/shape.py (run by `make lint`) names a module, class or function over its limit, and the
    book's own code is within them."""
    import shape

    long_function = "def f():\n" + "    x = 1\n" * 100
    long_class = "class C:\n" + "    x = 1\n" * 500
    (tmp_path / "m.py").write_text(long_function + long_class + "y = 2\n" * 400)
    found = shape.excesses(tmp_path / "m.py", "m.py")
    assert [line.split(": ", 1)[1].split(" (")[0] for line in found] == ["module", "function f", "class C"]
    exempt = shape.excesses(tmp_path / "m.py", "tests/exercise_cases/m.py")  # no module limit there
    assert [line.split(":", 2)[2] for line in exempt] == [line.split(":", 2)[2] for line in found[1:]]
    assert shape.main([]) == 0


def test_the_coverage_floor_fails_and_names_the_missed_lines(tmp_path, capsys):
    """tools/coverage_total.py (run by `make checks`) prints the total; under the floor it lists
    each file's missed lines and fails."""
    import json

    import coverage_total

    def report(percent: float) -> str:
        entry = {"summary": {"percent_covered": percent}, "missing_lines": [3, 4, 5, 9]}
        data = {"summary": {"percent_covered": percent}, "files": {"inside_nn/a.py": entry}}
        path = tmp_path / f"{percent}.json"
        path.write_text(json.dumps(data))
        return str(path)

    assert coverage_total.main([report(93.9), "--fail-under", "90"]) == 0
    assert capsys.readouterr().out == "[coverage] inside_nn line coverage: 93.9 %\n"
    assert coverage_total.main([report(89.6), "--fail-under", "90"]) == 1
    assert "inside_nn/a.py 90 %: 3-5, 9" in capsys.readouterr().out


def run_timed(tmp_path, code: str):
    """tools/timed.py running `python -c CODE` as a stage, its figures kept in tmp_path."""
    import os
    import subprocess
    import sys

    command = [sys.executable, str(ROOT / "tools" / "timed.py"), "orphan", "--", sys.executable, "-c", code]
    env = {**os.environ, "TIMED_DIR": str(tmp_path)}
    return subprocess.run(command, capture_output=True, text=True, check=True, env=env)


def test_stage_times_count_the_cpu_of_processes_their_parents_left(tmp_path):
    """tools/timed.py counts the CPU of a process whose parent exited without waiting for it (as
    Chromium's renderers are left): here a child burns ~0.6 s of CPU after its parent is gone."""
    orphan = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    end = time.process_time() + 0.6\n"
        "    while time.process_time() < end: pass\n"
        "    os._exit(0)\n"
    )
    done = run_timed(tmp_path, orphan)
    cpu = float(re.search(r"wall, ([\d.]+) s CPU", done.stdout).group(1))
    assert cpu >= 0.5, done.stdout


def test_stage_times_reap_orphans_as_they_exit(tmp_path):
    """An orphan that exits while the stage still runs is gone at once, not left a zombie until the
    stage ends (tests/test_interactive.py waits for what `make live` started to go away)."""
    check = (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(0.2)\n"
        "        os._exit(0)\n"
        "    os._exit(0)\n"
        "time.sleep(1.5)\n"
        "zombies = [p for p in os.listdir('/proc') if p.isdigit() and p != str(os.getpid())\n"
        "           and open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[:2] == ['Z', str(os.getppid())]]\n"
        "print('zombies', len(zombies))\n"
    )
    done = run_timed(tmp_path, check)
    assert "zombies 0" in done.stdout, done.stdout
