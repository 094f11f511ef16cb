"""A tiny random model over a real vocabulary and chat template, saved as a Hugging Face folder.

Runs inside a trainer's environment (tools/trainer_oracle/setup_envs.sh): it needs transformers,
tokenizers, torch and tiktoken. The vocabulary is ftlint's own Qwen 2 rank file
(ftlint/tokenizers/qwen2.tiktoken.gz, checked against its SHA-256 in ftlint/tokens/families.py),
with Qwen's split pattern and NFC normaliser taken from the same module, the added tokens at the
ids the real models give them, and the real chat template (ftlint/chat/templates/). The model is
a 2-layer Qwen 2 (hidden 64) with random weights: the trainers' data pipelines and step
arithmetic do not look at the weights.

    python tools/trainer_oracle/tiny_model.py MODEL_NAME OUT_DIR
"""
from __future__ import annotations

import gzip
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import unicodedata
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Qwen 2.5's added tokens (tokenizer.json of Qwen/Qwen2.5-0.5B-Instruct): id, text, special
QWEN25_ADDED = [
    (151643, "<|endoftext|>", True), (151644, "<|im_start|>", True), (151645, "<|im_end|>", True),
    (151646, "<|object_ref_start|>", True), (151647, "<|object_ref_end|>", True),
    (151648, "<|box_start|>", True), (151649, "<|box_end|>", True),
    (151650, "<|quad_start|>", True), (151651, "<|quad_end|>", True),
    (151652, "<|vision_start|>", True), (151653, "<|vision_end|>", True),
    (151654, "<|vision_pad|>", True), (151655, "<|image_pad|>", True), (151656, "<|video_pad|>", True),
    (151657, "<tool_call>", False), (151658, "</tool_call>", False),
    (151659, "<|fim_prefix|>", False), (151660, "<|fim_middle|>", False), (151661, "<|fim_suffix|>", False),
    (151662, "<|fim_pad|>", False), (151663, "<|repo_name|>", False), (151664, "<|file_sep|>", False),
]
# Qwen 3 adds four (tokenizer.json of Qwen/Qwen3-0.6B)
QWEN3_ADDED = [
    *QWEN25_ADDED,
    (151665, "<tool_response>", False), (151666, "</tool_response>", False),
    (151667, "<think>", False), (151668, "</think>", False),
]


@dataclass(frozen=True)
class Spec:
    """What a real model's tokenizer folder says: its added tokens, template, eos and pad."""

    added: list[tuple[int, str, bool]]
    template: str  # a file of ftlint/chat/templates/
    eos: str
    pad: str = "<|endoftext|>"


MODELS: dict[str, Spec] = {
    "Qwen/Qwen2.5-0.5B-Instruct": Spec(QWEN25_ADDED, "qwen2.5.jinja", "<|im_end|>"),
    "Qwen/Qwen2.5-0.5B": Spec(QWEN25_ADDED, "qwen2.5.jinja", "<|endoftext|>"),
    "Qwen/Qwen3-0.6B": Spec(QWEN3_ADDED, "qwen3.jinja", "<|im_end|>"),
    "Qwen/Qwen3-4B-Instruct-2507": Spec(QWEN3_ADDED, "qwen3-instruct-2507.jinja", "<|im_end|>"),
}


def _families():  # type: ignore[no-untyped-def]
    """ftlint/tokens/families.py loaded by path: it imports only the standard library, so the
    trainers' environments need not install ftlint."""
    path = ROOT / "ftlint" / "tokens" / "families.py"
    spec = importlib.util.spec_from_file_location("ftlint_families", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["ftlint_families"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


def qwen2_ranks() -> tuple[bytes, str]:
    """The rank file's text (verified) and the split pattern."""
    fam = _families()
    family = fam.FAMILIES["qwen2"]
    data = gzip.decompress((ROOT / "ftlint" / "tokenizers" / family.shipped).read_bytes())
    if hashlib.sha256(data).hexdigest() != family.sha256:
        raise SystemExit("ftlint/tokenizers/qwen2.tiktoken.gz does not match its SHA-256")
    return data, family.pattern


def reference_encoder():  # type: ignore[no-untyped-def]
    """tiktoken over the same ranks and pattern, NFC first: how ftlint counts Qwen."""
    import tiktoken

    data, pattern = qwen2_ranks()
    ranks = {__import__("base64").b64decode(t): int(r) for t, r in (line.split() for line in data.splitlines() if line)}
    enc = tiktoken.Encoding("qwen2-ref", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    return lambda text: enc.encode_ordinary(unicodedata.normalize("NFC", text))


def build_tokenizer(name: str, out: Path):  # type: ignore[no-untyped-def]
    from tokenizers import AddedToken, normalizers
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    spec = MODELS[name]
    data, pattern = qwen2_ranks()
    with tempfile.TemporaryDirectory() as tmp:
        ranks_file = os.path.join(tmp, "qwen2.tiktoken")
        Path(ranks_file).write_bytes(data)
        backend = TikTokenConverter(vocab_file=ranks_file, pattern=pattern, additional_special_tokens=[]).converted()
    backend.normalizer = normalizers.NFC()
    for tid, text, special in spec.added:  # one at a time, in id order: each gets the next id
        token = AddedToken(text, special=special, normalized=False, lstrip=False, rstrip=False, single_word=False)
        got = backend.add_special_tokens([token]) if special else backend.add_tokens([token])
        if got != 1 or backend.token_to_id(text) != tid:
            raise SystemExit(f"{text} got id {backend.token_to_id(text)}, not {tid}")
    template = (ROOT / "ftlint" / "chat" / "templates" / spec.template).read_text(encoding="utf-8")
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=spec.eos, pad_token=spec.pad,
                                  bos_token=None, unk_token=None, clean_up_tokenization_spaces=False,
                                  model_max_length=131072, split_special_tokens=False)
    tok.chat_template = template
    tok.save_pretrained(out)
    # the class the real folders name (transformers builds the same backend from tokenizer.json)
    cfg_path = out / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    cfg["tokenizer_class"] = "Qwen2Tokenizer"
    cfg["add_bos_token"] = False
    cfg["errors"] = "replace"
    cfg_path.write_text(json.dumps(cfg, indent=2, ensure_ascii=False), encoding="utf-8")


def build_model(out: Path, vocab_size: int = 151936) -> None:
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config = Qwen2Config(vocab_size=vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768,
                         tie_word_embeddings=True, bos_token_id=151643, eos_token_id=151645)
    Qwen2ForCausalLM(config).save_pretrained(out)


def check_ids(folder: Path, texts: list[str]) -> int:
    """Every text encoded by the folder's tokenizer (as the trainers load it) and by tiktoken over
    ftlint's ranks: the ids must be equal. Returns the number of texts checked."""
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(folder)
    ref = reference_encoder()
    for text in texts:
        if "<|" in text:  # an added token's text inside data is split by neither side the same way
            continue
        got = tok(text, add_special_tokens=False)["input_ids"]
        want = ref(text)
        if got != want:
            raise SystemExit(f"tokenizer folder {folder} disagrees with ftlint's ranks on {text[:80]!r}")
    probe = tok("<|im_start|>user\nhi<|im_end|>\n", add_special_tokens=False)["input_ids"]
    if probe[0] != 151644 or probe[-2] != 151645:
        raise SystemExit(f"added tokens are not recognised: {probe}")
    return len(texts)


def build(name: str, out: Path) -> Path:
    if (out / "config.json").is_file() and (out / "tokenizer.json").is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    build_tokenizer(name, out)
    build_model(out)
    return out


if __name__ == "__main__":
    folder = build(sys.argv[1], Path(sys.argv[2]))
    print(folder, check_ids(folder, ["Hello, wörld! 123 4567 \n\t  spaces   ", "日本語のテキスト", "e\u0301t\u00e9"]))
