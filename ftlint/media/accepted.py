"""What each provider accepts of images, as its catalog file says (`[provider.media]` in
ftlint/catalog/PROVIDER.toml: each value with its source and date). FT254 checks a record's images
against its format's provider's rules."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class MediaRules:
    provider: str
    kinds: tuple[str, ...]  # png, jpeg, webp, gif
    max_bytes: int | None  # per image
    max_images: int | None  # per example (None: FT217 says it for OpenAI's and Together's formats, or no limit)
    inline_only: bool  # base64 data only: a URL is refused
    remote: tuple[str, ...]  # the remote sources it reads ("url", "s3", "gs"); empty: none
    source: str
    date: str

    def cite(self) -> str:
        return f"{self.source}, read {self.date}"


@cache
def rules_for(format_name: str) -> MediaRules | None:
    """The media rules of the provider that takes `format_name` (None: it states none)."""
    from ..models import provider_of, provider_table

    provider = provider_of(format_name)
    media = provider_table(provider.name, "media") if provider is not None else None
    if provider is None or media is None:
        return None
    return MediaRules(provider.title, tuple(media.get("kinds", ())), media.get("max_bytes"), media.get("max_images"),
                      bool(media.get("inline_only", False)), tuple(media.get("remote", ())), str(media["source"]),
                      str(media["date"]))
