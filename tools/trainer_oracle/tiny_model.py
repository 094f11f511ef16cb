"""A tiny random model over a real vocabulary and chat template, saved as a Hugging Face folder.

Runs inside a trainer's environment (tools/trainer_oracle/setup_envs.sh): it needs transformers,
tokenizers, torch and tiktoken. The vocabulary is the rank file ftlint counts with (Qwen: its own
ftlint/tokenizers/qwen2.tiktoken.gz; Llama 3: the llama-models package's), checked against the
SHA-256 of ftlint/tokens/families.py, with the family's split pattern and NFC normaliser from the
same module, the added tokens at the ids the real models give them, and the real chat template
(ftlint/chat/templates/, or the test fixture for Llama's). The model is a 2-layer Qwen 2 or Llama
(hidden 64) with random weights: the trainers' data pipelines and step arithmetic do not look at
the weights.

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
from typing import Any

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


# Llama 3's special tokens (llama_models/llama3/tokenizer.py Tokenizer.__init__: twelve named,
# then reserved ones up to 256, from id 128000)
LLAMA3_NAMED = ["<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
                "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>", "<|eom_id|>",
                "<|eot_id|>", "<|python_tag|>", "<|image|>"]
LLAMA3_ADDED = [(128000 + i, t, True) for i, t in enumerate(
    LLAMA3_NAMED + [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(LLAMA3_NAMED))])]


@dataclass(frozen=True)
class Spec:
    """What a real model's folder says: its vocabulary family, added tokens, template (a path
    from the repository's root), eos, pad and bos, and its architecture."""

    added: list[tuple[int, str, bool]]
    template: str
    eos: str
    pad: str | None = "<|endoftext|>"
    bos: str | None = None
    family: str = "qwen2"
    vocab_size: int = 151936


T = "ftlint/chat/templates/"
MODELS: dict[str, Spec] = {
    "Qwen/Qwen2.5-0.5B-Instruct": Spec(QWEN25_ADDED, T + "qwen2.5.jinja", "<|im_end|>"),
    "Qwen/Qwen2.5-0.5B": Spec(QWEN25_ADDED, T + "qwen2.5.jinja", "<|endoftext|>"),
    "Qwen/Qwen3-0.6B": Spec(QWEN3_ADDED, T + "qwen3.jinja", "<|im_end|>"),
    "Qwen/Qwen3-4B-Instruct-2507": Spec(QWEN3_ADDED, T + "qwen3-instruct-2507.jinja", "<|im_end|>"),
    # Meta's vocabulary from the llama-models package (not committed; its licence is Meta's), the
    # chat template kept as a test fixture (fixtures/templates/NOTICE); no pad token, as Meta's folder
    "meta-llama/Llama-3.2-1B-Instruct": Spec(LLAMA3_ADDED, "fixtures/templates/llama-3.2-1b-instruct.jinja",
                                             "<|eot_id|>", pad=None, bos="<|begin_of_text|>", family="llama3",
                                             vocab_size=128256),
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


def family_ranks(name: str) -> tuple[bytes, str, bool]:
    """A family's rank file (verified against ftlint's SHA-256), its split pattern, and whether
    it normalises to NFC: ftlint's shipped file, or the installed package's (Llama 3)."""
    fam = _families()
    family = fam.FAMILIES[name]
    if family.shipped:
        data = gzip.decompress((ROOT / "ftlint" / "tokenizers" / family.shipped).read_bytes())
    else:
        module, inner = family.package
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            raise SystemExit(f"{name}: install {module} in this environment ({family.install})")
        data = (Path(next(iter(spec.submodule_search_locations))) / inner).read_bytes()
    if hashlib.sha256(data).hexdigest() != family.sha256:
        raise SystemExit(f"the {name} rank file does not match ftlint's SHA-256")
    return data, family.pattern, family.nfc


def reference_encoder(name: str):  # type: ignore[no-untyped-def]
    """tiktoken over the same ranks and pattern (NFC first where the family normalises): how
    ftlint counts."""
    import base64

    import tiktoken

    data, pattern, nfc = family_ranks(name)
    ranks = {base64.b64decode(t): int(r) for t, r in (line.split() for line in data.splitlines() if line)}
    enc = tiktoken.Encoding(name + "-ref", pat_str=pattern, mergeable_ranks=ranks, special_tokens={})
    if nfc:
        return lambda text: enc.encode_ordinary(unicodedata.normalize("NFC", text))
    return enc.encode_ordinary


def build_tokenizer(name: str, out: Path):  # type: ignore[no-untyped-def]
    from tokenizers import AddedToken, normalizers
    from transformers import PreTrainedTokenizerFast
    from transformers.convert_slow_tokenizer import TikTokenConverter

    spec = MODELS[name]
    data, pattern, nfc = family_ranks(spec.family)
    with tempfile.TemporaryDirectory() as tmp:
        ranks_file = os.path.join(tmp, "ranks.tiktoken")
        Path(ranks_file).write_bytes(data)
        backend = TikTokenConverter(vocab_file=ranks_file, pattern=pattern, additional_special_tokens=[]).converted()
    if nfc:
        backend.normalizer = normalizers.NFC()
    for tid, text, special in spec.added:  # one at a time, in id order: each gets the next id
        token = AddedToken(text, special=special, normalized=False, lstrip=False, rstrip=False, single_word=False)
        got = backend.add_special_tokens([token]) if special else backend.add_tokens([token])
        if got != 1 or backend.token_to_id(text) != tid:
            raise SystemExit(f"{text} got id {backend.token_to_id(text)}, not {tid}")
    if spec.bos:  # Llama 3's tokenizer.json puts <|begin_of_text|> before every encoding
        from tokenizers import processors

        bos_id = backend.token_to_id(spec.bos)
        backend.post_processor = processors.TemplateProcessing(
            single=f"{spec.bos} $A", pair=f"{spec.bos} $A {spec.bos} $B", special_tokens=[(spec.bos, bos_id)])
    template = (ROOT / spec.template).read_text(encoding="utf-8")
    tok = PreTrainedTokenizerFast(tokenizer_object=backend, eos_token=spec.eos, pad_token=spec.pad,
                                  bos_token=spec.bos, unk_token=None, clean_up_tokenization_spaces=False,
                                  model_max_length=131072, split_special_tokens=False)
    tok.chat_template = template
    tok.save_pretrained(out)
    cfg_path = out / "tokenizer_config.json"
    cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
    if spec.family == "qwen2":  # the class the real folders name
        cfg["tokenizer_class"] = "Qwen2Tokenizer"
        cfg["add_bos_token"] = False
        cfg["errors"] = "replace"
    cfg_path.write_text(json.dumps(cfg, indent=2, ensure_ascii=False), encoding="utf-8")


def build_model(out: Path, spec: Spec, tokenizer: Any) -> None:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM, Qwen2Config, Qwen2ForCausalLM

    torch.manual_seed(0)
    config_class, model_class = (Qwen2Config, Qwen2ForCausalLM) if spec.family == "qwen2" else (LlamaConfig, LlamaForCausalLM)
    config = config_class(vocab_size=spec.vocab_size, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                          num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=32768,
                          tie_word_embeddings=True, bos_token_id=tokenizer.convert_tokens_to_ids(spec.bos or spec.pad),
                          eos_token_id=tokenizer.convert_tokens_to_ids(spec.eos))
    model_class(config).save_pretrained(out)


def check_ids(name: str, folder: Path, texts: list[str]) -> int:
    """Every text encoded by the folder's tokenizer (as the trainers load it) and by tiktoken over
    ftlint's ranks: the ids must be equal. Returns the number of texts checked."""
    from transformers import AutoTokenizer

    spec = MODELS[name]
    tok = AutoTokenizer.from_pretrained(folder)
    ref = reference_encoder(spec.family)
    for text in texts:
        if "<|" in text:  # an added token's text inside data is split by neither side the same way
            continue
        got = tok(text, add_special_tokens=False)["input_ids"]
        want = ref(text)
        if got != want:
            raise SystemExit(f"tokenizer folder {folder} disagrees with ftlint's ranks on {text[:80]!r}")
    first, last = (spec.added[1], spec.added[2]) if spec.family == "qwen2" else (spec.added[6], spec.added[9])
    probe = tok(f"{first[1]}user\nhi{last[1]}\n", add_special_tokens=False)["input_ids"]
    if probe[0] != first[0] or probe[-2] != last[0]:
        raise SystemExit(f"added tokens are not recognised: {probe}")
    return len(texts)


def build(name: str, out: Path) -> Path:
    if (out / "config.json").is_file() and (out / "tokenizer.json").is_file():
        return out
    out.mkdir(parents=True, exist_ok=True)
    build_tokenizer(name, out)
    from transformers import AutoTokenizer

    build_model(out, MODELS[name], AutoTokenizer.from_pretrained(out))
    return out


if __name__ == "__main__":
    folder = build(sys.argv[1], Path(sys.argv[2]))
    print(folder, check_ids(sys.argv[1], folder, ["Hello, wörld! 123 4567 \n\t  spaces   ", "日本語のテキスト", "e\u0301t\u00e9"]))
