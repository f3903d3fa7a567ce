"""How near two memories must be for capture to ask the judge about them (`judgedNearness` in
memory/src/updates/Judging.ts): the cosine of their all-mpnet-base-v2 embeddings (the default
embedder) over the training pairs, updates against the rest, and the share of updates each gate
keeps. Chosen on the training pairs, never on an evaluation set; printed, and written to
student/gate.json.

    python gate.py
"""

import json
import random
from pathlib import Path

import torch
from transformers import AutoTokenizer, MPNetModel

import data as pairs_data

HERE = Path(__file__).resolve().parent
torch.set_num_threads(2)
checkpoint = pairs_data.base_checkpoint(HERE / "student" / "base")
tokenizer = AutoTokenizer.from_pretrained(str(checkpoint))
model = MPNetModel.from_pretrained(str(checkpoint), add_pooling_layer=False).eval()
# A seeded sample of 6,000 pairs is plenty for the shares below.
pairs = random.Random(5).sample(pairs_data.read(HERE / "data"), 6000)


def embed(texts):
    """Sentence vectors as the embedder makes them (mean-pooled, normalized), like lengths batched together."""
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    out = [None] * len(texts)
    with torch.inference_mode():
        for start in range(0, len(order), 64):
            ids = order[start : start + 64]
            enc = tokenizer([texts[i] for i in ids], truncation=True, max_length=384, padding=True, return_tensors="pt")
            hidden = model(**enc).last_hidden_state
            mask = enc["attention_mask"].unsqueeze(-1).float()
            vectors = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=-1)
            for i, v in zip(ids, vectors):
                out[i] = v
    return torch.stack(out)


a = embed([p["earlier"] for p in pairs])
b = embed([p["newer"] for p in pairs])
cosine = (a * b).sum(-1).tolist()
updates = sorted(c for c, p in zip(cosine, pairs) if p["label"] == 1)
rest = sorted(c for c, p in zip(cosine, pairs) if p["label"] == 0)
gates = {}
for gate in [x / 100 for x in range(0, 70, 5)]:
    gates[gate] = {
        "updates_kept": round(sum(1 for c in updates if c >= gate) / len(updates), 4),
        "others_asked": round(sum(1 for c in rest if c >= gate) / len(rest), 4),
    }
result = {
    "pairs": len(pairs),
    "updates": len(updates),
    "auc_of_cosine": round(pairs_data.auc(cosine, [p["label"] for p in pairs]), 4),
    "update_cosine_percentiles": {q: round(updates[int(q / 100 * (len(updates) - 1))], 3) for q in (1, 2, 5, 10, 25, 50)},
    "gates": gates,
}
(HERE / "student" / "gate.json").write_text(json.dumps(result, indent=1) + "\n")
print(json.dumps(result, indent=1))
