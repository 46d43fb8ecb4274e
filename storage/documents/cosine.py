"""The cosine of a question's vector with every passage's, over float16 rows.

The index keeps its vectors as float16 (half the memory of float32: 0.77 GB instead of
1.5 GB for a million passages of 384 dimensions). NumPy has no fast float16 arithmetic, so
the products are SimSIMD's (kernels for the CPU found at run time: AVX2 with F16C,
NEON), which read float16 directly and add in float32; without it (a
platform it has no wheel for), blocks of rows are widened to float32 for NumPy's einsum,
a few megabytes at a time (seven times slower). Either way a cosine is within about 1e-4 of float32's.
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

simsimd: ModuleType | None
try:
    import simsimd as _simsimd
except ImportError:  # pragma: no cover - every platform Hearth ships for has a wheel
    simsimd = None
else:
    simsimd = _simsimd
    # Its AVX-512 FP16 kernel (Sapphire Rapids and later) adds in float16: 4x the error
    # (2e-4), and recall@10 on clustered vectors 0.986 where float32 addition gives 0.9995
    # (benchmarks/documents_bench.py). The AVX-512 and AVX2 kernels widen to float32 and
    # are still as fast as NumPy over float32: so the same answers on every x86 CPU.
    _simsimd.disable_capability("sapphire")

BLOCK = 8192  # rows widened at a time without SimSIMD (12 MB at 384 dimensions)
THREADS = 1  # the search's own thread: the window and the inference worker have the rest


def cosines(matrix: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Each row of ``matrix`` (normalised, float16) times ``unit`` (normalised), float32."""
    n = len(matrix)
    if not n:
        return np.zeros(0, dtype=np.float32)
    if simsimd is not None and matrix.dtype == np.float16 and matrix.flags.c_contiguous:
        query = np.ascontiguousarray(unit, dtype=np.float16)[None, :]
        found = simsimd.cdist(matrix, query, metric="dot", out_dtype="float32", threads=THREADS)
        return np.asarray(found, dtype=np.float32).reshape(n)
    return widened(matrix, unit)


def widened(matrix: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """The same, by NumPy (einsum, not @: as fast with or without BLAS, and the Linux
    installer has none), a block of rows at a time."""
    q = np.asarray(unit, dtype=np.float32)
    out = np.empty(len(matrix), dtype=np.float32)
    for start in range(0, len(matrix), BLOCK):
        block = np.asarray(matrix[start:start + BLOCK], dtype=np.float32)
        out[start:start + BLOCK] = np.einsum("ij,j->i", block, q)
    return out
