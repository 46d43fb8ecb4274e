"""The cosine of a question's vector with every passage's, over int8 rows.

The index keeps each vector as 384 int8 codes and one float32 scale (the row is
``codes * scale``, the scale its largest component ÷ 127): 0.39 GB for a million
passages where float16 took 0.77 GB and float32 1.5 GB. A question's vector is coded the
same way, and its cosine with a row is the codes' integer dot product times the two
scales. Measured on the frozen retrieval set's real vectors and on a million clustered
ones (docs/performance.md): within about 2e-3 of float32's cosine, recall@10 against
float32 0.99 and more, and the set's figures the same. SimSIMD's integer kernels (AVX2,
AVX-512 VNNI, NEON) do a million rows in about 36 ms on one core, three times float16's;
without it (a platform it has no wheel for), blocks of rows are widened to float32 for
NumPy's einsum, which adds such integers exactly (up to 1,040 dimensions; float32 beyond):
the same cosines either way.
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

BLOCK = 8192  # rows widened at a time without SimSIMD (12 MB at 384 dimensions)
THREADS = 1  # the search's own thread: the window and the inference worker have the rest
LEVELS = 127  # an int8 code's largest magnitude


def coded(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows (or one vector) as int8 codes and a scale each: a row is about ``codes * scale``
    (a block of rows at a time: no float32 copy of a million rows)."""
    if np.ndim(rows) == 2 and len(rows) > BLOCK:
        codes = np.empty(np.shape(rows), dtype=np.int8)
        scales = np.empty(len(rows), dtype=np.float32)
        for start in range(0, len(rows), BLOCK):
            codes[start:start + BLOCK], scales[start:start + BLOCK] = coded(rows[start:start + BLOCK])
        return codes, scales
    values = np.asarray(rows, dtype=np.float32)
    scale = np.abs(values).max(axis=-1, initial=0.0) / LEVELS
    scale = np.where(scale > 0, scale, np.float32(1.0)).astype(np.float32)
    codes = np.rint(values / scale[..., None]).astype(np.int8)
    return codes, scale


def cosines(codes: np.ndarray, scales: np.ndarray, unit: np.ndarray) -> np.ndarray:
    """Each row's cosine with ``unit`` (rows and question normalised), float32."""
    n = len(codes)
    if not n:
        return np.zeros(0, dtype=np.float32)
    question, question_scale = coded(unit)
    if simsimd is not None and codes.dtype == np.int8 and codes.flags.c_contiguous:
        found = simsimd.cdist(codes, np.ascontiguousarray(question)[None, :], metric="dot",
                              out_dtype="float32", threads=THREADS)
        dots = np.asarray(found, dtype=np.float32).reshape(n)
    else:
        dots = widened(codes, question)
    dots *= scales[:n]
    dots *= question_scale
    return dots


def widened(codes: np.ndarray, question: np.ndarray) -> np.ndarray:
    """The codes' dot products by NumPy (einsum, not @: as fast with or without BLAS, and
    the Linux installer has none), a block of rows at a time. Exact: each sum is an
    integer below 2**24."""
    q = np.asarray(question, dtype=np.float32)
    out = np.empty(len(codes), dtype=np.float32)
    for start in range(0, len(codes), BLOCK):
        block = np.asarray(codes[start:start + BLOCK], dtype=np.float32)
        out[start:start + BLOCK] = np.einsum("ij,j->i", block, q)
    return out
