"""Gives the memory of a large request back to the system once it is answered.

Decoding a million-sample submission allocates hundreds of MiB of small objects; Python frees
them, but glibc's malloc keeps the pages in its arenas (one per thread that served a request),
so the api's RSS would stay near its peak. After each request with a body of at least
`min_bytes`, a collection and `malloc_trim(0)` return the free pages.
"""

import ctypes
import ctypes.util
import gc

from anyio import to_thread
from starlette.types import ASGIApp, Receive, Scope, Send


def _malloc_trim() -> None:
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


_name = ctypes.util.find_library("c")
_LIBC = ctypes.CDLL(_name) if _name else None
if _LIBC is not None and not hasattr(_LIBC, "malloc_trim"):  # not glibc
    _LIBC = None


class ReleaseMemory:
    def __init__(self, app: ASGIApp, min_bytes: int) -> None:
        self.app = app
        self.min_bytes = min_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        large = declared.isdigit() and int(declared) >= self.min_bytes
        try:
            await self.app(scope, receive, send)
        finally:
            if large:
                await to_thread.run_sync(_malloc_trim)
