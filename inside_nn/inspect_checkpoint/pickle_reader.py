"""The pickle, read without running it: a symbolic machine over pickletools.genops that builds plain
nodes (_Global, _Obj, _Dict, _Persistent, _Set, lists and tuples), imports nothing and calls nothing."""

from __future__ import annotations

import dataclasses
import pickletools
import struct
import warnings

from inside_nn.inspect_checkpoint.checkpoint_report import _mib
from inside_nn.inspect_checkpoint.files import _BoundedStream, _File
from inside_nn.inspect_checkpoint.limits import OPCODE_LIMIT, PICKLE_LIMIT
from inside_nn.inspect_module import one_line


class _PickleError(Exception):
    pass


@dataclasses.dataclass(frozen=True)
class _Global:
    module: str
    name: str

    def __str__(self) -> str:
        return f"{self.module}.{self.name}"


class _Obj:
    """What REDUCE, NEWOBJ, INST or OBJ would build: func(*args), then BUILD's state, SETITEMS' items, APPENDS'."""

    __slots__ = ("args", "elements", "func", "items", "state")

    def __init__(self, func, args):
        self.func = func
        self.args = args
        self.state = None
        self.items = []
        self.elements = []


class _Dict:
    __slots__ = ("items",)

    def __init__(self, items=None):
        self.items = list(items or [])


class _Persistent:
    __slots__ = ("pid",)

    def __init__(self, pid):
        self.pid = pid


class _Set:
    __slots__ = ("elements",)

    def __init__(self, elements=()):
        self.elements = list(elements)


_MARK = object()


def _global(module: str, name: str) -> _Global:
    """The global a pickle names, with the Python 2 names mapped as pickle (fix_imports) and weights_only map them."""
    from _compat_pickle import IMPORT_MAPPING, NAME_MAPPING

    if (module, name) in NAME_MAPPING:
        module, name = NAME_MAPPING[(module, name)]
    elif module in IMPORT_MAPPING:
        module = IMPORT_MAPPING[module]
    return _Global(module, name)


@dataclasses.dataclass
class _Pickle:
    root: object
    globals: list  # (_Global, position)
    calls: list  # _Obj built by REDUCE/NEWOBJ/INST/OBJ
    protocol: int
    end: int  # the position after STOP


def _parse_pickle(stream, limit: int = PICKLE_LIMIT) -> _Pickle:
    """Read one pickle from `stream` into _Global/_Obj/_Dict/_Persistent/list/tuple values, calling nothing."""
    with warnings.catch_warnings():
        warnings.simplefilter(
            "ignore"
        )  # pickletools decoding a damaged STRING warns (invalid escape)
        return _parse_pickle_quietly(stream, limit)


def _parse_pickle_quietly(stream, limit: int) -> _Pickle:
    start = stream.tell()
    stack, memo, marks = [], {}, []
    found_globals, calls = [], []
    protocol = 0

    def pop_mark():
        if not marks:
            raise _PickleError("a pickle that pops a MARK it never set")
        items = stack[marks[-1] + 1 :]
        del stack[marks.pop() :]
        return items

    def pop():
        if not stack or (marks and len(stack) - 1 == marks[-1]):
            raise _PickleError("a pickle that pops an empty stack")
        return stack.pop()

    def top():
        if not stack:
            raise _PickleError("a pickle that reads an empty stack")
        return stack[-1]

    try:
        for count, (opcode, arg, pos) in enumerate(pickletools.genops(stream)):
            if (pos is not None and pos - start > limit) or count > OPCODE_LIMIT:
                raise _PickleError(
                    f"a pickle longer than {_mib(limit)} or {OPCODE_LIMIT:,} opcodes"
                )
            name = opcode.name
            if name == "PROTO":
                protocol = arg
            elif name in ("FRAME",):
                continue
            elif name == "STOP":
                if len(stack) != 1:
                    raise _PickleError(
                        f"a pickle that stops with {len(stack)} values on its stack"
                    )
                return _Pickle(stack[0], found_globals, calls, protocol, stream.tell())
            elif name == "MARK":
                marks.append(len(stack))
                stack.append(_MARK)
            elif name == "POP":
                pop()
            elif name == "POP_MARK":
                pop_mark()
            elif name == "DUP":
                stack.append(top())
            elif name in ("NONE",):
                stack.append(None)
            elif name in ("NEWTRUE", "NEWFALSE"):
                stack.append(name == "NEWTRUE")
            elif name in (
                "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
                "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE",
                "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
            ):  # fmt: skip
                stack.append(arg)
            elif name == "BYTEARRAY8":
                stack.append(bytes(arg))
            elif name == "EMPTY_LIST":
                stack.append([])
            elif name == "EMPTY_TUPLE":
                stack.append(())
            elif name == "EMPTY_DICT":
                stack.append(_Dict())
            elif name == "EMPTY_SET":
                stack.append(_Set())
            elif name == "LIST":
                stack.append(list(pop_mark()))
            elif name == "TUPLE":
                stack.append(tuple(pop_mark()))
            elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
                n = int(name[-1])
                items = [pop() for _ in range(n)][::-1]
                stack.append(tuple(items))
            elif name == "DICT":
                items = pop_mark()
                stack.append(_Dict(zip(items[::2], items[1::2], strict=False)))
            elif name == "FROZENSET":
                stack.append(_Set(pop_mark()))
            elif name in ("APPEND", "APPENDS"):
                items = [pop()] if name == "APPEND" else pop_mark()
                target = top()
                if isinstance(target, list):
                    target.extend(items)
                elif isinstance(target, _Obj):
                    target.elements.extend(items)
                else:
                    raise _PickleError(f"APPEND onto a {type(target).__name__}")
            elif name == "ADDITEMS":
                items = pop_mark()
                target = top()
                if isinstance(target, _Set):
                    target.elements.extend(items)
            elif name in ("SETITEM", "SETITEMS"):
                if name == "SETITEM":
                    value = pop()
                    key = pop()
                    pairs = [(key, value)]
                else:
                    items = pop_mark()
                    pairs = list(zip(items[::2], items[1::2], strict=False))
                target = top()
                if isinstance(target, _Dict | _Obj):
                    target.items.extend(pairs)
                else:
                    raise _PickleError(f"SETITEM onto a {type(target).__name__}")
            elif name in ("GET", "BINGET", "LONG_BINGET"):
                if arg not in memo:
                    raise _PickleError(f"a memo GET of {arg}, never PUT")
                stack.append(memo[arg])
            elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
                memo[arg] = top()
            elif name == "MEMOIZE":
                memo[len(memo)] = top()
            elif name in ("GLOBAL", "INST"):
                module, _, gname = str(arg).partition(" ")
                g = _global(module, gname)
                found_globals.append((g, pos))
                if name == "GLOBAL":
                    stack.append(g)
                else:
                    obj = _Obj(g, tuple(pop_mark()))
                    calls.append(obj)
                    stack.append(obj)
            elif name == "STACK_GLOBAL":
                gname, module = pop(), pop()
                if not isinstance(gname, str) or not isinstance(module, str):
                    raise _PickleError("STACK_GLOBAL of a name that is not a string")
                g = _global(module, gname)
                found_globals.append((g, pos))
                stack.append(g)
            elif name in ("EXT1", "EXT2", "EXT4"):
                g = _Global("copyreg extension", str(arg))
                found_globals.append((g, pos))
                stack.append(g)
            elif name == "REDUCE":
                args = pop()
                func = pop()
                obj = _Obj(func, args if isinstance(args, tuple) else (args,))
                calls.append(obj)
                stack.append(obj)
            elif name == "NEWOBJ":
                args = pop()
                cls = pop()
                obj = _Obj(cls, args if isinstance(args, tuple) else (args,))
                calls.append(obj)
                stack.append(obj)
            elif name == "NEWOBJ_EX":
                kwargs, args, cls = pop(), pop(), pop()
                obj = _Obj(
                    cls, (*(args if isinstance(args, tuple) else (args,)), kwargs)
                )
                calls.append(obj)
                stack.append(obj)
            elif name == "OBJ":
                items = pop_mark()
                if not items:
                    raise _PickleError("OBJ without a class")
                obj = _Obj(items[0], tuple(items[1:]))
                calls.append(obj)
                stack.append(obj)
            elif name == "BUILD":
                state = pop()
                target = top()
                if isinstance(target, _Obj):
                    target.state = state
            elif name == "PERSID":
                stack.append(_Persistent(arg))
            elif name == "BINPERSID":
                stack.append(_Persistent(pop()))
            elif name in ("NEXT_BUFFER", "READONLY_BUFFER"):
                g = _Global("pickle", "PickleBuffer (out-of-band)")
                found_globals.append((g, pos))
                stack.append(g)
            else:
                raise _PickleError(f"opcode {name} is not understood")
    except _PickleError:
        raise
    except (
        ValueError,
        IndexError,
        KeyError,
        EOFError,
        struct.error,
        UnicodeDecodeError,
        OverflowError,
    ) as error:
        raise _PickleError(f"a damaged pickle ({one_line(error, 160)})") from None
    raise _PickleError("a pickle without STOP (the stream ends before the pickle does)")


def _mapping(node):
    """The (key, value) pairs of a dict or OrderedDict node, else None."""
    if isinstance(node, _Dict):
        return node.items
    if (
        isinstance(node, _Obj)
        and isinstance(node.func, _Global)
        and str(node.func)
        in ("collections.OrderedDict", "builtins.dict", "__builtin__.dict")
        and not node.elements
    ):
        return node.items
    return None


def _last_wins(pairs) -> dict:
    out = {}
    for k, v in pairs:
        if isinstance(k, str | int | float | bool | bytes | type(None)):
            out[k] = v
    return out


def _pickle_like(f: _File) -> bool:
    """A pickle of protocol 0 or 1 (text opcodes, no PROTO): whether one parses from the start of the file."""
    try:
        _parse_pickle(_BoundedStream(f), min(f.size, PICKLE_LIMIT))
    except _PickleError:
        return False
    return True
