"""A higher-precision GGUF made from a quantized one, for the quantizer's tests (#42): every
tensor dequantized by the ``gguf`` package and written back as F16 (F32 ones stay F32),
the metadata copied as it is but the file type. The same weights, so quantizing it again
gives what a user's F16 download would give."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from gguf import GGMLQuantizationType, GGUFReader, GGUFValueType, GGUFWriter
from gguf.quants import dequantize

F16_FILE_TYPE = 1


def f16_copy(source: Path, target: Path) -> Path:
    reader = GGUFReader(source)
    architecture = str(reader.fields["general.architecture"].contents())
    writer = GGUFWriter(target, architecture)
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        kind = GGUFValueType(field.types[0])
        value = F16_FILE_TYPE if name == "general.file_type" else field.contents()
        if kind == GGUFValueType.ARRAY:
            writer.add_key_value(name, value, kind, sub_type=GGUFValueType(field.types[-1]))
        else:
            writer.add_key_value(name, value, kind)
    for tensor in reader.tensors:
        data = dequantize(tensor.data, tensor.tensor_type)
        if tensor.tensor_type == GGMLQuantizationType.F32:
            writer.add_tensor(tensor.name, np.asarray(data, dtype=np.float32))
        else:
            writer.add_tensor(tensor.name, np.asarray(data, dtype=np.float16))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target
