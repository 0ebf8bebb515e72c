"""Reading a model file (YAML or JSON) into a tree that remembers where every node came from.

Both formats go through PyYAML's *safe* loader (no tags that build Python objects are accepted), on
libyaml's parser where PyYAML has it.
JSON is read by the same loader because YAML's flow style is a superset of JSON in practice; the
differences DxDispatch relies on are handled first: RapidJSON's ``//`` and ``/* */`` comments are
blanked out (column positions are kept) and tabs become spaces. Trailing commas are accepted by
YAML flow collections already. Two more of RapidJSON's ways are copied (see :func:`rapidjson_leniency`):
content after the root value is ignored (DxDispatch parses with ``kParseStopWhenDoneFlag``), and a
key may be separated from its colon by a line break (valid JSON, which YAML's flow style refuses).
Numbers like ``1e-8`` (JSON style, no dot) are floats here, as in YAML 1.2 (PyYAML's YAML 1.1
resolver would read them as strings). Duplicate keys are an error rather than last-one-wins;
YAML merge keys (``<<: *anchor``) may be overridden.
"""

from __future__ import annotations

import functools
import json
import re
from bisect import bisect_right
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from dmlsim.model.errors import Diagnostic, Location, ModelError, show
from dmlsim.model.limits import Limits


class LocatedDict(dict):
    """A mapping that knows the position of itself and of each of its values."""

    mark: Any = None
    value_marks: dict[str, Any]
    # where a value reached through a YAML alias (``*name``, or merged by ``<<: *name``) is used: errors
    # inside it are located there, not at the anchor (which many uses may share)
    use_marks: dict[str, Any] | None = None


class LocatedList(list):
    """A sequence that knows the position of itself and of each of its items."""

    mark: Any = None
    item_marks: list[Any]
    use_marks: dict[int, Any] | None = None  # as LocatedDict's


# libyaml's parser where PyYAML has it (ten times faster); the constructors below are Python either way
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LocatedLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that builds LocatedDict/LocatedList and rejects duplicate keys."""

    alias_uses: dict[tuple[int, int], Any] | None = None  # (container node id, key node id or index) -> alias mark

    def construct_located_mapping(self, node: yaml.MappingNode) -> LocatedDict:
        own = {id(key) for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"}
        uses = self.alias_uses or {}
        merged_use = next((uses.get((id(node), id(key))) for key, _ in node.value
                           if key.tag == "tag:yaml.org,2002:merge"), None)
        own_uses = {id(key): uses.get((id(node), id(key))) for key, _ in node.value} if uses else {}
        self.flatten_mapping(node)
        result = LocatedDict()
        result.mark = node.start_mark
        result.value_marks = {}
        use_marks: dict[str, Any] = {}
        seen_own: set[Any] = set()
        for key_node, value_node in node.value:
            key = self.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise yaml.constructor.ConstructorError(None, None, f"a key must be a plain scalar, not {show(key)}",
                                                        key_node.start_mark)
            key = str(key) if not isinstance(key, str) else key
            if id(key_node) in own:
                if key in seen_own:
                    raise yaml.constructor.ConstructorError(None, None, f"duplicate key {show(key)}",
                                                            key_node.start_mark)
                seen_own.add(key)
            result[key] = self.construct_object(value_node, deep=True)
            result.value_marks[key] = value_node.start_mark
            use = own_uses.get(id(key_node)) if id(key_node) in own else merged_use
            if use is not None:
                use_marks[key] = use
        result.use_marks = use_marks or None
        return result

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """Any constructor's failure on odd input (e.g. a scalar that looks like a timestamp but is not one,
        which makes PyYAML's own constructor raise AttributeError) becomes an error located at ``node``."""
        try:
            return super().construct_object(node, deep=deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, OverflowError, KeyError, IndexError) as exc:
            raise _unreadable(node, exc) from None

    def construct_item(self, node: yaml.Node) -> Any:
        """An item of a sequence: a plain number, string, bool or null is built by its constructor directly
        (construct_object's bookkeeping serves collections and anchors, and a scalar built twice is the same
        value), so a list of a million numbers is read in a third less time; anything else as usual."""
        if type(node) is not yaml.ScalarNode or node.tag not in _DIRECT_SCALARS:
            return self.construct_object(node, deep=True)
        try:
            return self.yaml_constructors[node.tag](self, node)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, OverflowError, KeyError, IndexError) as exc:
            raise _unreadable(node, exc) from None

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """An integer; one too long for Python's int conversion is a located error, not a ValueError."""
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of {len(node.value)} characters is too long", node.start_mark) from None

    def construct_located_sequence(self, node: yaml.SequenceNode) -> LocatedList:
        result = LocatedList(map(self.construct_item, node.value))
        result.mark = node.start_mark
        result.item_marks = [child.start_mark for child in node.value]
        if self.alias_uses:
            uses = {i: self.alias_uses[id(node), i] for i in range(len(node.value)) if (id(node), i) in self.alias_uses}
            result.use_marks = uses or None
        return result

    def resolve(self, kind: type, value: str, implicit: tuple[bool, bool]) -> str:
        """The tag of a plain scalar as PyYAML's resolver gives it (the same implicit resolvers, in the same
        order), with the per-character lists joined once: the composer asks this once per value."""
        if kind is yaml.ScalarNode and implicit[0]:
            table = _implicit_resolvers(type(self))
            for tag, regexp in table.get(value[:1], table[None]):
                if regexp.match(value):
                    return tag
            return self.DEFAULT_SCALAR_TAG
        return super().resolve(kind, value, implicit)


def _unreadable(node: yaml.Node, exc: Exception) -> yaml.constructor.ConstructorError:
    return yaml.constructor.ConstructorError(
        None, None, f"cannot read {node.tag.rsplit(':', 1)[-1]} value {show(getattr(node, 'value', ''))}"
        f" ({type(exc).__name__})", node.start_mark)

_DIRECT_SCALARS = {"tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:str",
                   "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"}


@functools.cache
def _implicit_resolvers(loader: type) -> dict[str, tuple]:
    """First character (``""`` for the empty value) → the implicit resolvers PyYAML tries, in its order."""
    table = loader.yaml_implicit_resolvers
    wildcard = table.get(None, [])
    first = {key for key in table if key is not None} | {""}
    return {key: tuple(table.get(key, []) + wildcard) for key in first} | {None: tuple(wildcard)}


_LocatedLoader.add_constructor("tag:yaml.org,2002:map", _LocatedLoader.construct_located_mapping)
_LocatedLoader.add_constructor("tag:yaml.org,2002:seq", _LocatedLoader.construct_located_sequence)
_LocatedLoader.add_constructor("tag:yaml.org,2002:int", _LocatedLoader.construct_yaml_int)
_LocatedLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


# a JSON string (as RapidJSON scans it: up to the next unescaped quote, or to the end of the text), a // or
# /* */ comment (an unclosed one runs to the end), or a tab
_JSON_SPAN = re.compile(r'"(?:[^"\\]|\\[\s\S]?)*"?|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)|\t')
_NOT_NEWLINE = re.compile(r"[^\n]")


def _blank(match: re.Match) -> str:
    span = match.group()
    return span if span[0] == '"' else _NOT_NEWLINE.sub(" ", span)


def blank_json_comments(text: str) -> str:
    """Replace ``//`` and ``/* */`` comments and tabs outside strings by spaces (positions are kept).

    One regular-expression pass (linear, in C): a file of millions of values is read in well under a second."""
    if "/" not in text and "\t" not in text:
        return text
    return _JSON_SPAN.sub(_blank, text)


_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]|\\[\s\S])*"?|[\[\]{}]')
_COLON_ON_A_LATER_LINE = re.compile(r"\s*\n\s*:")  # \s is str.isspace's set


def rapidjson_leniency(text: str) -> str:
    """``text`` (comments already blanked) with anything after the root value blanked, and each colon that
    follows its key on a later line moved up behind the key. Line numbers stay; only the moved colon's
    line changes, and it holds nothing else. One pass over the strings and brackets (linear, in C)."""
    moves: list[tuple[int, int]] = []  # (closing quote of a key, its colon on a later line)
    depth, end = 0, None
    for match in _STRING_OR_BRACKET.finditer(text):
        span = match.group()
        if span[0] == '"':
            if _closed(span) and (colon := _COLON_ON_A_LATER_LINE.match(text, match.end())) is not None:
                moves.append((match.end() - 1, colon.end() - 1))
            continue
        opening = span in "[{"
        depth += 1 if opening else -1
        if depth == 0 and not opening:
            end = match.end()
            break
    if not moves and end is None:
        return text
    pieces, last = [], 0
    for key_end, colon in moves:  # in order, and each colon before the next key
        pieces += [text[last:key_end], '":', text[key_end + 1:colon], " "]
        last = colon + 1
    pieces.append(text[last:end])
    return "".join(pieces) + ("" if end is None else _NOT_NEWLINE.sub(" ", text[end:]))


def _closed(span: str) -> bool:
    """Whether a scanned string ends with its closing quote (not with an escaped quote at the end of the
    text, nor with the opening quote alone)."""
    if len(span) < 2 or span[-1] != '"':
        return False
    return (len(span) - 1 - len(span[:-1].rstrip("\\"))) % 2 == 0


def _located(name: str, mark: Any, message: str) -> ModelError:
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return ModelError([Diagnostic(Location(name, line, column), message)])


def _check_depth(text: str, name: str, max_depth: int) -> tuple[int, bool]:
    """Refuse nesting deeper than ``max_depth`` from the event stream (iterative), before the composer,
    which recurses, meets it. Returns the number of nodes and whether any is an alias (without aliases the
    tree has as many values as nodes, and :func:`_check_expansion` has nothing to add)."""
    depth = nodes = 0
    aliases = False
    for event in yaml.parse(text, Loader=_LocatedLoader):
        kind = type(event)
        if kind is yaml.ScalarEvent:
            nodes += 1
        elif kind is yaml.MappingStartEvent or kind is yaml.SequenceStartEvent:
            nodes += 1
            depth += 1
            if depth > max_depth:
                raise _located(name, event.start_mark, f"nested deeper than {max_depth} levels")
        elif kind is yaml.MappingEndEvent or kind is yaml.SequenceEndEvent:
            depth -= 1
        elif kind is yaml.AliasEvent:
            aliases = True
    return nodes, aliases


def _alias_uses(text: str, root: yaml.Node) -> dict[tuple[int, int], Any]:
    """Where each alias of the document is used: (id of the containing node, id of the mapping entry's key
    node or the sequence index) -> the alias's mark. The composer hands an alias back as the anchored node
    itself, so the uses are found by walking the composed nodes along the event stream (both in document
    order; nesting is bounded by the depth check that ran first)."""
    events = (e for e in yaml.parse(text, Loader=_LocatedLoader)
              if not isinstance(e, (yaml.StreamStartEvent, yaml.StreamEndEvent, yaml.DocumentStartEvent,
                                    yaml.DocumentEndEvent)))
    uses: dict[tuple[int, int], Any] = {}

    def walk(node: yaml.Node) -> Any:
        """Consume ``node``'s events; the alias's mark when it is an alias there, else None."""
        event = next(events)
        if isinstance(event, yaml.AliasEvent):
            return event.start_mark
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                walk(key)
                mark = walk(value)
                if mark is not None:
                    uses[id(node), id(key)] = mark
            next(events)  # MappingEndEvent
        elif isinstance(node, yaml.SequenceNode):
            for index, item in enumerate(node.value):
                mark = walk(item)
                if mark is not None:
                    uses[id(node), index] = mark
            next(events)  # SequenceEndEvent
        return None

    walk(root)
    return uses


def _check_expansion(root: yaml.Node, name: str, max_nodes: int) -> None:
    """Refuse a tree of more than ``max_nodes`` values once aliases are expanded (the "billion laughs"),
    at the smallest node that exceeds it. Sizes are computed once per node, bottom-up, without recursion."""
    sizes: dict[int, int] = {}
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, ready = stack.pop()
        if id(node) in sizes:
            continue
        children = ([v for pair in node.value for v in pair] if isinstance(node, yaml.MappingNode)
                    else node.value if isinstance(node, yaml.SequenceNode) else [])
        if not ready:
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        size = 1 + sum(sizes[id(child)] for child in children)
        if size > max_nodes:
            raise _located(name, node.start_mark, f"this value expands to more than {max_nodes:,} values "
                                                  "(through YAML aliases?)")
        sizes[id(node)] = size


class _Source:
    """A JSON model's text, and where its lines start (found once, when a first position is asked for)."""

    LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")  # the line breaks libyaml counts

    def __init__(self, text: str) -> None:
        self.text = text
        self._line_starts: list[int] | None = None

    def line_and_column(self, offset: int) -> tuple[int, int]:
        if self._line_starts is None:
            self._line_starts = [0, *(m.end() for m in self.LINE_BREAK.finditer(self.text))]
        line = bisect_right(self._line_starts, offset) - 1
        return line, offset - self._line_starts[line]


class _Mark:
    """A position in a JSON text, 0-based ``line`` and ``column`` as PyYAML's marks give them, found only when
    asked for: a file of a million values is parsed by the json module (in C), which reports no positions, and
    only the few values an error message names are ever located (by one scan of their container)."""

    __slots__ = ("_offset", "container", "key", "source")

    def __init__(self, source: _Source, offset: int | None = None, container: Any = None, key: Any = None) -> None:
        self.source, self._offset, self.container, self.key = source, offset, container, key

    @property
    def offset(self) -> int:
        if self._offset is None:
            self._offset = _child_offsets(self.container)[self.key]
        return self._offset

    @property
    def line(self) -> int:
        return self.source.line_and_column(self.offset)[0]

    @property
    def column(self) -> int:
        return self.source.line_and_column(self.offset)[1]


class _ChildMarks:
    """``value_marks``/``item_marks`` of a container the json module read: a lazy :class:`_Mark` per child."""

    __slots__ = ("container",)

    def __init__(self, container: Any) -> None:
        self.container = container

    def __getitem__(self, key: Any) -> _Mark:
        return _Mark(self.container.source, container=self.container, key=key)

    def get(self, key: Any, default: Any = None) -> Any:
        return self[key] if key in self.container else default

    def items(self) -> Iterator[tuple[Any, _Mark]]:
        return ((key, self[key]) for key in self.container)


class _JsonDict(LocatedDict):
    """A mapping the json module read: its values' positions are found when asked for."""

    source: _Source
    offsets: dict[str, int] | None = None

    @property  # type: ignore[override]
    def value_marks(self) -> _ChildMarks:  # made on each access: stored, it would make a reference cycle
        return _ChildMarks(self)


class _JsonList(LocatedList):
    """A sequence the json module read: its items' positions are found when asked for."""

    source: _Source
    offsets: list[int] | None = None

    @property  # type: ignore[override]
    def item_marks(self) -> _ChildMarks:
        return _ChildMarks(self)


_JSON_SPACE = re.compile(r"[ \t\n\r]*")
_NOT_STRICT = object()  # _strict_json's answer for a text the YAML loader must read


class _NotStrictError(Exception):
    """The text is not strict JSON (a duplicate key, NaN, an integer too long...): the YAML path reads it."""


def _refuse_constant(name: str) -> Any:
    raise _NotStrictError(name)


def _json_object(pairs: list[tuple[str, Any]]) -> _JsonDict:
    result = _JsonDict(pairs)
    if len(result) != len(pairs):
        raise _NotStrictError("duplicate key")  # the YAML path reports it, located
    return result


_DECODER = json.JSONDecoder(object_pairs_hook=_json_object, parse_constant=_refuse_constant)


def _child_offsets(container: Any) -> Any:
    """The text offset of each child of a container the json module read (a dict by key, a list by index),
    from one scan of its text: its children are skipped by the json module's scanner (in C)."""
    offsets = container.offsets
    if offsets is not None:
        return offsets
    text, scan = container.source.text, _DECODER.scan_once
    pos = _JSON_SPACE.match(text, container.mark.offset + 1).end()
    if isinstance(container, dict):
        offsets = {}
        while text[pos] == '"':
            key, pos = json.decoder.scanstring(text, pos + 1)
            pos = _JSON_SPACE.match(text, _JSON_SPACE.match(text, pos).end() + 1).end()  # past the colon
            offsets[key] = pos
            pos = _JSON_SPACE.match(text, scan(text, pos)[1]).end()
            if text[pos] == ",":
                pos = _JSON_SPACE.match(text, pos + 1).end()
    else:
        offsets = []
        while text[pos] != "]":
            offsets.append(pos)
            pos = _JSON_SPACE.match(text, scan(text, pos)[1]).end()
            if text[pos] == ",":
                pos = _JSON_SPACE.match(text, pos + 1).end()
    container.offsets = offsets
    return offsets


def _strict_json(text: str, name: str, limits: Limits) -> Any:
    """The tree of a model whose root is a strict-JSON object or array, read by the json module (C: a million
    values in a fraction of a second, where the YAML loader takes tens of seconds), positions found only when
    an error names them; ``_NOT_STRICT`` when the YAML path must read it (anything the json module refuses,
    duplicate keys, NaN/Infinity, nesting deeper than ``limits.max_depth``: that path reports each, located, and
    reads DxDispatch's leniencies). The same tree as the YAML path gives for such a text: strict JSON means
    the same in both. Content after the root value is ignored, as RapidJSON's kParseStopWhenDoneFlag does."""
    start = _JSON_SPACE.match(text).end()
    if text[start:start + 1] not in ("{", "["):
        return _NOT_STRICT
    try:
        root = _DECODER.raw_decode(text, start)[0]
    except (ValueError, _NotStrictError, RecursionError):
        return _NOT_STRICT
    source = _Source(text)
    root = _JsonList(root) if isinstance(root, list) else root
    root.mark = _Mark(source, start)
    order: list[tuple[Any, int, int]] = []  # (container, depth, parent's index in order), parents first
    stack = [(root, 1, -1)]
    while stack:
        container, depth, parent = stack.pop()
        if depth > limits.max_depth:
            return _NOT_STRICT
        index = len(order)
        order.append((container, depth, parent))
        container.source = source
        for key, child in container.items() if isinstance(container, dict) else enumerate(container):
            if isinstance(child, list):
                child = container[key] = _JsonList(child)
            elif not isinstance(child, dict):
                continue
            child.mark = _Mark(source, container=container, key=key)
            stack.append((child, depth + 1, index))
    sizes = [1 + len(c) * (2 if isinstance(c, dict) else 1) for c, _, _ in order]  # containers count as leaves
    for i in range(len(order) - 1, 0, -1):  # children after their parents: add each subtree to its parent
        sizes[order[i][2]] += sizes[i] - 1
    if sizes[0] > limits.max_nodes:
        smallest = min((i for i, size in enumerate(sizes) if size > limits.max_nodes), key=sizes.__getitem__)
        raise _located(name, order[smallest][0].mark, f"this value holds more than {limits.max_nodes:,} values")
    return root


def load_tree(path: str | Path, text: str | None = None, limits: Limits | None = None) -> Any:
    """Parse a .json/.yaml/.yml model file into LocatedDict/LocatedList/scalars; ModelError if unreadable,
    nested deeper or expanding (aliases) to more values than ``limits`` allow."""
    path = Path(path)
    name = str(path)
    limits = limits or Limits()
    if path.suffix.lower() == ".onnx":
        raise ModelError([Diagnostic(Location(name, 1, 1), "an ONNX model: `dmlsim run` and `dmlsim export` "
                                                           "take it (lowered onto DirectML); this reads DxDispatch "
                                                           "JSON (and YAML) models of DirectML operators only")])
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            reason = f"not a text model file (it is not UTF-8: byte {exc.start} is {exc.object[exc.start]:#04x})"
            raise ModelError([Diagnostic(Location(name, 1, 1), reason)]) from None
        except OSError as exc:
            raise ModelError([Diagnostic(Location(name, 1, 1), f"cannot read the file: {exc}")]) from None
    if path.suffix.lower() == ".json":
        text = blank_json_comments(text)
        tree = _strict_json(text, name, limits)
        if tree is not _NOT_STRICT:
            return tree
        text = rapidjson_leniency(text)
    try:
        nodes, aliases = _check_depth(text, name, limits.max_depth)
        loader = _LocatedLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            if aliases or nodes > limits.max_nodes:
                _check_expansion(node, name, limits.max_nodes)
            if aliases:
                loader.alias_uses = _alias_uses(text, node)
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except yaml.MarkedYAMLError as exc:
        problem = " ".join(p for p in (exc.context, exc.problem) if p)
        raise _located(name, exc.problem_mark or exc.context_mark, f"syntax error: {problem}") from None
    except yaml.YAMLError as exc:
        raise ModelError([Diagnostic(Location(name, 1, 1), f"syntax error: {exc}")]) from None


class Node:
    """A value of the tree with its location and key path, for precise error messages."""

    def __init__(self, value: Any, file: str, mark: Any, path: str, use: Any = None) -> None:
        self.value = value
        self.file = file
        self.mark = mark
        self.path = path
        self.use = use  # the YAML alias this value is reached through (then it is located there), or None

    @property
    def location(self) -> Location:
        if self.use is not None:
            written = f"{self.mark.line + 1}:{self.mark.column + 1}" if self.mark is not None else ""
            return Location(self.file, self.use.line + 1, self.use.column + 1, self.path, written)
        if self.mark is None:
            return Location(self.file, 1, 1, self.path)
        return Location(self.file, self.mark.line + 1, self.mark.column + 1, self.path)

    def _use_of(self, key: str | int) -> Any:
        """Where the child ``key`` is used: this node's alias, else the child's own alias, else None."""
        if self.use is not None:
            return self.use
        uses = getattr(self.value, "use_marks", None)
        return uses.get(key) if uses else None

    @property
    def is_map(self) -> bool:
        return isinstance(self.value, dict)

    @property
    def is_list(self) -> bool:
        return isinstance(self.value, list)

    def child_path(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else str(key)

    def __contains__(self, key: str) -> bool:
        return self.is_map and key in self.value

    def get(self, key: str) -> Node | None:
        """The child under ``key`` (None when absent)."""
        if not self.is_map or key not in self.value:
            return None
        marks = getattr(self.value, "value_marks", {})
        return Node(self.value[key], self.file, marks.get(key, self.mark), self.child_path(key), self._use_of(key))

    def without(self, *keys: str) -> Node:
        """This mapping minus ``keys`` (same place and path; the other values keep theirs)."""
        rest = LocatedDict((k, v) for k, v in self.value.items() if k not in keys)
        rest.mark = getattr(self.value, "mark", self.mark)
        rest.value_marks = {k: m for k, m in getattr(self.value, "value_marks", {}).items() if k not in keys}
        rest.use_marks = {k: m for k, m in (getattr(self.value, "use_marks", None) or {}).items() if k not in keys}
        return Node(rest, self.file, self.mark, self.path, self.use)

    def items(self) -> Iterator[tuple[str, Node]]:
        for key in self.value:
            node = self.get(key)
            assert node is not None  # the key comes from the mapping itself
            yield key, node

    def elements(self) -> Iterator[Node]:
        marks = getattr(self.value, "item_marks", None)
        for i, item in enumerate(self.value):
            mark = marks[i] if marks is not None else self.mark
            yield Node(item, self.file, mark, self.child_path(i), self._use_of(i))

    def element(self, index: int) -> Node:
        """Item ``index`` of this list (in constant time: error locations must not scan the list)."""
        marks = getattr(self.value, "item_marks", None)
        mark = marks[index] if marks is not None else self.mark
        return Node(self.value[index], self.file, mark, self.child_path(index), self._use_of(index))

    def find(self, dotted: list[str]) -> Node:
        """The deepest existing node along ``dotted`` (for pointing at a problem the device reported)."""
        node = self
        for part in dotted:
            if node.is_list and part.isdigit():
                if int(part) >= len(node.value):
                    break
                node = node.element(int(part))
                continue
            child = node.get(part)
            if child is None:
                if part == "Desc" and node.is_map:  # a nested desc written with its fields beside Type
                    continue
                break
            node = child
        return node


def root_node(path: str | Path, text: str | None = None, limits: Limits | None = None) -> Node:
    tree = load_tree(path, text, limits)
    return Node(tree, str(path), getattr(tree, "mark", None), "")
