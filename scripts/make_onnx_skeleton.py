"""Makes the graph skeleton scripts/rebuild_onnx.py fills: run once per model, by hand, not at install.

A skeleton is the exported ONNX graph with every initializer's bytes taken out (what is left is
the graph, ~0.1-0.2 MB), and a map from each initializer to the checkpoint tensor it holds, by
name (`encoder.` + the tensor's name) or transposed (the `onnx::MatMul_*` weights of the linear
layers). With them, the graph is rebuilt byte for byte from the checkpoint's model.safetensors
with numpy and onnx alone, so `npm install` needs no PyTorch.

The graphs the skeletons were taken from were exported once with PyTorch 2.13.0 (CPU) and
transformers 5.23.0: torch.onnx.export of the model's last_hidden_state, opset 17, eager attention,
dynamic batch and sequence axes (scripts/export_onnx.py, in git history before the skeletons).

    python make_onnx_skeleton.py MODEL_ID EXPORTED_MODEL_ONNX MODEL_SAFETENSORS
"""

import gzip
import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).parent))
from rebuild_onnx import SKELETONS, read_safetensors  # noqa: E402

model_id, exported, checkpoint = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
tensors = read_safetensors(checkpoint.read_bytes())
model = onnx.load(str(exported))
mapping: dict[str, list[object]] = {}
for init in model.graph.initializer:
    array = numpy_helper.to_array(init)
    name = init.name.removeprefix("encoder.")
    if init.name.startswith("encoder.") and name in tensors and np.array_equal(tensors[name], array):
        mapping[init.name] = [name, False]
        continue
    hit = next(
        (k for k, t in tensors.items() if t.ndim == 2 and t.shape == array.shape[::-1] and np.array_equal(t.T, array)),
        None,
    )
    if hit is None:
        raise SystemExit(f"make_onnx_skeleton: {init.name} {array.shape} matches no tensor of {checkpoint}")
    mapping[init.name] = [hit, True]
for init in model.graph.initializer:
    if not init.HasField("raw_data"):
        raise SystemExit(f"make_onnx_skeleton: {init.name} keeps its data outside raw_data; not handled")
    init.ClearField("raw_data")

out = SKELETONS / model_id.split("/")[-1]
skeleton = model.SerializeToString()
# gzip without a timestamp: the same graph gives the same bytes.
with open(f"{out}.skeleton.onnx.gz", "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
    z.write(skeleton)
about = {
    "model": model_id,
    "sha256": hashlib.sha256(exported.read_bytes()).hexdigest(),
    "initializers": mapping,
}
Path(f"{out}.map.json").write_text(json.dumps(about, indent=1) + "\n")
print(f"make_onnx_skeleton: {out}.skeleton.onnx.gz ({len(skeleton)} bytes before gzip), {len(mapping)} initializers mapped")
