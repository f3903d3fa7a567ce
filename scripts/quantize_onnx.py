"""Writes the int8 graph beside an exported fp32 one: onnx/model_int8.onnx next to onnx/model.onnx.

Dynamic quantization (onnxruntime's quantize_dynamic): weights of MatMul and Gemm stored as int8,
one scale per output channel (per tensor, mpnet's vectors were 0.75 cosine from fp32's at the median;
per channel, 0.92), activations quantized at run time. On two cores it embeds about three times as
fast as fp32; bench/README.md gives both precisions' recall on LoCoMo. transformers.js loads it with
dtype "int8". Usage: python quantize_onnx.py MODEL_DIR
"""

import json
import sys
from pathlib import Path

import onnxruntime
from onnxruntime.quantization import QuantType, quantize_dynamic

model_dir = Path(sys.argv[1])
source = model_dir / "onnx" / "model.onnx"
target = model_dir / "onnx" / "model_int8.onnx"
partial = target.with_suffix(".partial.onnx")
quantize_dynamic(
    str(source), str(partial), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm"], per_channel=True
)
partial.rename(target)

manifest = model_dir / "umo-export.json"
about = json.loads(manifest.read_text()) if manifest.exists() else {}
about["int8"] = {"onnxruntime": onnxruntime.__version__, "method": "quantize_dynamic, QInt8 weights per channel, MatMul and Gemm"}
manifest.write_text(json.dumps(about, indent=2))
print(f"quantized {source} to {target}")
