"""The datasheet's counts (DATASHEET.md, "Counts"), from the pairs and annotations in data/:
pairs per source and kind, topics, and the annotators' agreement. `python counts.py` prints them
as Markdown.
"""

import collections
import json
from pathlib import Path

import data as pairs_data

HERE = Path(__file__).resolve().parent
pairs = pairs_data.read(HERE / "data")
agreement = json.loads((HERE / "data" / "annotations" / "agreement.json").read_text())
sources = sorted({p["writer"] for p in pairs})
kinds = sorted({p["kind"] for p in pairs}, key=lambda k: (-max(p["label"] for p in pairs if p["kind"] == k), k))
by = collections.Counter((p["writer"], p["kind"]) for p in pairs)

print(f"{len(pairs)} pairs: {sum(p['label'] for p in pairs)} updates (label 1), {sum(1 - p['label'] for p in pairs)} not (label 0), from {len(sources)} sources.\n")
print("| source | pairs | updates | topics | annotators | agreement | written as |")
print("|---|---|---|---|---|---|---|")
for s in sources:
    own = [p for p in pairs if p["writer"] == s]
    a = agreement.get(s)
    topics = len({p["topic"] for p in own if p["topic"]})
    print(
        f"| {s} | {len(own)} | {sum(p['label'] for p in own)} | {topics or '—'} | "
        + (f"{a['annotators']} | {100 * a['agreement']:.1f} % of {a['pairs']} |" if a else "1 (the writer) | — |")
        + (" real conversation |" if any(p["kind"] == "real" for p in own) else " written |")
    )
print("\n| kind | " + " | ".join(sources) + " | all |")
print("|---|" + "---|" * (len(sources) + 1))
for k in kinds:
    label = next(p["label"] for p in pairs if p["kind"] == k)
    print(f"| {k} ({label}) | " + " | ".join(str(by[(s, k)]) for s in sources) + f" | {sum(by[(s, k)] for s in sources)} |")
annotated = [a for a in agreement.values()]
total = sum(a["pairs"] for a in annotated)
agreed = sum(a["agreed"] for a in annotated)
print(f"\nAgreement over every doubly labelled pair: {agreed} of {total} ({100 * agreed / max(1, total):.1f} %); the pairs they disagreed on were dropped.")
topics = collections.Counter(p["topic"] for p in pairs if p["topic"])
print(f"\n{len(topics)} topics; the most frequent: " + ", ".join(f"{t} {n}" for t, n in topics.most_common(15)) + ".")
