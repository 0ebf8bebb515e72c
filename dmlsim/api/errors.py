"""DMLError and the HRESULT values dmlsim reports.

DirectML reports failures as HRESULTs; dmlsim raises :class:`DMLError` carrying the same code, so code
written against the C API can check ``err.hresult`` exactly as it would check a failed ``HRESULT``.
"""

from __future__ import annotations

from collections.abc import Iterable

S_OK = 0x00000000
E_FAIL = 0x80004005
E_NOTIMPL = 0x80004001
E_OUTOFMEMORY = 0x8007000E
E_INVALIDARG = 0x80070057
DXGI_ERROR_INVALID_CALL = 0x887A0001
DXGI_ERROR_UNSUPPORTED = 0x887A0004
DXGI_ERROR_DEVICE_REMOVED = 0x887A0005

HRESULT_NAMES: dict[int, str] = {
    S_OK: "S_OK",
    E_FAIL: "E_FAIL",
    E_NOTIMPL: "E_NOTIMPL",
    E_OUTOFMEMORY: "E_OUTOFMEMORY",
    E_INVALIDARG: "E_INVALIDARG",
    DXGI_ERROR_INVALID_CALL: "DXGI_ERROR_INVALID_CALL",
    DXGI_ERROR_UNSUPPORTED: "DXGI_ERROR_UNSUPPORTED",
    DXGI_ERROR_DEVICE_REMOVED: "DXGI_ERROR_DEVICE_REMOVED",
}


def hresult_from_name(name: str) -> int:
    """The HRESULT value for a name such as ``"E_INVALIDARG"`` (also accepts ``"0x80070057"``)."""
    for value, known in HRESULT_NAMES.items():
        if known == name:
            return value
    try:
        return int(name, 0)
    except ValueError:
        raise ValueError(f"unknown HRESULT {name!r}; known: {', '.join(HRESULT_NAMES.values())}") from None


class DMLError(RuntimeError):
    """A refused DirectML call: ``hresult`` is the code DirectML would return, ``problems`` each violation."""

    def __init__(self, hresult: int, message: str, problems: Iterable[str] = ()) -> None:
        self.hresult = hresult
        self.problems = list(problems) or [message]
        name = HRESULT_NAMES.get(hresult, f"0x{hresult:08X}")
        super().__init__(f"{name} (0x{hresult:08X}): {message}")

    @property
    def hresult_name(self) -> str:
        """The symbolic name of :attr:`hresult` (``E_INVALIDARG``)."""
        return HRESULT_NAMES.get(self.hresult, f"0x{self.hresult:08X}")


class Problems:
    """Collects every violation found in one call, so a single DMLError can report them all at once."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._seen: set[str] = set()  # linear in the number of problems (a desc may have thousands)

    def add(self, message: str) -> None:
        """Record a violation; the same message twice (one count field shared by several arrays) is one problem."""
        if message not in self._seen:
            self._seen.add(message)
            self.items.append(message)

    def __bool__(self) -> bool:
        return bool(self.items)

    def raise_if_any(self, what: str, hresult: int = E_INVALIDARG) -> None:
        """Raise one DMLError listing every collected problem, if there are any."""
        if not self.items:
            return
        if len(self.items) == 1:
            raise DMLError(hresult, f"{what}: {self.items[0]}", self.items)
        listing = "\n".join(f"  - {p}" for p in self.items)
        raise DMLError(hresult, f"{what}: {len(self.items)} problems:\n{listing}", self.items)
