"""Merges annotators' labels into the pairs the student trains on (DATASHEET.md): a pair is kept
only where every annotator who labelled it gave the same 0 or 1; a disagreement or a "?" drops it.
Each annotator's label of every pair (kept or dropped) is recorded in data/annotations/<source>.jsonl,
and the agreement per source in data/annotations/agreement.json.

    python agree.py written PAIRS LABELS          a writer's pairs (its own label is the first
                                                  annotator's) and a second annotator's labels
    python agree.py real CANDIDATES LABELS LABELS  pairs cut from real conversation, labelled by two
                                                  annotators who saw only the two texts
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def rows(path: str) -> list:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def labels(path: str) -> dict:
    out = {}
    for row in rows(path):
        out[row["id"]] = row["label"] if row["label"] in (0, 1) else "?"
    return out


def record(source: str, kept: list, annotations: list) -> None:
    (DATA / "annotations").mkdir(exist_ok=True)
    with (DATA / f"pairs.{source}.jsonl").open("w") as f:
        for row in kept:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    with (DATA / "annotations" / f"{source}.jsonl").open("w") as f:
        for row in annotations:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    agreed = sum(1 for a in annotations if len(set(a["labels"])) == 1 and "?" not in a["labels"])
    summary_path = DATA / "annotations" / "agreement.json"
    summary = json.loads(summary_path.read_text()) if summary_path.exists() else {}
    summary[source] = {
        "pairs": len(annotations),
        "annotators": len(annotations[0]["labels"]) if annotations else 0,
        "agreed": agreed,
        "agreement": round(agreed / len(annotations), 4) if annotations else 0,
        "kept": len(kept),
        "updates_kept": sum(r["label"] for r in kept),
    }
    summary_path.write_text(json.dumps(dict(sorted(summary.items())), indent=1) + "\n")
    print(f"agree: {source}: {summary[source]}")


def written(pairs_path: str, labels_path: str) -> None:
    source = Path(pairs_path).name.split(".")[1]
    second = labels(labels_path)
    kept, annotations = [], []
    for row in rows(pairs_path):
        both = [row["label"], second.get(row["id"], "?")]
        annotations.append({"id": row["id"], "labels": both})
        if both[0] == both[1]:
            kept.append({"id": row["id"], "earlier": row["earlier"], "newer": row["newer"], "label": row["label"], "kind": row["kind"], "topic": row["topic"]})
    record(source, kept, annotations)


def real(candidates_path: str, first_path: str, second_path: str) -> None:
    source = Path(candidates_path).name.split(".")[1]
    first, second = labels(first_path), labels(second_path)
    kept, annotations = [], []
    for row in rows(candidates_path):
        both = [first.get(row["id"], "?"), second.get(row["id"], "?")]
        annotations.append({"id": row["id"], "labels": both})
        if both[0] == both[1] and both[0] in (0, 1):
            kept.append({"id": row["id"], "earlier": row["earlier"], "newer": row["newer"], "label": both[0], "kind": "real", "topic": "", "where": row["where"]})
    record(source, kept, annotations)


if __name__ == "__main__":
    {"written": written, "real": real}[sys.argv[1]](*sys.argv[2:])
