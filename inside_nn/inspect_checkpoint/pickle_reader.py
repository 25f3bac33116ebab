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


class _PickleLimit(_PickleError):
    """A pickle longer than this report reads: not damage, a limit of the report's."""


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
        warnings.simplefilter("ignore")  # pickletools decoding a damaged STRING warns (invalid escape)
        return _parse_pickle_quietly(stream, limit)


_VALUES = (
    "INT", "BININT", "BININT1", "BININT2", "LONG", "LONG1", "LONG4", "FLOAT", "BINFLOAT",
    "STRING", "BINSTRING", "SHORT_BINSTRING", "UNICODE", "BINUNICODE", "SHORT_BINUNICODE",
    "BINUNICODE8", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8",
)  # fmt: skip
_EMPTY = {
    "EMPTY_LIST": list,
    "EMPTY_TUPLE": tuple,
    "EMPTY_DICT": _Dict,
    "EMPTY_SET": _Set,
}


class _Machine:
    """The symbolic pickle machine: the stack, the memo and the marks of pickle's own, holding plain nodes;
    one method per group of opcodes (`_OPCODES` maps each opcode to its method). It imports nothing and calls
    nothing: a global is a _Global, a call an _Obj."""

    def __init__(self, stream):
        self.stream = stream
        self.start = stream.tell()
        self.stack, self.memo, self.marks = [], {}, []
        self.found_globals, self.calls = [], []
        self.protocol = 0

    def pop_mark(self):
        if not self.marks:
            raise _PickleError("a pickle that pops a MARK it never set")
        items = self.stack[self.marks[-1] + 1 :]
        del self.stack[self.marks.pop() :]
        return items

    def pop(self):
        if not self.stack or (self.marks and len(self.stack) - 1 == self.marks[-1]):
            raise _PickleError("a pickle that pops an empty stack")
        return self.stack.pop()

    def top(self):
        if not self.stack:
            raise _PickleError("a pickle that reads an empty stack")
        return self.stack[-1]

    def stop(self) -> _Pickle:
        """STOP: the one value left on the stack is what the pickle builds."""
        if len(self.stack) != 1:
            raise _PickleError(f"a pickle that stops with {len(self.stack)} values on its stack")
        return _Pickle(
            self.stack[0],
            self.found_globals,
            self.calls,
            self.protocol,
            self.stream.tell(),
        )

    def step(self, name: str, arg, pos) -> None:
        """One opcode (any but STOP)."""
        handler = _OPCODES.get(name)
        if handler is None:
            raise _PickleError(f"opcode {name} is not understood")
        handler(self, name, arg, pos)

    def _built(self, obj: _Obj) -> None:
        self.calls.append(obj)
        self.stack.append(obj)

    def _found(self, g: _Global, pos) -> _Global:
        self.found_globals.append((g, pos))
        return g

    # The opcodes, grouped: each takes (name, arg, pos).
    def proto(self, name, arg, pos):
        self.protocol = arg

    def frame(self, name, arg, pos):
        pass

    def mark(self, name, arg, pos):
        self.marks.append(len(self.stack))
        self.stack.append(_MARK)

    def pop_op(self, name, arg, pos):
        self.pop()

    def pop_mark_op(self, name, arg, pos):
        self.pop_mark()

    def dup(self, name, arg, pos):
        self.stack.append(self.top())

    def none(self, name, arg, pos):
        self.stack.append(None)

    def boolean(self, name, arg, pos):
        self.stack.append(name == "NEWTRUE")

    def value(self, name, arg, pos):
        self.stack.append(arg)

    def bytearray8(self, name, arg, pos):
        self.stack.append(bytes(arg))

    def empty(self, name, arg, pos):
        self.stack.append(_EMPTY[name]())

    def list_op(self, name, arg, pos):
        self.stack.append(list(self.pop_mark()))

    def tuple_op(self, name, arg, pos):
        self.stack.append(tuple(self.pop_mark()))

    def tuple_n(self, name, arg, pos):
        n = int(name[-1])
        items = [self.pop() for _ in range(n)][::-1]
        self.stack.append(tuple(items))

    def dict_op(self, name, arg, pos):
        items = self.pop_mark()
        self.stack.append(_Dict(zip(items[::2], items[1::2], strict=False)))

    def frozenset_op(self, name, arg, pos):
        self.stack.append(_Set(self.pop_mark()))

    def append(self, name, arg, pos):
        items = [self.pop()] if name == "APPEND" else self.pop_mark()
        target = self.top()
        if isinstance(target, list):
            target.extend(items)
        elif isinstance(target, _Obj):
            target.elements.extend(items)
        else:
            raise _PickleError(f"APPEND onto a {type(target).__name__}")

    def additems(self, name, arg, pos):
        items = self.pop_mark()
        target = self.top()
        if isinstance(target, _Set):
            target.elements.extend(items)

    def setitem(self, name, arg, pos):
        if name == "SETITEM":
            value = self.pop()
            key = self.pop()
            pairs = [(key, value)]
        else:
            items = self.pop_mark()
            pairs = list(zip(items[::2], items[1::2], strict=False))
        target = self.top()
        if isinstance(target, _Dict | _Obj):
            target.items.extend(pairs)
        else:
            raise _PickleError(f"SETITEM onto a {type(target).__name__}")

    def get(self, name, arg, pos):
        if arg not in self.memo:
            raise _PickleError(f"a memo GET of {arg}, never PUT")
        self.stack.append(self.memo[arg])

    def put(self, name, arg, pos):
        self.memo[arg] = self.top()

    def memoize(self, name, arg, pos):
        self.memo[len(self.memo)] = self.top()

    def global_op(self, name, arg, pos):
        module, _, gname = str(arg).partition(" ")
        g = self._found(_global(module, gname), pos)
        if name == "GLOBAL":
            self.stack.append(g)
        else:
            self._built(_Obj(g, tuple(self.pop_mark())))

    def stack_global(self, name, arg, pos):
        gname, module = self.pop(), self.pop()
        if not isinstance(gname, str) or not isinstance(module, str):
            raise _PickleError("STACK_GLOBAL of a name that is not a string")
        self.stack.append(self._found(_global(module, gname), pos))

    def extension(self, name, arg, pos):
        self.stack.append(self._found(_Global("copyreg extension", str(arg)), pos))

    def reduce(self, name, arg, pos):
        """REDUCE and NEWOBJ: a callable (or class) and its argument tuple."""
        args = self.pop()
        func = self.pop()
        self._built(_Obj(func, args if isinstance(args, tuple) else (args,)))

    def newobj_ex(self, name, arg, pos):
        kwargs, args, cls = self.pop(), self.pop(), self.pop()
        self._built(_Obj(cls, (*(args if isinstance(args, tuple) else (args,)), kwargs)))

    def obj(self, name, arg, pos):
        items = self.pop_mark()
        if not items:
            raise _PickleError("OBJ without a class")
        self._built(_Obj(items[0], tuple(items[1:])))

    def build(self, name, arg, pos):
        state = self.pop()
        target = self.top()
        if isinstance(target, _Obj):
            target.state = state

    def persid(self, name, arg, pos):
        self.stack.append(_Persistent(arg))

    def binpersid(self, name, arg, pos):
        self.stack.append(_Persistent(self.pop()))

    def buffer(self, name, arg, pos):
        g = _Global("pickle", "PickleBuffer (out-of-band)")
        self.stack.append(self._found(g, pos))


_OPCODES = {
    name: handler
    for names, handler in (
        (("PROTO",), _Machine.proto),
        (("FRAME",), _Machine.frame),
        (("MARK",), _Machine.mark),
        (("POP",), _Machine.pop_op),
        (("POP_MARK",), _Machine.pop_mark_op),
        (("DUP",), _Machine.dup),
        (("NONE",), _Machine.none),
        (("NEWTRUE", "NEWFALSE"), _Machine.boolean),
        (_VALUES, _Machine.value),
        (("BYTEARRAY8",), _Machine.bytearray8),
        (tuple(_EMPTY), _Machine.empty),
        (("LIST",), _Machine.list_op),
        (("TUPLE",), _Machine.tuple_op),
        (("TUPLE1", "TUPLE2", "TUPLE3"), _Machine.tuple_n),
        (("DICT",), _Machine.dict_op),
        (("FROZENSET",), _Machine.frozenset_op),
        (("APPEND", "APPENDS"), _Machine.append),
        (("ADDITEMS",), _Machine.additems),
        (("SETITEM", "SETITEMS"), _Machine.setitem),
        (("GET", "BINGET", "LONG_BINGET"), _Machine.get),
        (("PUT", "BINPUT", "LONG_BINPUT"), _Machine.put),
        (("MEMOIZE",), _Machine.memoize),
        (("GLOBAL", "INST"), _Machine.global_op),
        (("STACK_GLOBAL",), _Machine.stack_global),
        (("EXT1", "EXT2", "EXT4"), _Machine.extension),
        (("REDUCE", "NEWOBJ"), _Machine.reduce),
        (("NEWOBJ_EX",), _Machine.newobj_ex),
        (("OBJ",), _Machine.obj),
        (("BUILD",), _Machine.build),
        (("PERSID",), _Machine.persid),
        (("BINPERSID",), _Machine.binpersid),
        (("NEXT_BUFFER", "READONLY_BUFFER"), _Machine.buffer),
    )
    for name in names
}


def _parse_pickle_quietly(stream, limit: int) -> _Pickle:
    """_parse_pickle without its warnings filter: the opcodes run on a _Machine, within `limit` bytes and
    OPCODE_LIMIT opcodes. Any damage (a short read, a bad argument, an empty stack) is a _PickleError."""
    machine = _Machine(stream)
    try:
        for count, (opcode, arg, pos) in enumerate(pickletools.genops(stream)):
            if (pos is not None and pos - machine.start > limit) or count > OPCODE_LIMIT:
                raise _PickleLimit(f"a pickle longer than {_mib(limit)} or {OPCODE_LIMIT:,} opcodes")
            if opcode.name == "STOP":
                return machine.stop()
            machine.step(opcode.name, arg, pos)
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
        and str(node.func) in ("collections.OrderedDict", "builtins.dict", "__builtin__.dict")
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
