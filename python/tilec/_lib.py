"""libtilec through ctypes: the library found, its functions declared.

The library is, in order: $TILEC_LIBRARY (a path), the libtilec.so installed
beside this package (`pip install .`), or the system's (ldconfig's
libtilec.so, as scripts/setup.sh or `meson install` leave it).
"""
import ctypes
import ctypes.util
import os

_OK, _COMPILE = 0, 1
STATUS = {
    0: "ok", 1: "compile error", 2: "usage", 3: "unsupported", 4: "no memory",
    5: "no device", 6: "device error", 7: "check failed",
}


class Error(Exception):
    """A failure of libtilec, with its message: the compiler's diagnostics
    (file:line:col and a caret), what the emulator's checks found, or why
    the device refused."""

    def __init__(self, message, status=None):
        super().__init__(message.rstrip("\n") if message else "tilec: an error with no message")
        self.status = status


class CompileError(Error):
    """The kernel does not compile for these arguments."""


class LaunchError(Error):
    """The launch failed: a bad argument or grid, the device, or the
    emulator's checks (an access out of bounds, a read of memory nothing
    wrote, a data race)."""


def _find():
    env = os.environ.get("TILEC_LIBRARY")
    if env:
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "libtilec.so")
    if os.path.exists(here):
        return here
    found = ctypes.util.find_library("tilec")
    if found:
        return found
    raise ImportError("tilec: libtilec.so not found: set TILEC_LIBRARY to its path, install the package "
                      "(pip install . at the project's root), or install the library (meson install)")


class _Result(ctypes.Structure):
    pass


class _JitOptions(ctypes.Structure):
    _fields_ = [
        ("kernel", ctypes.c_char_p), ("signature", ctypes.c_char_p),
        ("defines", ctypes.POINTER(ctypes.c_char_p)), ("num_defines", ctypes.c_int),
        ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int),
        ("cache_dir", ctypes.c_char_p), ("no_disk_cache", ctypes.c_int),
        ("grid", ctypes.c_char_p), ("config", ctypes.c_int),
        ("include_dirs", ctypes.POINTER(ctypes.c_char_p)), ("num_include_dirs", ctypes.c_int),
        ("fp_fusion", ctypes.c_int), ("grid_fn", ctypes.c_void_p), ("grid_user", ctypes.c_void_p),
        ("arch", ctypes.c_char_p),
    ]


# tilec_jit_options.grid_fn: (grid_user, config, args, grid[3]) -> 0, or nonzero to fail
GRID_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p),
                           ctypes.POINTER(ctypes.c_uint))
CONFIG_TUNE = -1


class _CompileOptions(ctypes.Structure):
    _fields_ = [
        ("kernel", ctypes.c_char_p), ("signature", ctypes.c_char_p),
        ("defines", ctypes.POINTER(ctypes.c_char_p)), ("num_defines", ctypes.c_int),
        ("num_warps", ctypes.c_int), ("num_stages", ctypes.c_int), ("emit", ctypes.c_int),
        ("arch", ctypes.c_char_p), ("dump_after", ctypes.c_char_p), ("context", ctypes.c_void_p),
        ("time_stages", ctypes.c_int), ("verify_each", ctypes.c_int), ("config", ctypes.c_int),
        ("include_dirs", ctypes.POINTER(ctypes.c_char_p)), ("num_include_dirs", ctypes.c_int),
        ("stop_after", ctypes.c_char_p), ("fp_fusion", ctypes.c_int),
    ]


lib = ctypes.CDLL(_find())
_libc = ctypes.CDLL(None)
_libc.free.argtypes = [ctypes.c_void_p]

_msg = ctypes.POINTER(ctypes.c_char_p)


def _declare(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype, f.argtypes = restype, list(argtypes)


_declare("tilec_version", ctypes.c_char_p)
_declare("tilec_describe", ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.POINTER(_CompileOptions), ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_result_output", ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t))
_declare("tilec_result_diagnostics", ctypes.c_char_p, ctypes.c_void_p)
_declare("tilec_result_destroy", None, ctypes.c_void_p)
_declare("tilec_device_create", ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_device_destroy", None, ctypes.c_void_p)
_declare("tilec_device_kind_of", ctypes.c_int, ctypes.c_void_p)
_declare("tilec_device_register_host", ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
         ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_device_unregister_host", ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_kernel_create", ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
         ctypes.POINTER(_JitOptions), ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_kernel_destroy", None, ctypes.c_void_p)
_declare("tilec_kernel_launch", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(ctypes.c_void_p),
         ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_kernel_launch_packed", ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint), ctypes.c_void_p,
         ctypes.c_size_t, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
_declare("tilec_kernel_specializations", ctypes.c_int, ctypes.c_void_p)
_declare("tilec_xla_ffi_handler", ctypes.c_void_p)


def take_message(p):
    """The text of a malloc'd message (a char ** out-parameter's value), freed."""
    if not p.value:
        return ""
    text = ctypes.string_at(p.value).decode("utf-8", "replace")
    _libc.free(p.value)
    return text


def check(status, message, error=Error):
    if status != _OK:
        cls = CompileError if status == _COMPILE else error
        raise cls(take_message(message), STATUS.get(status, status))


def strings(values):
    """A C array of char * (and the Python objects it points into, kept alive with it)."""
    raw = [v.encode() for v in values]
    arr = (ctypes.c_char_p * max(len(raw), 1))(*raw)
    return arr, raw


def version():
    return lib.tilec_version().decode()
