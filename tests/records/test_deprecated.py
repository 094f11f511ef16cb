"""A deprecated provider says so, and a trainer's own format lists only the models it trains (issue 29).
On main `ftlint models --provider mistral` printed nothing, and `formats mistral-finetune` listed Llama,
Qwen and gpt-oss models."""

from __future__ import annotations

import json
import tomllib

from conftest import ROOT, run


def _catalog(name: str) -> dict:
    return tomllib.loads((ROOT / "ftlint" / "catalog" / f"{name}.toml").read_text())["provider"]


def test_models_of_a_deprecated_provider_say_so_with_the_date_and_where_users_went() -> None:
    for name, date in (("mistral", "2026"), ("cohere", "2025-09-15")):
        out = run("models", "--provider", name)
        assert out.exit_code == 0
        lines = out.stdout.splitlines()
        assert lines[0].startswith(f"== {_catalog(name)['title']} [{name}]  (deprecated") and date in lines[0]
        assert "no model of it can be fine-tuned" in lines[1] and _catalog(name)["formats"][0] in lines[1]
        assert lines[2].startswith("  moved to      ") and "names no replacement" in lines[2]


def test_models_json_lists_the_deprecated_providers() -> None:
    data = json.loads(run("models", "--provider", "mistral", "-o", "json").stdout)
    assert data["models"] == []
    [gone] = data["deprecated_providers"]
    assert gone["name"] == "mistral" and gone["formats"] == ["mistral-chat"]
    assert gone["status"]["value"].startswith("deprecated") and gone["status"]["source"].startswith("docs.mistral.ai")
    assert "mistral-finetune" in gone["moved"]["value"]
    # a listing of every provider names both, after the providers whose models train
    every = json.loads(run("models", "-o", "json").stdout)
    assert [p["name"] for p in every["deprecated_providers"]] == ["mistral", "cohere"]


def test_the_mistral_finetune_format_lists_only_mistral_models() -> None:
    sheet = run("formats", "mistral-finetune").stdout.splitlines()
    start = next(i for i, line in enumerate(sheet) if line.startswith("  models"))
    end = next(i for i in range(start + 1, len(sheet)) if not sheet[i].startswith("              "))
    models = [line.split()[-1] for line in sheet[start:end]]
    # mistral-finetune loads mistral-common's own tokenizer from the model's params.json (train.py _train)
    assert models and all(m.startswith("mistralai/") for m in models)
    text = run("formats", "text").stdout  # TRL reads text too, and trains any model
    assert "meta-llama/" in text and "mistralai/" in text
