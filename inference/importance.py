"""An importance matrix from the user's own text (#42), for the quantizer: which input
columns of each weight matrix carry the most, measured by running the original model over
the text, as llama.cpp's ``llama-imatrix`` does. With it, llama.cpp's quantizer spends its
few bits where the activations are large, and a Q4_K_M or Q5_K_M copy stays closer to its
original on text like the user's.

How: llama.cpp calls back before and after each step of its graph (``cb_eval``). For each
matrix multiplication by a layer's weights (``blk.*``, a batch of 16 tokens or more, F32
activations) the callback reads the activations and adds each column's squares; the
importance of a column is the mean of its squares over all the tokens read. Every token
is an output (as llama-imatrix: otherwise the last layer is cut to one token) and each
step begins with BOS. The matrices of a mixture of experts (``MUL_MAT_ID``) and weights
of more than two dimensions are not weighed: their copy is made as without.

The callback reads llama.cpp's ``ggml_tensor`` through its C layout, which is checked
against the library before the model is loaded: its size, and on tensors ggml makes for
the check, the type, sizes, strides, operation, sources and name read where ggml wrote
them. A library built otherwise is refused, not misread.

Runs in the quantizer's child process (``quantize_child``), never in the app's.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

CHUNK = 512  # tokens a step reads (llama-imatrix's default context)
MOST_CHUNKS = 64  # at most this many steps: 32,768 tokens; a 7B model on a laptop CPU takes minutes
FEWEST_TOKENS = 16  # a step of fewer tokens is not read (as llama-imatrix: too few to count)
_F32 = 0  # GGML_TYPE_F32
_OBJECT_SIZE = 32  # sizeof(struct ggml_object): ggml_tensor_overhead() is it plus the tensor's


class ImportanceError(Exception):
    """Why no importance matrix was made: ``SHORT`` (the text gives no step of
    ``FEWEST_TOKENS``), ``UNREADABLE`` (the model could not read it: not loaded, a failed
    step, numbers that are not finite) or ``LAYOUT`` (a llama.cpp built otherwise)."""


SHORT, UNREADABLE, LAYOUT = "short", "unreadable", "layout"


class _Tensor(ctypes.Structure):
    """``struct ggml_tensor`` of the pinned llama.cpp (ggml.h): checked at run time."""


_Tensor._fields_ = [
    ("type", ctypes.c_int),
    ("buffer", ctypes.c_void_p),
    ("ne", ctypes.c_int64 * 4),
    ("nb", ctypes.c_size_t * 4),
    ("op", ctypes.c_int),
    ("op_params", ctypes.c_int32 * 16),
    ("flags", ctypes.c_int32),
    ("src", ctypes.POINTER(_Tensor) * 10),
    ("view_src", ctypes.c_void_p),
    ("view_offs", ctypes.c_size_t),
    ("data", ctypes.c_void_p),
    ("name", ctypes.c_char * 64),
    ("extra", ctypes.c_void_p),
    ("padding", ctypes.c_char * 8),
]


class _InitParams(ctypes.Structure):
    _fields_ = [("mem_size", ctypes.c_size_t), ("mem_buffer", ctypes.c_void_p), ("no_alloc", ctypes.c_bool)]


def _ggml(llama_cpp: Any) -> tuple[Any, int]:
    """llama.cpp's ggml-base library, the one the binding loaded (its folder, or the CPU
    variant's that ``LLAMA_CPP_LIB_PATH`` names), with the functions used here typed, and
    the number of its matrix multiplication. The tensor layout is checked first, on
    tensors ggml makes here (no data): ``_Tensor`` must read their type, sizes, strides,
    operation, sources and name where ggml wrote them, or the library is refused."""
    from llama_cpp._ctypes_extensions import load_shared_library

    base = load_shared_library("ggml-base", Path(llama_cpp.llama_cpp._base_path))
    pointer = ctypes.c_void_p
    for name, result, arguments in (
            ("ggml_get_name", pointer, [pointer]), ("ggml_nbytes", ctypes.c_size_t, [pointer]),
            ("ggml_tensor_overhead", ctypes.c_size_t, []), ("ggml_init", pointer, [_InitParams]),
            ("ggml_free", None, [pointer]), ("ggml_set_name", pointer, [pointer, ctypes.c_char_p]),
            ("ggml_new_tensor_2d", pointer, [pointer, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]),
            ("ggml_mul_mat", pointer, [pointer, pointer, pointer]),
            ("ggml_backend_tensor_get", None, [pointer, pointer, ctypes.c_size_t, ctypes.c_size_t])):
        function = getattr(base, name)
        function.restype, function.argtypes = result, arguments
    if base.ggml_tensor_overhead() != _OBJECT_SIZE + ctypes.sizeof(_Tensor):
        raise ImportanceError(LAYOUT)
    context = base.ggml_init(_InitParams(16 * base.ggml_tensor_overhead() + 4096, None, True))
    if not context:
        raise ImportanceError(LAYOUT)
    try:
        weights = base.ggml_new_tensor_2d(context, _F32, 7, 3)
        inputs = base.ggml_new_tensor_2d(context, _F32, 7, 5)
        base.ggml_set_name(weights, b"hearth.check")
        product = base.ggml_mul_mat(context, weights, inputs)
        seen = ctypes.cast(product, ctypes.POINTER(_Tensor)).contents
        read = ctypes.cast(weights, ctypes.POINTER(_Tensor)).contents
        laid_out = (seen.type == _F32 and list(seen.ne) == [3, 5, 1, 1] and list(read.ne) == [7, 3, 1, 1]
                    and list(read.nb) == [4, 28, 84, 84] and ctypes.cast(seen.src[0], pointer).value == weights
                    and ctypes.cast(seen.src[1], pointer).value == inputs and read.name == b"hearth.check"
                    and base.ggml_get_name(weights) == weights + _Tensor.name.offset and read.op != seen.op)
        mul_mat = int(seen.op)
    finally:
        base.ggml_free(context)
    if not laid_out:
        raise ImportanceError(LAYOUT)
    return base, mul_mat


def _weight_name(raw: bytes) -> str:
    """``blk.0.attn_q.weight`` from a tensor's name, without a backend's ``CUDA0#…#0``."""
    name = raw.decode("utf-8", "replace")
    if "#" in name:
        name = name.split("#")[1]
    return name


class _Collector:
    def __init__(self, base: Any, mul_mat: int) -> None:
        self.base = base
        self.mul_mat = mul_mat
        self.sums: dict[str, np.ndarray] = {}
        self.counts: dict[str, int] = {}
        self.failure: BaseException | None = None

    def __call__(self, pointer: int, ask: bool, _user: int) -> bool:
        try:
            return self._seen(pointer, ask)
        except BaseException as exc:  # an exception cannot cross into C: kept, said after the step
            self.failure = self.failure or exc  # the first: what went wrong, not what followed
            return False

    def _seen(self, pointer: int, ask: bool) -> bool:
        tensor = ctypes.cast(pointer, ctypes.POINTER(_Tensor)).contents
        if tensor.op != self.mul_mat or not tensor.src[0] or not tensor.src[1]:
            return False
        weights, inputs = tensor.src[0].contents, tensor.src[1].contents
        if ask:
            return (inputs.type == _F32 and inputs.ne[1] >= FEWEST_TOKENS and weights.ne[2] == weights.ne[3] == 1
                    and _weight_name(weights.name).startswith("blk."))
        size = int(self.base.ggml_nbytes(ctypes.addressof(inputs)))
        raw = np.empty((size + 3) // 4, dtype=np.float32)
        self.base.ggml_backend_tensor_get(ctypes.addressof(inputs), raw.ctypes.data, 0, size)  # from a GPU too
        columns, rows = int(inputs.ne[0]), int(inputs.ne[1] * inputs.ne[2] * inputs.ne[3])
        if inputs.nb[0] != 4:
            raise ImportanceError(LAYOUT)
        steps = tuple(int(inputs.nb[i]) for i in range(4))
        shape = tuple(int(inputs.ne[i]) for i in range(4))
        view = np.lib.stride_tricks.as_strided(raw, shape=shape[::-1], strides=steps[::-1], writeable=False)
        x = view.reshape(rows, columns).astype(np.float64)
        if not np.isfinite(x).all():
            raise ImportanceError(UNREADABLE)
        name = _weight_name(weights.name)
        total = self.sums.setdefault(name, np.zeros(columns, dtype=np.float64))
        if total.shape[0] != columns:
            raise ImportanceError(LAYOUT)
        total += np.einsum("ij,ij->j", x, x)
        self.counts[name] = self.counts.get(name, 0) + rows
        return True

    def matrix(self) -> dict[str, np.ndarray]:
        found = {name: (total / self.counts[name]).astype(np.float32) for name, total in self.sums.items()}
        if not all(np.isfinite(values).all() for values in found.values()):  # too large for a float
            raise ImportanceError(UNREADABLE)
        return found


def _steps(llama_cpp: Any, vocab: Any, text: str) -> list[list[int]]:
    """The text's tokens in steps of ``CHUNK`` (at most ``MOST_CHUNKS``), each beginning
    with the model's BOS where it has one (as llama-imatrix's chunks); steps shorter than
    ``FEWEST_TOKENS`` left out."""
    data = text.encode("utf-8")
    room = len(data) + 16
    tokens = (llama_cpp.llama_token * room)()
    count = llama_cpp.llama_tokenize(vocab, data, len(data), tokens, room, False, False)
    if count < 0:  # more tokens than bytes (a vocabulary's own normalisation): as many as it says
        room = -count
        tokens = (llama_cpp.llama_token * room)()
        count = llama_cpp.llama_tokenize(vocab, data, len(data), tokens, room, False, False)
    begin = [int(llama_cpp.llama_vocab_bos(vocab))] if llama_cpp.llama_vocab_get_add_bos(vocab) else []
    width = CHUNK - len(begin)
    steps = [begin + list(tokens[start:min(start + width, count)]) for start in range(0, max(count, 0), width)]
    return [step for step in steps if len(step) >= FEWEST_TOKENS][:MOST_CHUNKS]


def compute(path: str, text: str, threads: int, progress: Callable[[int, int], None] | None = None
            ) -> dict[str, np.ndarray]:
    """Each weighed matrix's importance (name -> one float per input column) from the
    model at ``path`` reading ``text`` in steps of ``CHUNK`` tokens (at most
    ``MOST_CHUNKS``); ``progress`` hears (steps done, steps). ImportanceError."""
    import os

    import llama_cpp

    base, mul_mat = _ggml(llama_cpp)
    collector = _Collector(base, mul_mat)
    callback = llama_cpp.ggml_backend_sched_eval_callback(collector)
    model_params = llama_cpp.llama_model_default_params()
    model_params.n_gpu_layers = 0
    model = llama_cpp.llama_model_load_from_file(os.fsencode(path), model_params)
    if not model:
        raise ImportanceError(UNREADABLE)
    context = batch = None
    try:
        params = llama_cpp.llama_context_default_params()
        params.n_ctx = params.n_batch = params.n_ubatch = CHUNK
        params.n_threads = params.n_threads_batch = max(1, threads)
        params.cb_eval = callback
        context = llama_cpp.llama_init_from_model(model, params)
        if not context:
            raise ImportanceError(UNREADABLE)
        steps = _steps(llama_cpp, llama_cpp.llama_model_get_vocab(model), text)
        if not steps:
            raise ImportanceError(SHORT)
        # Every token an output, as llama-imatrix asks: with only the last one, llama.cpp
        # cuts the last layer down to it, and that layer's feed-forward would go unweighed.
        batch = llama_cpp.llama_batch_init(CHUNK, 0, 1)
        memory = llama_cpp.llama_get_memory(context)
        for done, step in enumerate(steps):
            llama_cpp.llama_memory_clear(memory, True)  # each step reads on its own, as llama-imatrix's chunks
            batch.n_tokens = len(step)
            for position, token in enumerate(step):
                batch.token[position], batch.pos[position] = token, position
                batch.n_seq_id[position], batch.seq_id[position][0], batch.logits[position] = 1, 0, 1
            code = llama_cpp.llama_decode(context, batch)
            if collector.failure is not None:
                raise collector.failure
            if code != 0:
                raise ImportanceError(UNREADABLE)
            if progress is not None:
                progress(done + 1, len(steps))
    finally:
        if batch is not None:
            llama_cpp.llama_batch_free(batch)
        if context:
            llama_cpp.llama_free(context)
        llama_cpp.llama_model_free(model)
    found = collector.matrix()
    if not found:
        raise ImportanceError(UNREADABLE)
    return found


def as_parameter(llama_cpp: Any, matrix: dict[str, np.ndarray]) -> tuple[Any, list[Any]]:
    """``matrix`` as llama.cpp's quantizer takes it (``llama_model_quantize_params.imatrix``:
    entries ending in one without a name), and what must stay alive while it is used."""
    entries = (llama_cpp.llama_model_imatrix_data * (len(matrix) + 1))()
    alive: list[Any] = [entries]
    for index, (name, values) in enumerate(sorted(matrix.items())):
        encoded, data = name.encode("utf-8"), np.ascontiguousarray(values, dtype=np.float32)
        alive += [encoded, data]
        entries[index].name = encoded
        entries[index].data = data.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        entries[index].size = data.size
    entries[len(matrix)].name = None
    return entries, alive
