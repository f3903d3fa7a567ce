"""Writes the int8 graph beside an exported fp32 one: onnx/model_int8.onnx next to onnx/model.onnx.

Dynamic quantization (onnxruntime's quantize_dynamic): weights of MatMul and Gemm stored as int8,
one scale per output channel (per tensor, mpnet's vectors were 0.75 cosine from fp32's at the median;
per channel, 0.92), activations quantized at run time. Weights use 7 bits of range (reduce_range):
on x86 CPUs without VNNI, onnxruntime multiplies u8 activations by s8 weights with an instruction
that saturates at 16 bits, and full-range weights overflow it — there, mpnet's int8 vectors were all
alike (0.84 cosine between unrelated sentences, 0.19 at fp32; LoCoMo recall@5 46.7, below BM25),
while 7-bit weights give 0.16. On two cores it embeds about three times as
fast as fp32; bench/README.md gives both precisions' recall on LoCoMo. transformers.js loads it with
dtype "int8". Usage: python quantize_onnx.py MODEL_DIR
"""

import json
import logging
import sys
from pathlib import Path

import onnxruntime
from onnxruntime.quantization import QuantType, quantize_dynamic

# fetch-models.sh re-quantizes a model whose manifest names another method.
METHOD = "quantize_dynamic, QInt8 weights per channel, 7-bit range, MatMul and Gemm"

model_dir = Path(sys.argv[1])
source = model_dir / "onnx" / "model.onnx"
target = model_dir / "onnx" / "model_int8.onnx"
partial = target.with_suffix(".partial.onnx")
# Its advice to pre-process the graph is printed on every run: a quiet install leaves it out.
logging.getLogger().setLevel(logging.ERROR)
quantize_dynamic(
    str(source),
    str(partial),
    weight_type=QuantType.QInt8,
    op_types_to_quantize=["MatMul", "Gemm"],
    per_channel=True,
    reduce_range=True,
)
partial.rename(target)

manifest = model_dir / "umo-export.json"
about = json.loads(manifest.read_text()) if manifest.exists() else {}
about["int8"] = {"onnxruntime": onnxruntime.__version__, "method": METHOD}
manifest.write_text(json.dumps(about, indent=2))
print(f"quantized {source} to {target}")
