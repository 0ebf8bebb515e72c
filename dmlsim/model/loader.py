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

import re
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


class LocatedList(list):
    """A sequence that knows the position of itself and of each of its items."""

    mark: Any = None
    item_marks: list[Any]


# libyaml's parser where PyYAML has it (ten times faster); the constructors below are Python either way
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _LocatedLoader(_SafeLoader):  # type: ignore[misc, valid-type]
    """SafeLoader that builds LocatedDict/LocatedList and rejects duplicate keys."""

    def construct_located_mapping(self, node: yaml.MappingNode) -> LocatedDict:
        own = {id(key) for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"}
        self.flatten_mapping(node)
        result = LocatedDict()
        result.mark = node.start_mark
        result.value_marks = {}
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
        return result

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """Any constructor's failure on odd input (e.g. a scalar that looks like a timestamp but is not one,
        which makes PyYAML's own constructor raise AttributeError) becomes an error located at ``node``."""
        try:
            return super().construct_object(node, deep=deep)
        except yaml.YAMLError:
            raise
        except (ValueError, TypeError, AttributeError, OverflowError, KeyError, IndexError) as exc:
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {node.tag.rsplit(':', 1)[-1]} value {show(getattr(node, 'value', ''))}"
                f" ({type(exc).__name__})", node.start_mark) from None

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        """An integer; one too long for Python's int conversion is a located error, not a ValueError."""
        try:
            return super().construct_yaml_int(node)
        except ValueError:
            raise yaml.constructor.ConstructorError(
                None, None, f"an integer of {len(node.value)} characters is too long", node.start_mark) from None

    def construct_located_sequence(self, node: yaml.SequenceNode) -> LocatedList:
        result = LocatedList(self.construct_object(child, deep=True) for child in node.value)
        result.mark = node.start_mark
        result.item_marks = [child.start_mark for child in node.value]
        return result


_LocatedLoader.add_constructor("tag:yaml.org,2002:map", _LocatedLoader.construct_located_mapping)
_LocatedLoader.add_constructor("tag:yaml.org,2002:seq", _LocatedLoader.construct_located_sequence)
_LocatedLoader.add_constructor("tag:yaml.org,2002:int", _LocatedLoader.construct_yaml_int)
_LocatedLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float", re.compile(r"^[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][-+]?[0-9]+$"),
    list("-+0123456789."))


def blank_json_comments(text: str) -> str:
    """Replace ``//`` and ``/* */`` comments and tabs outside strings by spaces (positions are kept)."""
    out = list(text)
    i, n = 0, len(text)
    in_string = False
    while i < n:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "\t":
            out[i] = " "
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for j in range(i, end):
                if text[j] != "\n":
                    out[j] = " "
            i = end
            continue
        i += 1
    return "".join(out)


def rapidjson_leniency(text: str) -> str:
    """``text`` (comments already blanked) with anything after the root value blanked, and each colon that
    follows its key on a later line moved up behind the key. Line numbers stay; only the moved colon's
    line changes, and it holds nothing else."""
    out = list(text)
    i, n, depth = 0, len(text), 0
    key_end: int | None = None  # index of the closing quote of the last string, while only spaces follow
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            key_end, i = j, j + 1
            continue
        if c == ":" and key_end is not None and "\n" in text[key_end:i]:
            out[key_end], out[i] = '":', " "
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                out[i + 1:] = [ch if ch == "\n" else " " for ch in text[i + 1:]]
                break
        if not c.isspace():
            key_end = None
        i += 1
    return "".join(out)


def _located(name: str, mark: Any, message: str) -> ModelError:
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    return ModelError([Diagnostic(Location(name, line, column), message)])


def _check_depth(text: str, name: str, max_depth: int) -> None:
    """Refuse nesting deeper than ``max_depth`` from the event stream (iterative), before the composer,
    which recurses, meets it."""
    depth = 0
    for event in yaml.parse(text, Loader=_LocatedLoader):
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > max_depth:
                raise _located(name, event.start_mark, f"nested deeper than {max_depth} levels")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1


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


def load_tree(path: str | Path, text: str | None = None, limits: Limits | None = None) -> Any:
    """Parse a .json/.yaml/.yml model file into LocatedDict/LocatedList/scalars; ModelError if unreadable,
    nested deeper or expanding (aliases) to more values than ``limits`` allow."""
    path = Path(path)
    name = str(path)
    limits = limits or Limits()
    if path.suffix.lower() == ".onnx":
        raise ModelError([Diagnostic(Location(name, 1, 1), "an ONNX model: DxDispatch runs these through ONNX "
                                                           "Runtime; dmlsim runs DxDispatch JSON (and YAML) models "
                                                           "of DirectML operators only")])
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError as exc:
            reason = f"not a text model file (it is not UTF-8: byte {exc.start} is {exc.object[exc.start]:#04x})"
            raise ModelError([Diagnostic(Location(name, 1, 1), reason)]) from None
        except OSError as exc:
            raise ModelError([Diagnostic(Location(name, 1, 1), f"cannot read the file: {exc}")]) from None
    if path.suffix.lower() == ".json":
        text = rapidjson_leniency(blank_json_comments(text))
    try:
        _check_depth(text, name, limits.max_depth)
        loader = _LocatedLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                return None
            _check_expansion(node, name, limits.max_nodes)
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

    def __init__(self, value: Any, file: str, mark: Any, path: str) -> None:
        self.value = value
        self.file = file
        self.mark = mark
        self.path = path

    @property
    def location(self) -> Location:
        if self.mark is None:
            return Location(self.file, 1, 1, self.path)
        return Location(self.file, self.mark.line + 1, self.mark.column + 1, self.path)

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
        return Node(self.value[key], self.file, marks.get(key, self.mark), self.child_path(key))

    def without(self, *keys: str) -> Node:
        """This mapping minus ``keys`` (same place and path; the other values keep theirs)."""
        rest = LocatedDict((k, v) for k, v in self.value.items() if k not in keys)
        rest.mark = getattr(self.value, "mark", self.mark)
        rest.value_marks = {k: m for k, m in getattr(self.value, "value_marks", {}).items() if k not in keys}
        return Node(rest, self.file, self.mark, self.path)

    def items(self) -> Iterator[tuple[str, Node]]:
        for key in self.value:
            node = self.get(key)
            assert node is not None  # the key comes from the mapping itself
            yield key, node

    def elements(self) -> Iterator[Node]:
        marks = getattr(self.value, "item_marks", None)
        for i, item in enumerate(self.value):
            mark = marks[i] if marks is not None else self.mark
            yield Node(item, self.file, mark, self.child_path(i))

    def find(self, dotted: list[str]) -> Node:
        """The deepest existing node along ``dotted`` (for pointing at a problem the device reported)."""
        node = self
        for part in dotted:
            if node.is_list and part.isdigit():
                items = list(node.elements())
                if int(part) >= len(items):
                    break
                node = items[int(part)]
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
