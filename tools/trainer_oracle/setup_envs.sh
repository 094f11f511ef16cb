#!/usr/bin/env bash
# Build one virtual environment per trainer for tools/trainer_oracle/record.py (docs/oracles.md).
#
#   tools/trainer_oracle/setup_envs.sh ENVS_DIR trl|trl-t514|llamafactory|axolotl [SOURCE_DIR LABEL]
#
# SOURCE_DIR is the trainer's source tree at the commit ftlint cites (docs/oracles.md says how to
# get one) and LABEL names it (owner/repo@commit): the recordings carry it; without them the
# nearest release on PyPI is installed instead. torch is the CPU build 2.13.0 (the wheel pip finds
# on this kind of machine; elsewhere add --index-url https://download.pytorch.org/whl/cpu), but for
# LLaMA-Factory (2.11, see below). Every other pin below is what the recordings
# in fixtures/trainer_runs/ were made with: change one and the recordings say so (their "versions").
set -euo pipefail
envs=${1:?ENVS_DIR}; which=${2:?trl|trl-t514|llamafactory|axolotl}; src=${3:-}; label=${4:-}
py=${PYTHON:-python3}
mkdir -p "$envs"
venv="$envs/$which"
"$py" -m venv "$venv"
pip=("$venv/bin/pip" install -q --disable-pip-version-check)
if [ "$which" = llamafactory ]; then
  # data/mm_plugin.py imports torchaudio at load time (only audio inputs use it), and torchaudio's
  # binary must match torch's: the registry's torchaudio stops at 2.11, so torch is 2.11 here
  # (the registry's build is CUDA's, some GB; it runs on the CPU)
  "${pip[@]}" torch==2.11.0 torchaudio==2.11.0
else
  "${pip[@]}" torch==2.13.0
fi
# the trainer itself without its dependency pins, which the lines below give by hand: axolotl's
# do not resolve as a whole here, and LLaMA-Factory's drag in a GUI and audio stacks
trainer() {  # $1: PyPI release to use without a source tree
  if [ -n "$src" ]; then "${pip[@]}" --no-deps "$src"; echo "${label:-$src}" > "$venv/oracle-source"
  else "${pip[@]}" --no-deps "$1"; echo "PyPI $1" > "$venv/oracle-source"; fi
}
case "$which" in
  trl)
    "${pip[@]}" transformers==5.23.0 datasets==4.8.4 accelerate==1.13.0 jinja2 packaging pyyaml tiktoken
    trainer trl==1.9.0 ;;  # the cited commit f2cd577 is v1.9.0 plus 26 commits
  trl-t514)  # the same TRL on the last transformers with TrainingArguments.warmup_ratio
    "${pip[@]}" transformers==5.14.1 datasets==4.8.4 accelerate==1.13.0 jinja2 packaging pyyaml tiktoken
    trainer trl==1.9.0 ;;
  llamafactory)
    # LLaMA-Factory's own upper pins (pyproject.toml at ff6d4d1)
    "${pip[@]}" transformers==5.8.0 datasets==4.0.0 accelerate==1.11.0 peft==0.18.1 trl==0.24.0 \
      'torchdata>=0.10,<=0.11' 'tyro<0.9.0' einops numpy pandas scipy sentencepiece tiktoken \
      safetensors fire omegaconf packaging protobuf pyyaml pydantic matplotlib
    # Meta's Llama 3 rank file, for the tiny Llama folder of the llama3 template's case (not
    # committed: Meta's licence)
    "${pip[@]}" --no-deps llama-models==0.3.0
    trainer llamafactory==0.9.5 ;;  # ff6d4d1 is v0.9.5 plus 54 commits
  axolotl)
    # axolotl's core pins (pyproject.toml at 067b021); torch is outside its range (2.11-2.12.1)
    "${pip[@]}" transformers==5.14.1 tokenizers==0.22.2 huggingface_hub==1.17.0 datasets==4.8.4 \
      accelerate==1.13.0 peft==0.19.1 pydantic==2.12.5 PyYAML==6.0.3 packaging==26.0 \
      addict fire einops colorama 'numpy>=2.1,<3' scipy sentencepiece requests fastcore \
      'numba>=0.63.1,<1.0' typer==0.25.1 python-dotenv==1.0.1 zstandard jinja2 tiktoken
    "${pip[@]}" --no-deps trl==1.8.0 evaluate==0.4.1 axolotl-contribs-lgpl==0.0.7 axolotl-contribs-mit==0.0.6
    # what its modules import at load time (found by importing axolotl.cli.train and axolotl.train);
    # xformers and flash-attn are left out: the CPU has no use for them
    "${pip[@]}" posthog==6.7.11 bitsandbytes==0.50.2 triton==3.9.0 wandb==0.31.0 pillow==13.0.0 torchao==0.18.0
    trainer axolotl==0.18.0 ;;  # 067b021 is v0.18.0 plus 9 commits
  *) echo "unknown trainer: $which" >&2; exit 2 ;;
esac
"$venv/bin/python" - <<'PY'
from importlib.metadata import version
print({n: version(n) for n in ("torch", "transformers", "datasets", "accelerate")})
PY
