"""GPT4All's own engine (its Python package, ``gpt4all`` 2.8.2), set up once for the peer
benchmark (``python -m benchmarks --only peers``).

    python packaging/gpt4all_engine.py      # set up (or take from the cache), print its python

It gets a virtual environment of its own in the build cache, beside vLLM's (about 240 MB,
half a minute: the wheel carries its llama.cpp builds), so that it never meets the app's
llama-cpp-python. The app never ships or runs any of this.

GPT4All 2.8.2's llama.cpp predates SmolLM2: it refuses the starter model's pre-tokenizer
name ("smollm"). ``same_model`` writes a copy whose only change is that name, set to
"starcoder", whose rules are the same (digits split one by one, then GPT-2's); every side
of the benchmark reads that one file, so all read the same tokens.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import VARIANT_CACHE  # noqa: E402

GPT4ALL = "gpt4all==2.8.2"
FOLDER = VARIANT_CACHE / "gpt4all-2.8.2"


def python() -> Path:
    return FOLDER / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed() -> bool:
    stamp = FOLDER / "installed.json"
    return python().exists() and stamp.exists() and json.loads(stamp.read_text()).get("gpt4all") == GPT4ALL


def install() -> Path:
    if installed():
        return python()
    print(f"==> installing {GPT4ALL} for the peer benchmark (once, about 240 MB; cached after)", flush=True)
    if FOLDER.exists():
        shutil.rmtree(FOLDER)
    venv.EnvBuilder(with_pip=True).create(FOLDER / "venv")
    subprocess.run([str(python()), "-m", "pip", "--disable-pip-version-check", "-q", "install", GPT4ALL], check=True)
    (FOLDER / "installed.json").write_text(json.dumps({"gpt4all": GPT4ALL}))
    return python()


def same_model(source: Path, target: Path) -> Path:
    """``source`` with its pre-tokenizer named "starcoder" (see above); nothing else changes."""
    from gguf import GGUFReader, GGUFValueType, GGUFWriter

    reader = GGUFReader(source)
    writer = GGUFWriter(target, str(reader.fields["general.architecture"].contents()))
    for name, field in reader.fields.items():
        if name.startswith("GGUF.") or name == "general.architecture":
            continue
        kind = GGUFValueType(field.types[0])
        value = "starcoder" if name == "tokenizer.ggml.pre" else field.contents()
        if kind == GGUFValueType.ARRAY:
            writer.add_key_value(name, value, kind, sub_type=GGUFValueType(field.types[-1]))
        else:
            writer.add_key_value(name, value, kind)
    for tensor in reader.tensors:
        writer.add_tensor(tensor.name, tensor.data, raw_dtype=tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return target


if __name__ == "__main__":
    print(install())
