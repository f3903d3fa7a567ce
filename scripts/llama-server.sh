#!/usr/bin/env bash
# llama.cpp's own OpenAI-compatible server (`llama-server`), for measuring a language model as the
# update judge behind a real endpoint (bench:judge --endpoint, plugins/test/judges/LlamaServer.test.ts).
# Built from the llama.cpp source that llama-cpp-python's source distribution on PyPI carries
# (vendor/llama.cpp, MIT; the sdist's SHA-256 is pinned below), into .cache/llama.cpp: about 8
# minutes on two cores, once. For AVX2, not for this CPU: a native build here used AMX, which the
# CPU lists but the virtual machine does not enable (illegal instruction at the first prompt). Never part of the default install, and CI does not build it: the test
# that needs it says so and skips.
#
#   bash scripts/llama-server.sh          # builds it (or finds it built) and prints its path
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
version="0.3.36"
sha256="832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e"
out="$root/.cache/llama.cpp"
bin="$out/build/bin/llama-server"
if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
command -v cmake >/dev/null || { echo "llama-server: cmake is needed (apt-get install cmake)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "llama-server: fetching llama-cpp-python $version's source (llama.cpp inside)" >&2
echo "llama-cpp-python==$version --hash=sha256:$sha256" > "$tmp/requirements.txt"
python3 -m pip download -q --no-deps --no-binary :all: --require-hashes -r "$tmp/requirements.txt" -d "$tmp"
tar xzf "$tmp/llama_cpp_python-$version.tar.gz" -C "$tmp"
rm -rf "$out/src"
mkdir -p "$out"
mv "$tmp/llama_cpp_python-$version/vendor/llama.cpp" "$out/src"
echo "llama-server: building (cmake, $(nproc) jobs)" >&2
cmake -S "$out/src" -B "$out/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
  -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON >"$out/cmake.log" 2>&1
cmake --build "$out/build" --target llama-server -j"$(nproc)" >"$out/build.log" 2>&1 ||
  { tail -20 "$out/build.log" >&2; exit 1; }
echo "$bin"
