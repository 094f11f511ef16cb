"""Images: sizes from headers against PIL, tokens against transformers' own image processors,
and a LLaMA-Factory multimodal dataset estimated to the token against an independent derivation
(LLaMA-Factory's resize done by PIL, transformers' processor, the real chat template rendered by
transformers, Qwen's ranks tokenized by Hugging Face tokenizers)."""

from __future__ import annotations

import base64
import contextlib
import io
import json
import math
import os
import struct
import zlib
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT, run

DEMO = FIXTURES / "datasets" / "llama-factory-mllm"
MEDIA = FIXTURES / "media"
QWEN25 = {"min_pixels": 3136, "max_pixels": 12845056, "patch_size": 14, "merge_size": 2}  # Qwen2.5-VL preprocessor_config.json
QWEN3 = {"size": {"shortest_edge": 65536, "longest_edge": 16777216}, "patch_size": 16, "merge_size": 2}


def _pil(width: int, height: int, kind: str, **save: Any) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 90)).save(out, kind, **save)
    return out.getvalue()


def _size(data: bytes) -> Any:
    from ftlint.media.header import image_size

    return image_size(lambda offset, n: data[offset:offset + n], len(data))


@pytest.mark.parametrize(("kind", "save"), [("PNG", {}), ("JPEG", {}), ("JPEG", {"progressive": True}), ("GIF", {}),
                                             ("WEBP", {"lossless": False}), ("WEBP", {"lossless": True}),
                                             ("WEBP", {"lossless": False, "exif": b"Exif\x00\x00MM"})])
@pytest.mark.parametrize(("width", "height"), [(1, 1), (333, 1001), (1280, 720), (4000, 17)])
def test_each_kind_of_header_gives_pils_size(kind: str, save: dict, width: int, height: int) -> None:
    from PIL import Image

    data = _pil(width, height, kind, **save)
    found = _size(data)
    assert (found.width, found.height) == Image.open(io.BytesIO(data)).size == (width, height)
    assert found.kind == kind.lower() and found.whole


def test_the_fixture_images_are_read_as_pil_reads_them() -> None:
    from PIL import Image

    for path in [*MEDIA.iterdir(), *(DEMO / "mllm_demo_data").iterdir()]:
        found = _size(path.read_bytes())
        assert (found.width, found.height) == Image.open(path).size, path


def _qwen_tokens(image: Any, config: dict) -> int:
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    grid = Qwen2VLImageProcessorPil(**config)(images=[image.convert("RGB")])["image_grid_thw"][0]
    return int(grid[0] * grid[1] * grid[2]) // config["merge_size"] ** 2 + 2  # <|vision_start|>, <|vision_end|>


SIZES = [(1, 1), (27, 29), (56, 56), (333, 1001), (640, 480), (1280, 720), (1023, 4097), (3000, 4000), (5000, 5000), (6000, 31)]


@pytest.mark.parametrize(("family", "config"), [("qwen2.5-vl", QWEN25), ("qwen3-vl", QWEN3)])
def test_qwen_image_tokens_equal_transformers_processor(family: str, config: dict) -> None:
    from PIL import Image

    from ftlint.media.processors import PROCESSORS

    for width, height in SIZES:
        assert PROCESSORS[family].tokens(width, height) == _qwen_tokens(Image.new("RGB", (width, height)), config), (width, height)


def test_openai_tiles_follow_the_guides_worked_examples() -> None:
    from ftlint.media.processors import PROCESSORS

    tiles = PROCESSORS["openai"]
    # developers.openai.com images-vision, Calculating costs: 1024 x 1024 high is 4 tiles (765);
    # 2048 x 4096 is scaled to 1024 x 2048, then 768 x 1536: 6 tiles (1105); low is 85 whatever the size
    assert tiles.tokens(1024, 1024) == 170 * 4 + 85 == 765
    assert tiles.tokens(2048, 4096) == 170 * 6 + 85 == 1105
    assert tiles.tokens(4096, 8192, "low") == 85
    assert tiles.tokens(512, 512) == 255 and tiles.tokens(513, 500) == 85 + 170 * 2


def _llama_factory_size(width: int, height: int) -> tuple[int, int]:
    """LLaMA-Factory's _preprocess_image (image_max_pixels 768*768), done by hand here."""
    if width * height > 768 * 768:
        f = math.sqrt(768 * 768 / (width * height))
        width, height = int(width * f), int(height * f)
    return width, height


def _demo_oracle() -> tuple[int, list[int]]:
    """mllm_demo's tokens as LLaMA-Factory builds them for Qwen2.5-VL: each <image> replaced by the
    Qwen2VLPlugin's expansion of its image (resized by PIL as LLaMA-Factory does), the conversation
    rendered by transformers with the model's chat template, tokenized with Qwen's ranks."""
    from PIL import Image

    from mask_reference import hf_render

    template = ROOT / "ftlint" / "chat" / "templates" / "qwen2-vl.jinja"
    per_record = []
    for record in json.loads((DEMO / "mllm_demo.json").read_text(encoding="utf-8")):
        images = iter(record["images"])
        messages = []
        for m in record["messages"]:
            content = m["content"]
            while "<image>" in content:
                image = Image.open(DEMO / next(images))
                image = image.resize(_llama_factory_size(*image.size))
                pads = _qwen_tokens(image, QWEN25) - 2
                content = content.replace("<image>", "<|vision_start|>" + "<|image_pad|>" * pads + "<|vision_end|>", 1)
            messages.append({"role": m["role"], "content": content})
        _, ids, _ = hf_render(template, "qwen2.5", messages, None, "", "<|im_end|>")
        per_record.append(len(ids))
    return sum(per_record), per_record


def test_llama_factory_multimodal_demo_is_estimated_for_qwen25_vl_to_the_token() -> None:
    result = run("estimate", str(DEMO / "mllm_demo.json"), "--mapping", str(DEMO / "dataset_info.json"),
                 "--model", "Qwen/Qwen2.5-VL-7B-Instruct", "-o", "json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    total, per_record = _demo_oracle()
    assert report["tokens"] == total
    assert report["token_stats"]["max"] == max(per_record) and report["token_stats"]["min"] == min(per_record)
    assert max(per_record) > 1000  # the images are in it: two 1280 x 720 images are 779 tokens each


def _bad_demo(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(DEMO, tmp_path / "demo")
    data = json.loads((tmp_path / "demo" / "mllm_demo.json").read_text(encoding="utf-8"))
    data[1]["images"] = []  # one <image> placeholder, no image
    data[2]["images"] = ["mllm_demo_data/9.jpg"]  # no such file
    data[3]["images"] = data[3]["images"][:1]  # two placeholders, one image
    (tmp_path / "demo" / "mllm_demo.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path / "demo"


def test_placeholder_and_file_errors_are_on_their_records_alone(tmp_path: Path) -> None:
    folder = _bad_demo(tmp_path)
    result = run("check", str(folder / "mllm_demo.json"), "--mapping", str(folder / "dataset_info.json"),
                 "--model", "Qwen/Qwen2.5-VL-7B-Instruct", "-o", "json")
    # the array is written on one line: each finding is on line 1, with the element it is in
    found = [(d["line"], d.get("element"), d["code"]) for d in json.loads(result.stdout)]
    assert sorted(found) == [(1, 2, "FT250"), (1, 3, "FT251"), (1, 4, "FT250")]
    assert result.exit_code == 1


def test_qwen3_vl_images_on_together_add_the_processors_tokens(tmp_path: Path) -> None:
    from PIL import Image

    png = (MEDIA / "small.png").read_bytes()
    jpg = (MEDIA / "square.jpg").read_bytes()
    parts = [{"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}},
             {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + base64.b64encode(jpg).decode()}},
             {"type": "text", "text": "What differs?"}]
    record = {"messages": [{"role": "user", "content": parts}, {"role": "assistant", "content": [{"type": "text", "text": "Size."}]}]}
    text_only = {"messages": [{"role": "user", "content": parts[2:]}, record["messages"][1]]}
    (tmp_path / "v.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    (tmp_path / "t.jsonl").write_text(json.dumps(text_only) + "\n", encoding="utf-8")
    args = ("--format", "together-conversational", "--model", "together/Qwen/Qwen3-VL-8B-Instruct", "-o", "json")
    with_images = json.loads(run("estimate", str(tmp_path / "v.jsonl"), *args).stdout)
    without = json.loads(run("estimate", str(tmp_path / "t.jsonl"), *args).stdout)
    images = _qwen_tokens(Image.open(MEDIA / "small.png"), QWEN3) + _qwen_tokens(Image.open(MEDIA / "square.jpg"), QWEN3)
    assert with_images["tokens"] == without["tokens"] + images
    assert with_images["trainable_tokens"] == without["trainable_tokens"]


def test_openai_vision_records_are_billed_by_their_tiles(tmp_path: Path) -> None:
    jpg = base64.b64encode((MEDIA / "square.jpg").read_bytes()).decode()
    record = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + jpg}}]},
                           {"role": "assistant", "content": "Grey."}]}
    low = json.loads(json.dumps(record))
    low["messages"][0]["content"][0]["image_url"]["detail"] = "low"
    (tmp_path / "high.jsonl").write_text((json.dumps(record) + "\n") * 10, encoding="utf-8")
    (tmp_path / "low.jsonl").write_text((json.dumps(low) + "\n") * 10, encoding="utf-8")
    high = json.loads(run("estimate", str(tmp_path / "high.jsonl"), "--model", "gpt-4o-2024-08-06", "-o", "json").stdout)
    cheap = json.loads(run("estimate", str(tmp_path / "low.jsonl"), "--model", "gpt-4o-2024-08-06", "-o", "json").stdout)
    # 1024 x 1024 at detail high: 765 tokens (the guide's own example); at low: 85
    assert high["tokens"] - cheap["tokens"] == 10 * (765 - 85)
    assert high["cost_usd"] > cheap["cost_usd"]


def _png_header(width: int, height: int) -> bytes:
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    ihdr = struct.pack(">I", 13) + b"IHDR" + header + struct.pack(">I", zlib.crc32(b"IHDR" + header))
    iend = struct.pack(">I", 0) + b"IEND" + struct.pack(">I", zlib.crc32(b"IEND"))
    return b"\x89PNG\r\n\x1a\n" + ihdr + iend


def test_hostile_images_are_one_finding_each_and_read_a_few_bytes(tmp_path: Path) -> None:
    from ftlint.media.header import NotAnImage, image_size

    folder = tmp_path / "data"
    folder.mkdir()
    with open(folder / "huge.png", "wb") as f:  # a sparse 1 GB file named .png
        f.truncate(1 << 30)
    (folder / "bomb.png").write_bytes(_png_header(100_000, 100_000))
    jpeg = (MEDIA / "square.jpg").read_bytes()
    (folder / "cut.jpg").write_bytes(jpeg[: len(jpeg) // 2])
    os.mkfifo(folder / "fifo.png")
    lines = [{"conversations": [{"from": "human", "value": "<image>What is it?"}, {"from": "gpt", "value": "A test."}],
              "images": [name]} for name in ("huge.png", "bomb.png", "cut.jpg", "fifo.png")]
    (folder / "data.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines), encoding="utf-8")
    result = run("check", str(folder / "data.jsonl"), "--trainer", "llama-factory", "--model", "Qwen/Qwen2.5-VL-7B-Instruct",
                 "-o", "json")
    found = sorted((d["line"], d["code"]) for d in json.loads(result.stdout))
    assert found == [(1, "FT252"), (2, "FT253"), (3, "FT252"), (4, "FT252")], result.stdout
    for name in ("huge.png", "bomb.png", "cut.jpg"):
        data = (folder / name).open("rb")
        asked: list[int] = []

        def read(offset: int, n: int, f: Any = data, asked: list[int] = asked) -> bytes:
            asked.append(n)
            f.seek(offset)
            return f.read(n)

        with contextlib.suppress(NotAnImage):
            image_size(read, os.path.getsize(folder / name))
        assert sum(asked) <= 2048, (name, sum(asked))


def _convention(messages: list[dict], extra: list[dict] = ()) -> int:  # type: ignore[assignment]
    """OpenAI's cookbook convention, by tiktoken directly: 3 a record, 3 + role + content a message."""
    import tiktoken

    from conftest import tiktoken_offline

    tiktoken_offline()
    enc = tiktoken.get_encoding("o200k_base")
    return 3 + sum(3 + len(enc.encode(m["role"])) + len(enc.encode(m["content"])) for m in [*messages, *extra])


def test_verls_documented_parquet_row_checks_and_is_counted_as_its_prompt() -> None:
    import polars as pl

    path = FIXTURES / "datasets" / "verl" / "gsm8k.readme.parquet"
    assert run("check", str(path), "--fail-on", "warning").exit_code == 0
    report = json.loads(run("estimate", str(path), "-o", "json").stdout)
    row = pl.read_parquet(path).to_dicts()[0]
    assert report["format"] == "verl" and report["records"] == 1
    assert report["tokens"] == _convention(row["prompt"]) and report["trainable_tokens"] == 0


def test_verl_prompt_is_rendered_with_the_generation_prompt_through_the_models_template(tmp_path: Path) -> None:
    from mask_reference import hf_tokenizer

    template = (ROOT / "ftlint" / "chat" / "templates" / "qwen2.5.jinja").read_text(encoding="utf-8")
    rows = [json.loads(line) for line in (FIXTURES / "formats" / "verl" / "good.jsonl").read_text().splitlines()]
    report = json.loads(run("estimate", str(FIXTURES / "formats" / "verl" / "good.jsonl"), "--model", "Qwen/Qwen2.5-7B-Instruct",
                            "-o", "json").stdout)
    tok = hf_tokenizer("qwen2.5")
    expected = sum(len(tok.apply_chat_template(r["prompt"], chat_template=template, add_generation_prompt=True, tokenize=True,
                                               return_dict=True)["input_ids"]) for r in rows)
    assert report["tokens"] == expected


def test_nemo_gyms_example_checks_and_is_counted_as_its_requests() -> None:
    path = FIXTURES / "datasets" / "nemo-gym" / "math_with_judge.example.jsonl"
    assert run("check", str(path), "--fail-on", "warning").exit_code == 0
    report = json.loads(run("estimate", str(path), "-o", "json").stdout)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert report["format"] == "nemo-gym" and report["records"] == 5
    assert report["tokens"] == sum(_convention(r["responses_create_params"]["input"]) for r in rows)


def test_ms_swifts_documented_examples_check_and_count_their_rejected_responses() -> None:
    path = FIXTURES / "datasets" / "ms-swift" / "custom_dataset.sample.jsonl"
    assert run("check", str(path), "--fail-on", "warning").exit_code == 0
    report = json.loads(run("estimate", str(path), "-o", "json").stdout)
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    expected = sum(_convention(r["messages"], [{"role": "assistant", "content": r["rejected_response"]}] if "rejected_response" in r else [])
                   for r in rows)
    assert report["format"] == "ms-swift" and report["tokens"] == expected
    # the loss-false answer does not train: 6 answers and 2 rejected responses, less the one
    assert report["targets"] == sum(1 for r in rows for m in r["messages"] if m["role"] == "assistant") - 1 + 2


def _together(tmp_path: Path, url: str, name: str) -> Any:
    record = {"messages": [{"role": "user", "content": [{"type": "text", "text": "How many oranges are in the bowl?"},
                                                        {"type": "image_url", "image_url": {"url": url}}]},
                           {"role": "assistant", "content": [{"type": "text", "text": "Three."}]}]}
    path = tmp_path / name
    path.write_text(json.dumps(record) + "\n", encoding="utf-8")
    result = run("check", str(path), "--format", "together-conversational", "-o", "json")
    return result.exit_code, sorted({(d["code"], d["severity"]) for d in json.loads(result.stdout)})


def _png_chunked(extra: int) -> bytes:
    """A real 2 x 2 PNG with a private ancillary chunk of `extra` bytes before its IEND (decoders skip it)."""
    data = (MEDIA / "small.png").read_bytes()
    at = data.rindex(b"IEND") - 4
    body = b"\x00" * extra
    chunk = struct.pack(">I", len(body)) + b"zzZz" + body + struct.pack(">I", zlib.crc32(b"zzZz" + body))
    return data[:at] + chunk + data[at:]


def test_together_media_rules_hold_on_its_documented_examples(tmp_path: Path) -> None:
    """docs.together.ai/docs/fine-tuning/vision: base64 data: URLs of PNG, JPEG or WEBP, 10 MB an image.
    Its own example payload ("...") passes Together's checker (only the prefix is read): a warning here."""
    b64 = lambda data: base64.b64encode(data).decode()  # noqa: E731
    assert _together(tmp_path, "data:image/jpeg;base64,...", "doc.jsonl") == (0, [("FT252", "warning")])
    for name in ("small.png", "square.jpg", "wide.webp"):
        kind = {"png": "png", "jpg": "jpeg", "webp": "webp"}[name.rsplit(".", 1)[1]]
        assert _together(tmp_path, f"data:image/{kind};base64,{b64((MEDIA / name).read_bytes())}", "ok.jsonl") == (0, [])
    gif = _together(tmp_path, "data:image/gif;base64," + b64((MEDIA / "tiny.gif").read_bytes()), "gif.jsonl")
    assert gif[0] == 1 and ("FT254", "error") in gif[1]  # the schema's FT105 says the prefix; FT254 the image's own kind
    assert ("FT254", "error") in _together(tmp_path, "https://example.com/oranges.jpg", "url.jsonl")[1]
    big = _png_chunked(10 * 1024 * 1024)  # a real PNG of just over 10 MB
    found = _together(tmp_path, "data:image/png;base64," + b64(big), "big.jsonl")
    assert found[0] == 1 and ("FT254", "error") in found[1] and ("FT252", "warning") not in found[1]


def test_a_tinker_run_is_priced_by_its_catalog_rate(tmp_path: Path) -> None:
    report = json.loads(run("estimate", str(FIXTURES / "formats" / "trl-messages" / "good.jsonl"), "--model", "tinker/Qwen/Qwen3-8B",
                            "--format", "trl-messages", "-o", "json").stdout)
    assert report["cost_usd"] == pytest.approx(report["tokens_processed"] * 0.40 / 1_000_000)


def test_gemma3_counts_its_fixed_256_image_tokens_and_markers(tmp_path: Path) -> None:
    """processing_gemma3.py: each image is "\\n\\n" <start_of_image>, 256 <image_soft_token>, <end_of_image> "\\n\\n"
    (image_seq_length 256, pan-and-scan off): 260 tokens with Gemma's tokenizer, whatever the image's size."""
    shutil_copy = __import__("shutil").copy
    for name in ("small.png", "square.jpg"):
        shutil_copy(MEDIA / name, tmp_path / name)
    with_images = {"messages": [{"role": "user", "content": "<image><image>Compare."}, {"role": "assistant", "content": "Sizes."}],
                   "images": ["small.png", "square.jpg"]}
    without = {"messages": [{"role": "user", "content": "Compare."}, {"role": "assistant", "content": "Sizes."}], "images": []}
    (tmp_path / "a.jsonl").write_text(json.dumps(with_images) + "\n", encoding="utf-8")
    (tmp_path / "b.jsonl").write_text(json.dumps(without) + "\n", encoding="utf-8")
    count = [json.loads(run("estimate", str(tmp_path / f), "--model", "google/gemma-3-4b-it", "-o", "json").stdout)["tokens"]
             for f in ("a.jsonl", "b.jsonl")]
    assert count[0] - count[1] == 2 * (256 + 2 + 2)


def test_a_cut_loses_an_image_where_the_trainers_rule_keeps_less_than_all_of_it() -> None:
    from ftlint.media.cut import cut_through
    from ftlint.trainers import cut_rule
    from ftlint.trainers.llama_factory.cut import infer_seqlen

    images = [(10, 40), (60, 30)]  # (first token, tokens)
    assert cut_through(images, [], 55, cut_rule("truncate")) == [1]  # keep_start: the first 55 tokens hold the first image whole
    assert cut_through(images, [], 45, cut_rule("truncate")) == [0, 1]
    # LLaMA-Factory: one turn of 100 prompt tokens (both images) and 50 answer tokens, cut at 120
    source, target = infer_seqlen(100, 50, 120)
    assert (source, target) == (70, 50)  # the answer is short enough to keep whole; the prompt keeps its first 70
    assert cut_through(images, [(100, 50)], 120, cut_rule("proportional")) == [1]  # 60 + 30 > 70
