"""The allow-list a file refused by torch.load(weights_only=True) needs, found by trying it: which refused globals
run code (never allowed, never imported), which are data (classes, NumPy's reconstructors), and the
`torch.serialization.safe_globals([...])` list that makes the load succeed, re-tried until it does or says what
else it needs. Nothing is printed as a fix unless torch.load accepted the file with it."""

from __future__ import annotations

import importlib
import re
import sys
import warnings

import torch

# Modules whose callables a hostile pickle calls to run code: a global from one of them is named as such in the
# report, never imported, never allowed (weights_only=True refuses everything outside its allowlist either way).
CODE_MODULES = {
    "os", "posix", "nt", "subprocess", "_posixsubprocess", "sys", "runpy", "importlib", "shutil", "socket", "pty",
    "commands", "webbrowser", "code", "codeop", "ctypes", "multiprocessing", "pickle", "_pickle", "marshal",
    "platform", "asyncio", "requests", "urllib", "http", "ftplib", "telnetlib", "tempfile", "io", "_io",
    "zipimport", "pydoc", "timeit", "bdb", "pdb", "signal", "threading", "_thread", "builtins", "__builtin__",
    "operator", "types", "inspect", "gc", "atexit", "sysconfig", "site", "venv", "ensurepip",
    "torch.hub", "torch.ops", "torch._ops", "torch.jit", "torch.utils.cpp_extension", "numpy.f2py",
    "numpy.distutils", "numpy.testing",
}  # fmt: skip

# Callables that run code whatever module they come from (builtins.eval, operator.attrgetter, ...).
CODE_NAMES = {
    "eval", "exec", "execfile", "compile", "__import__", "system", "popen", "spawn", "getattr", "setattr", "delattr",
    "open", "apply", "breakpoint", "input", "globals", "locals", "vars", "attrgetter", "methodcaller", "load",
    "loads", "call", "run", "Popen", "check_output", "check_call", "getoutput", "spawnv", "execv", "startfile",
}  # fmt: skip

# Modules imported here to resolve a data class the file names (their import runs no code of the file's
# choosing): the standard library's data modules and NumPy. Any other module (torch's own submodules too:
# importing torch.distributed.tensor allowlists DTensor for the whole process) is resolved only if the process
# has imported it already; otherwise the report says to import it first.
IMPORTABLE = {
    "numpy", "argparse", "pathlib", "collections", "dataclasses", "datetime", "decimal", "enum",
    "fractions", "ipaddress", "uuid", "typing", "re", "copyreg", "array", "_codecs", "codecs", "math", "zoneinfo",
}  # fmt: skip

# Classes that are data although their module is in CODE_MODULES (builtins' containers and scalars; pathlib
# and friends are not listed there at all).
DATA_GLOBALS = {
    "builtins.dict", "builtins.list", "builtins.tuple", "builtins.set", "builtins.frozenset", "builtins.int",
    "builtins.float", "builtins.complex", "builtins.str", "builtins.bytes", "builtins.bytearray", "builtins.bool",
    "builtins.slice", "builtins.range", "builtins.object", "builtins.type", "functools.partial",
    "types.SimpleNamespace",
}  # fmt: skip

ROUNDS = 12  # re-tries of the load, each adding what the previous one named


def runs_code(module: str, name: str, obj=None) -> bool:
    """Whether the global module.name can run code when a pickle calls it (os.system, builtins.eval, a method
    reached through a class), as opposed to a data class (pathlib.PosixPath, argparse.Namespace, a dataclass)."""
    if f"{module}.{name}" in DATA_GLOBALS:
        return False
    parts = module.split(".")
    if any(".".join(parts[: i + 1]) in CODE_MODULES for i in range(len(parts))):
        return True
    if name.rpartition(".")[2] in CODE_NAMES:
        return True
    if obj is not None:
        home = getattr(obj, "__module__", None) or ""
        if any(".".join(home.split(".")[: i + 1]) in CODE_MODULES for i in range(len(home.split(".")))):
            return True
        if "." in name and not isinstance(obj, type):  # a method reached through a class: Path.write_text
            return True
    return "." in name and obj is None  # not resolved: a dotted name may be a method


def resolve(module: str, name: str):
    """The object module.name names, or None: imported only from IMPORTABLE or already imported modules."""
    if module not in sys.modules and module.partition(".")[0] not in IMPORTABLE:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # numpy.core is numpy._core's deprecated alias
            obj = importlib.import_module(module)
            for part in name.split("."):
                obj = getattr(obj, part)
    except (ImportError, AttributeError, ValueError):
        return None
    return obj


def _qualified(obj) -> str:
    return f"{getattr(obj, '__module__', '?')}.{getattr(obj, '__qualname__', '?')}"


class AllowList:
    """The `safe_globals` entries found so far: each an object, or (object, the name the file gives it) where
    the object lives under another name (numpy.core is numpy._core; a dict subclass read as dict)."""

    def __init__(self):
        self.entries: dict[str, object] = {}  # the name in the file -> the object allowed for it
        self.as_dict: list[str] = []  # dict subclasses read as plain dicts
        self.needs: list[str] = []  # what no entry can give: the reason the search stopped

    def add(self, full: str, module: str | None = None, name: str | None = None) -> bool:
        """Allow the global `full` (module.name, split where the pickle splits it) if it is data and resolves;
        else say why not in `needs`."""
        if module is None or name is None:
            module, name = _split(full)
        obj = resolve(module, name)
        if runs_code(module, name, obj):
            self.needs.append(f"{full} runs code when called: never allow it")
        elif obj is None and module.startswith("torch."):
            self.needs.append(
                f"{full} is torch's own, from a module not imported here: import {module} before torch.load "
                "(torch allowlists its DTensor and nested-tensor classes when their modules are imported; not "
                "tried here, since that import changes the allowlist for the whole process)"
            )
        elif obj is None:
            self.needs.append(
                f"{full} is not imported here (importing {module} runs its code): import it, then allow it"
            )
        elif full in self.entries:
            self.needs.append(f"{full} is allowed and still refused")
        else:
            self.entries[full] = obj
            return True
        return False

    def safe_globals(self) -> list:
        return [obj if _qualified(obj) == full else (obj, full) for full, obj in self.entries.items()]

    def text(self) -> str:
        """The list as Python source, with the imports it needs."""
        shown, modules = [], set()
        for full, obj in self.entries.items():
            expr = "dict" if obj is dict else _qualified(obj)
            if obj is not dict and obj.__module__ != "builtins":
                modules.add(obj.__module__)
            shown.append(expr if _qualified(obj) == full else f'({expr}, "{full}")')
        imports = f"import {', '.join(sorted(modules))}, then " if modules else ""
        return f"{imports}with torch.serialization.safe_globals([{', '.join(shown)}]): torch.load(path)"

    def search(self, load) -> tuple[bool, str]:
        """Re-try `load` under the entries, adding what each refusal names, until it loads (True, "") or stops
        (False, torch's last words)."""
        from torch import _weights_only_unpickler as wo

        said, before = "", wo._marked_safe_globals_set  # the process's allowlist, the very set object
        try:
            for _ in range(ROUNDS):
                try:
                    with torch.serialization.safe_globals(self.safe_globals()):
                        load()
                    return True, ""
                except Exception as error:  # noqa: BLE001 (torch's refusal names what it needs next)
                    said = " ".join(str(error).split())
                if not self._next(said):
                    return False, said
            return False, said
        finally:
            # safe_globals' exit removes what it added even where the process had allowed it before, and
            # rebuilds the set in another order: put back the set the process had, untouched
            wo._marked_safe_globals_set = before

    def _next(self, said: str) -> bool:
        """Add what torch's refusal `said` names; False when nothing can be added."""
        found = re.search(r"Unsupported global: GLOBAL (\S+) was not an allowed global", said)
        if found:
            full = found.group(1)
            return self.add(full if "." in full else f"builtins.{full}")
        found = re.search(r"(?:Can only build|Can only create new object).* but got <class '([^']+)'>", said)
        if found:
            return self.add(found.group(1))
        found = re.search(r"Can only SETITEMS? for dict.* but got <class '([^']+)'>", said)
        if found and found.group(1) in self.entries and self.entries[found.group(1)] is not dict:
            # torch's weights_only unpickler fills only dict, OrderedDict and Counter: a dict subclass loads
            # only as a plain dict, by allowing dict under the subclass's name
            self.entries[found.group(1)] = dict
            self.as_dict.append(found.group(1))
            return True
        if found:
            self.needs.append(
                f"{found.group(1)} is a dict subclass, and torch's weights_only unpickler fills only dict, "
                "OrderedDict and Counter: no allow-list loads it"
            )
        return False


def _split(full: str) -> tuple[str, str]:
    """(module, name) of a dotted global: the longest prefix that is an imported or importable module."""
    parts = full.split(".")
    for i in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:i])
        if module in sys.modules:
            return module, ".".join(parts[i:])
    return ".".join(parts[:-1]), parts[-1]
