#!/usr/bin/env python3
"""The JIT from Python: libtisa.so's C API (include/tisa/tisa.h) through ctypes.

Compiles a u8 x s8 -> s32 GEMM for this machine, calls its plain entry on
random and edge inputs and checks every output against a Python loop, bit for
bit; then the kernel for any m (TISA_RUN_TIME) on the first 1 and 20 rows; then
a spec tisa refuses, whose message must say why. Exit status 0 when all agree.

    python3 examples/python/gemm.py [PATH/TO/libtisa.so]

Without a path it loads "libtisa.so" from the loader's path (LD_LIBRARY_PATH).
"""
import ctypes
import random
import sys

M, N, K = 37, 53, 71
RUN_TIME = -1


class Spec(ctypes.Structure):
    """tisa_kernel_spec, field for field."""
    _fields_ = [("op", ctypes.c_int)] + [
        (name, ctypes.c_int64)
        for name in ("m", "n", "k", "batch", "h", "w", "c", "filters", "r",
                     "s", "stride", "pad")
    ] + [("types", ctypes.c_char_p)]


def gemm_spec(m, n, k, types):
    # As tisa_gemm_spec (a static inline function, so not in the library).
    return Spec(0, m, n, k, 1, 0, 0, 0, 0, 1, 1, 1, 0, types)


def load(path):
    lib = ctypes.CDLL(path)
    lib.tisa_compile.restype = ctypes.c_void_p
    lib.tisa_compile.argtypes = [ctypes.POINTER(Spec), ctypes.c_char_p,
                                 ctypes.POINTER(ctypes.c_void_p)]
    lib.tisa_kernel_entry.restype = ctypes.c_void_p
    lib.tisa_kernel_entry.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    for name in ("tisa_kernel_name", "tisa_kernel_instruction"):
        getattr(lib, name).restype = ctypes.c_char_p
        getattr(lib, name).argtypes = [ctypes.c_void_p]
    lib.tisa_kernel_free.argtypes = [ctypes.c_void_p]
    lib.tisa_free.argtypes = [ctypes.c_void_p]
    lib.tisa_isa_search_path.restype = ctypes.c_void_p
    lib.tisa_isa_search_path.argtypes = []
    return lib


def take_string(lib, pointer):
    """A string the library allocated, released with tisa_free."""
    text = ctypes.cast(pointer, ctypes.c_char_p).value.decode()
    lib.tisa_free(pointer)
    return text


def compile_kernel(lib, spec):
    error = ctypes.c_void_p()
    kernel = lib.tisa_compile(ctypes.byref(spec), None, ctypes.byref(error))
    if not kernel:
        sys.exit("tisa_compile failed: " + take_string(lib, error))
    return kernel


def reference(a, b, rows):
    c = [0] * (M * N)
    for i in range(rows):
        row = a[i * K:(i + 1) * K]
        for j in range(N):
            c[i * N + j] = sum(row[p] * b[p * N + j] for p in range(K))
    return c


def check(what, got, want, rows):
    for i in range(M * N):
        expected = want[i] if i // N < rows else 0x5a5a5a5a
        if got[i] != expected:
            sys.exit("%s: C[%d][%d] = %d, not %d (DIFFER)" %
                     (what, i // N, i % N, got[i], expected))
    print("%s: %d rows bit-exact" % (what, rows))


def main():
    lib = load(sys.argv[1] if len(sys.argv) > 1 else "libtisa.so")
    print("descriptions from:", take_string(lib, lib.tisa_isa_search_path()))

    rng = random.Random(7)
    a = [rng.randrange(256) for _ in range(M * K)]
    b = [rng.randrange(-128, 128) for _ in range(K * N)]
    a[:K] = [255] * K            # the extremes: all-255 rows against all--128
    b[:N] = [-128] * N
    A = (ctypes.c_uint8 * (M * K))(*a)
    B = (ctypes.c_int8 * (K * N))(*b)
    C = (ctypes.c_int32 * (M * N))()
    p, i64 = ctypes.c_void_p, ctypes.c_int64

    kernel = compile_kernel(lib, gemm_spec(M, N, K, b"u8,s8,s32"))
    print("kernel %s on %s" % (lib.tisa_kernel_name(kernel).decode(),
                               lib.tisa_kernel_instruction(kernel).decode()
                               or "plain vector code"))
    gemm = ctypes.CFUNCTYPE(None, p, i64, p, i64, p, i64)(
        lib.tisa_kernel_entry(kernel, b""))
    gemm(A, K, B, N, C, N)
    check("plain entry", C, reference(a, b, M), M)
    lib.tisa_kernel_free(kernel)

    kernel = compile_kernel(lib, gemm_spec(RUN_TIME, N, K, b"u8,s8,s32"))
    gemm_m = ctypes.CFUNCTYPE(None, i64, p, i64, p, i64, p, i64)(
        lib.tisa_kernel_entry(kernel, b""))
    for rows in (1, 20):
        ctypes.memset(C, 0x5a, ctypes.sizeof(C))
        gemm_m(rows, A, K, B, N, C, N)
        check("m at run time", C, reference(a, b, rows), rows)
    lib.tisa_kernel_free(kernel)

    error = ctypes.c_void_p()
    bad = gemm_spec(M, N, K, b"u8,s8")
    if lib.tisa_compile(ctypes.byref(bad), None, ctypes.byref(error)):
        sys.exit("tisa_compile took the types 'u8,s8'")
    message = take_string(lib, error)
    if "spec.types" not in message:
        sys.exit("the error for the types 'u8,s8' does not name them: " + message)
    print("refused as it should be:", message)


if __name__ == "__main__":
    main()
