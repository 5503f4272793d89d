"""Probing damas endgame databases from Python, over libdamas.so (ctypes: no build step).

    import damas_probe
    db = damas_probe.open("run/db/russian")
    db.probe("W:WKc3,e3:Bd8")   # {'variant': 'russian', 'fen': ..., 'wdl': 'win', 'dtw': 5,
                                #  'bestmove': 'e3-d4', 'moves': [...], 'line': [...]}
    db.moves("W:WKc3,e3:Bd8")   # [{'move': 'e3-d4', 'wdl': 'win', 'dtw': 5, 'fen': ...}, ...]

probe() returns the same object as `damas probe --json`. A bad FEN raises ValueError, a
position the database does not cover LookupError, a damaged file OSError.

libdamas.so is looked for in $DAMAS_LIB, then beside this file's installed place
(PREFIX/lib, for PREFIX/share/damas/python/damas_probe.py), then in the source tree's build
folder, then where the system's loader finds it.
"""
import ctypes
import ctypes.util
import json
import os

__all__ = ["open", "Database"]

_BAD_FEN, _OUTSIDE = 1, 2


def _library():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.environ.get("DAMAS_LIB"),
                  os.path.join(here, "..", "..", "..", "lib", "libdamas.so"),
                  os.path.join(here, "..", "build", "lib", "libdamas.so"),
                  ctypes.util.find_library("damas")]
    for path in candidates:
        if path and (os.path.exists(path) or not os.path.dirname(path)):
            lib = ctypes.CDLL(path)
            lib.damas_open.restype = ctypes.c_void_p
            lib.damas_open.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t]
            lib.damas_close.argtypes = [ctypes.c_void_p]
            lib.damas_variant.restype = ctypes.c_char_p
            lib.damas_variant.argtypes = [ctypes.c_void_p]
            lib.damas_pieces.argtypes = [ctypes.c_void_p]
            lib.damas_probe_json.restype = ctypes.c_void_p   # freed with damas_free
            lib.damas_probe_json.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
            lib.damas_free.argtypes = [ctypes.c_void_p]
            return lib
    raise OSError("libdamas.so not found: set DAMAS_LIB to its path (make install puts it in PREFIX/lib)")


_lib = None


class Database:
    """An open database directory (written by `damas gen`)."""

    def __init__(self, path, cache_mb=64):
        global _lib
        self._db = None
        if _lib is None:
            _lib = _library()
        err = ctypes.create_string_buffer(1024)
        self._db = _lib.damas_open(os.fsencode(path), cache_mb, err, len(err))
        if not self._db:
            raise OSError(err.value.decode(errors="replace"))
        self.variant = _lib.damas_variant(self._db).decode()
        self.pieces = _lib.damas_pieces(self._db)

    def probe(self, fen):
        """The answer for fen: value, distance, every move, the best line (a dict)."""
        if not self._db:
            raise ValueError("the database is closed")
        status = ctypes.c_int(0)
        raw = _lib.damas_probe_json(self._db, fen.encode(), ctypes.byref(status))
        if not raw:
            raise MemoryError("out of memory in libdamas")
        try:
            answer = json.loads(ctypes.string_at(raw).decode())
        finally:
            _lib.damas_free(raw)
        if "error" in answer:
            kind = ValueError if status.value == _BAD_FEN else LookupError if status.value == _OUTSIDE else OSError
            raise kind(answer["error"])
        return answer

    def moves(self, fen):
        """Every legal move of fen with its value, best first."""
        return self.probe(fen)["moves"]

    def close(self):
        if self._db:
            _lib.damas_close(self._db)
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if _lib is not None:
            self.close()


def open(path, cache_mb=64):  # noqa: A001 - the module's verb, as in damas_probe.open(dir)
    """Opens the database in the directory path."""
    return Database(path, cache_mb)
