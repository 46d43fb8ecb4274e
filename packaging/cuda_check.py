#!/usr/bin/env python3
"""Check the CUDA llama.cpp variant on a machine with an NVIDIA GPU and no network.

    .venv/bin/python packaging/cuda_check.py prepare DIR [--full]   # here, with the package index
    python3 packaging/cuda_check.py run DIR                         # there, on the GPU machine
    python3 packaging/cuda_check.py build DIR                       # there: only build the variant

``prepare`` puts into DIR what the GPU machine lacks, small enough to carry (under 64 MB):
llama-cpp-python's source package without llama.cpp's test vocabularies, docs and other
backends (77 MB whole: the package is checked against ``common.LLAMA_SHA256`` here, then
trimmed, and the trimmed file's sha256 goes into DIR/carried.json, which the GPU machine
checks it against); the build tools' lock's wheels for the GPU machine's Python (Linux
x86-64, Python ``HEARTH_DEVICE_PYTHON``, 3.12 unless set: its image's python3), which
the build environment is made from there, offline and hash-checked as everywhere; a
four-layer cut of the starter model (its tokenizer and first layers, so the text is
nonsense but the arithmetic is the real model's); and the pure-Python packages that the
machine's image lacks (llama_cpp's Python code, diskcache, platformdirs, defusedxml).
With the build tools (38 MB, CMake's 30) the whole carry is about 86 MB: carry it in two
calls on one warm machine, src/, tools/, site/ and carried.json for ``build``, then
model.gguf for ``run`` (which takes the variant from the build cache).

``run`` builds the CUDA variant exactly as ``packaging/build.py --cuda`` does
(llama_build.build_variant, CUDA runtime bundled beside it), then runs the self-test's
worker and engine on it: the variant chooser must pick "cuda", the model must load with
its layers on the GPU, and greedy decoding must give the same tokens on the GPU as on
the CPU. It prints the decode speed of both. Set HEARTH_CUDA_ARCHITECTURES (say "90")
to build for one GPU generation only, which is much faster.

``prepare --full`` carries the whole starter model instead of the cut (about 90 MB, more
than one carry holds: split it and join it there) and the labelled document questions'
prompts as the app gives them to the model; ``run`` then also measures the app's
prompt-lookup drafting on and off on the GPU and (quicker) on the machine's CPU, with the
rag benchmark's own measurement (``benchmarks.rag_bench.lookup``). Its first run, on an
H200, found guesses on the GPU inexact and slower (docs/performance.md), so the engine now guesses on
the CPU only, and on the GPU the measurement checks that answers stay unchanged.
"""

from __future__ import annotations

import os
import shutil
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LAYERS = 4
TOKENS = 64
PROMPTS = "prompts.json"
CARRIED = "carried.json"
# The GPU machine's image: Linux x86-64, python3 3.12 (docs of the device machines).
DEVICE_PLATFORMS = ("manylinux2014_x86_64", *(f"manylinux_2_{n}_x86_64" for n in range(17, 40)))
# Parts of llama.cpp's source tree that a library build never reads.
SOURCE_SKIP = ("/.git/", "/vendor/llama.cpp/models/", "/vendor/llama.cpp/docs/", "/vendor/llama.cpp/tests/",
               "/vendor/llama.cpp/benches/", "/vendor/llama.cpp/media/", "/vendor/llama.cpp/tools/ui/",
               "/vendor/llama.cpp/tools/server/", "/vendor/llama.cpp/gguf-py/",
               *(f"/ggml/src/ggml-{b}/" for b in ("hexagon", "sycl", "vulkan", "opencl", "metal", "cann",
                                                  "musa", "kompute", "rpc", "webgpu", "zdnn", "openvino")))


def prepare(out: Path, full: bool = False) -> None:
    import subprocess
    import tempfile

    out.mkdir(parents=True, exist_ok=True)
    sys.path[:0] = [str(ROOT), str(ROOT / "packaging")]  # common; benchmarks, for the prompts
    import common
    from build_env import BUILD_TOOLS_LOCK, builder

    python = os.environ.get("HEARTH_DEVICE_PYTHON", "3.12")
    with tempfile.TemporaryDirectory() as tmp:
        # checked against LLAMA_SHA256 (its metadata read by the locked build tools)
        carry_source(common.llama_archive(builder(sys.executable)[0], Path(tmp)), out, python)
    tools = out / "tools"
    shutil.rmtree(tools, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q", "--require-hashes",
                    "--only-binary", ":all:", "--python-version", python, "--implementation", "cp",
                    *(f"--platform={platform}" for platform in DEVICE_PLATFORMS),
                    "-d", str(tools), "-r", str(BUILD_TOOLS_LOCK)], check=True)
    if full:
        from inference.bundled import source_path, starter_model

        source = source_path(starter_model())
        if source is None:
            raise SystemExit("the starter model is not installed: run packaging/bootstrap.py first")
        shutil.copyfile(source, out / "model.gguf")
        write_prompts(source, out / PROMPTS)
    else:
        cut_model(out / "model.gguf")
    site = out / "site"
    site.mkdir(exist_ok=True)
    import defusedxml
    import diskcache
    import llama_cpp
    import platformdirs

    for module in (llama_cpp, diskcache, platformdirs, defusedxml):
        package = Path(module.__file__).parent
        shutil.copytree(package, site / package.name, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("lib", "__pycache__", "*.so*"))
    total = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    print(f"prepared {out}: {total / (1 << 20):.1f} MB")

def carry_source(genuine: Path, out: Path, python: str) -> None:
    """The checked source package ``genuine`` without SOURCE_SKIP's parts into out/src, and
    into out/carried.json the trimmed file's sha256 (which the GPU machine checks it
    against: it cannot have LLAMA_SHA256's), whose package it was cut from, the Python the
    build tools are carried for and the build tools' lock."""
    import hashlib
    import json

    import common
    from build_env import lock_key

    (out / "src").mkdir(parents=True, exist_ok=True)
    trimmed = out / "src" / genuine.name
    with tarfile.open(genuine) as whole, tarfile.open(trimmed, "w:gz") as kept:
        for member in whole:
            if any(part in f"/{member.name}/" for part in SOURCE_SKIP):
                continue
            kept.addfile(member, whole.extractfile(member) if member.isfile() else None)
    (out / CARRIED).write_text(json.dumps({
        "llama_version": common.LLAMA_VERSION, "from_sha256": common.LLAMA_SHA256,
        "source": trimmed.name, "sha256": hashlib.sha256(trimmed.read_bytes()).hexdigest(),
        "python": python, "build_tools": lock_key()}, indent=1))


def write_prompts(model: Path, target: Path) -> None:
    """Every labelled document question's prompt, as the app gives it to ``model``."""
    import json
    import tempfile

    from benchmarks import rag_bench
    from inference.llama_engine import LlamaEngine
    from inference.protocol import ModelSpec

    with tempfile.TemporaryDirectory() as data, tempfile.TemporaryDirectory() as tmp:
        os.environ["HEARTH_DATA_DIR"] = data  # never the user's own
        asked, found, _recall = rag_bench.search_labelled(Path(tmp))
        engine = LlamaEngine()
        engine.load(ModelSpec(model, n_ctx=rag_bench.N_CTX, n_threads=rag_bench.THREADS))
        try:
            prompts = [[{"role": m.role, "content": m.content}
                        for m in rag_bench.document_prompt(engine, found, question, corpus)]
                       for question, corpus in asked]
        finally:
            engine.close()
    target.write_text(json.dumps(prompts, ensure_ascii=False))


def cut_model(target: Path) -> None:
    """The starter model with its first LAYERS layers only (gguf's own reader and writer)."""
    import gguf

    from inference.bundled import source_path, starter_model

    source = source_path(starter_model())
    if source is None:
        raise SystemExit("the starter model is not installed: run packaging/bootstrap.py first")
    reader = gguf.GGUFReader(source)
    arch = reader.fields["general.architecture"].contents()
    writer = gguf.GGUFWriter(target, arch=arch, endianess=reader.endianess)
    for field in reader.fields.values():
        if field.name.startswith("GGUF.") or field.name == "general.architecture":
            continue
        kind = field.types[0]
        value = LAYERS if field.name == f"{arch}.block_count" else field.contents()
        sub = field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None
        writer.add_key_value(field.name, value, kind, sub_type=sub)
    kept = [t for t in reader.tensors if not t.name.startswith("blk.") or int(t.name.split(".")[1]) < LAYERS]
    for tensor in kept:
        writer.add_tensor_info(tensor.name, tensor.data.shape, tensor.data.dtype, tensor.data.nbytes,
                               tensor.tensor_type)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_ti_data_to_file()
    for tensor in kept:
        writer.write_tensor_data(tensor.data, tensor_endianess=reader.endianess)
    writer.close()


def gpu_memory_used() -> str:
    import subprocess

    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return done.stdout.strip() or "unknown"


def greedy(model: Path, gpu_layers: int) -> tuple[str, float, str]:
    """Text, decode tokens/s and backend, through the self-test's worker and engine."""
    from cli.selftest import load_and_generate
    from core.client import WorkerClient
    from inference.protocol import ModelSpec

    with WorkerClient(flush_interval=0.0, with_embedder=False) as client:
        loaded, text, stats = load_and_generate(client, ModelSpec(path=model, n_gpu_layers=gpu_layers,
                                                                  n_ctx=512), tokens=TOKENS)
        backend = f"{loaded.backend}, GPU memory in use {gpu_memory_used()}"
    return text, stats.tokens_per_second, f"{backend}, {stats.tokens} tokens"


def carried(folder: Path) -> dict[str, str]:
    """What ``prepare`` recorded of the carry, refused unless it is for this checkout's
    pinned source package and build tools and for this Python."""
    import json

    import common
    from build_env import lock_key

    try:
        found = json.loads((folder / CARRIED).read_text())
    except (OSError, ValueError):
        raise SystemExit(f"{folder} has no {CARRIED}: run cuda_check.py prepare again") from None
    this = f"{sys.version_info[0]}.{sys.version_info[1]}"
    if found.get("llama_version") != common.LLAMA_VERSION or found.get("from_sha256") != common.LLAMA_SHA256:
        raise SystemExit(f"{folder} holds another llama-cpp-python source than common.LLAMA_SHA256: prepare again")
    if found.get("build_tools") != lock_key():
        raise SystemExit(f"{folder}'s build tools are not build-tools.lock's: prepare again")
    if found.get("python") != this:
        raise SystemExit(f"{folder}'s build tools are for Python {found.get('python')}, this is {this}: "
                         f"prepare again with HEARTH_DEVICE_PYTHON={this}")
    return found


def build(folder: Path, name: str = "cuda", cmake_args: str | None = None) -> Path:
    """The CUDA variant (or another), built from the carried source (or taken from the build
    cache) by the locked build tools made from the carried wheels: nothing is fetched."""
    sys.path[:0] = [str(folder / "site"), str(ROOT), str(ROOT / "packaging")]
    # the probe is a child process: it needs the carried packages too
    os.environ["PYTHONPATH"] = os.pathsep.join([str(folder / "site"), str(ROOT), os.environ.get("PYTHONPATH", "")])
    import common
    import llama_build

    source = carried(folder)
    common.use_venv(Path(sys.prefix))  # where cpu_variant looks, however llama_build was imported
    started = time.monotonic()
    built = llama_build.build_variant(sys.executable, name, cmake_args or llama_build.cuda_cmake_args(),
                                      find_links=str(folder / "src"), sha256=source["sha256"],
                                      tool_wheels=folder / "tools")
    print(f"{name} variant built in {time.monotonic() - started:.0f} s: "
          + ", ".join(sorted(p.name for p in built.iterdir())), flush=True)
    return built


def drafting(model: Path, prompts_file: Path) -> None:
    """Prompt-lookup drafting on ÷ off as the engine does it (guessing on the CPU only), on
    the GPU and (quick) on the CPU: the rag benchmark's measurement on the labelled document
    questions' prompts and its plain-chat prompts."""
    import json

    from benchmarks.rag_bench import N_CTX, lookup
    from inference.llama_engine import LlamaEngine
    from inference.protocol import ChatMessage, ModelSpec

    prompts = [[ChatMessage(m["role"], m["content"]) for m in p] for p in json.loads(prompts_file.read_text())]
    for where, layers, quick in (("GPU", -1, False), ("CPU", 0, True)):
        engine = LlamaEngine()
        engine.load(ModelSpec(model, n_ctx=N_CTX, n_gpu_layers=layers))
        try:
            for figure in lookup(engine, f"starter, {where}", prompts, quick):
                detail = {k: v for k, v in figure.detail.items() if k != "changed"}
                print(figure.row(), json.dumps(detail), flush=True)
        finally:
            engine.close()


def run(folder: Path) -> int:
    build(folder)
    from inference import cpu_variant

    model = folder / "model.gguf"
    print(f"NVIDIA driver: {cpu_variant.nvidia_driver()}")
    cpu_variant.configure(model, folder / "verdicts.json")
    chosen = cpu_variant.ensure()
    print(f"variant: {cpu_variant.describe()}", flush=True)
    if chosen is None or chosen.name != "cuda":
        print("FAILED: the CUDA variant was not chosen")
        return 1
    print(f"GPU memory in use before loading: {gpu_memory_used()}")
    try:
        gpu_text, gpu_speed, gpu_backend = greedy(model, -1)
        cpu_text, cpu_speed, cpu_backend = greedy(model, 0)
    except (RuntimeError, TimeoutError) as exc:
        print(f"FAILED: {str(exc) or 'the model did not answer in time'}")
        return 1
    print(f"GPU: {gpu_backend}, {gpu_speed:.0f} tokens/s; CPU (same build, 0 layers offloaded): "
          f"{cpu_backend}, {cpu_speed:.0f} tokens/s")
    same = next((i for i, (a, b) in enumerate(zip(gpu_text, cpu_text, strict=False)) if a != b),
                min(len(gpu_text), len(cpu_text)))
    print(f"greedy text: the first {same} of {len(gpu_text)} characters agree on GPU and CPU; "
          f"GPU: {gpu_text[:60]!r}")
    if "CUDA" not in gpu_backend or not gpu_text:
        print("FAILED: the model did not run on the GPU")
        return 1
    print("cuda check OK", flush=True)
    if (folder / PROMPTS).exists():
        drafting(model, folder / PROMPTS)
    return 0


def main(argv: list[str]) -> int:
    full = argv[2:] == ["--full"]
    if len(argv) != (3 if full else 2) or argv[0] not in ("prepare", "run", "build") or (full and argv[0] != "prepare"):
        print(__doc__)
        return 2
    folder = Path(argv[1]).resolve()
    if argv[0] == "prepare":
        prepare(folder, full)
        return 0
    if argv[0] == "build":
        build(folder)
        return 0
    return run(folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
