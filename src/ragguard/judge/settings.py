"""Generation settings from ragguard.yml: ``faithfulness:``, ``answer_relevance:``,
``abstention:`` and ``judge:``. Every problem names the file, the line and the key.

```yaml
faithfulness: {method: lexical, threshold: 0.3}      # or method: judge; `faithfulness: judge`
answer_relevance: {method: lexical}                  # or judge
abstention: {method: lexical}                        # or judge
judge:
  base_url: https://api.openai.com/v1                # any OpenAI-compatible server
  model: gpt-4o-mini
  api_key_env: OPENAI_API_KEY                        # the variable's name, never the key
  concurrency: 8
```

The types read here (:class:`GenerationSettings`, :class:`JudgeSettings`) are the metrics'
(:mod:`ragguard.metrics.settings`), so that scoring never imports the judge; they are
re-exported here for the code that reads them from this module.
"""

from __future__ import annotations

import datetime
import difflib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ragguard.config.model import Config, parse_duration
from ragguard.core.errors import InputError, Where
from ragguard.core.sources import is_finite_number, type_name
from ragguard.core.yaml_lines import LineDict
from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD
from ragguard.metrics.settings import DEFAULT_CACHE, GenerationSettings, JudgeSettings
from ragguard.metrics.settings import PROMPT_VERSION as PROMPT_VERSION

METHODS = ("lexical", "judge")

FAITHFULNESS_KEYS = ("method", "threshold")
METHOD_KEYS = ("method",)
JUDGE_KEYS = (
    "base_url",
    "model",
    "api_key_env",
    "api_version",
    "temperature",
    "seed",
    "max_tokens",
    "json_mode",
    "concurrency",
    "timeout",
    "max_retries",
    "max_calls",
    "cache",
)


def generation_settings_of(config: Config) -> GenerationSettings:
    """The generation settings of a loaded ragguard.yml, typed from the sections
    :func:`~ragguard.config.model.load_config` already parsed (the file is not read again)."""
    return generation_settings(config.sections, config.path)


def generation_settings(
    data: Mapping[str, Any] | None, source: str | Path, *, judge_override: bool = False
) -> GenerationSettings:
    """Read the generation sections from the parsed ragguard.yml (``None``: defaults).

    ``judge_override`` (``--judge`` on the command line) switches every generation metric
    to the judge, which then must be configured.
    """
    source = str(source)
    data = data if data is not None else {}
    if not isinstance(data, Mapping):
        raise InputError(source, f"expected a mapping of settings, found {type_name(data)}")
    where = data.where(source) if isinstance(data, LineDict) else Where(source)
    faith = _section(data, "faithfulness", FAITHFULNESS_KEYS, where)
    relevance = _section(data, "answer_relevance", METHOD_KEYS, where)
    abstention = _section(data, "abstention", METHOD_KEYS, where)
    methods = {
        "faithfulness": _method(faith, "faithfulness", where, source),
        "answer_relevance": _method(relevance, "answer_relevance", where, source),
        "abstention": _method(abstention, "abstention", where, source),
    }
    if judge_override:
        methods = dict.fromkeys(methods, "judge")
    judge = _judge(data.get("judge"), where, source, Path(source).parent)
    if judge is None and "judge" in methods.values():
        needs = next(name for name, method in methods.items() if method == "judge")
        raise where.error(
            f"{needs} uses the judge, but there is no judge: section; add "
            "judge: {base_url: ..., model: ..., api_key_env: ...}",
            key="judge",
        )
    return GenerationSettings(
        faithfulness_method=methods["faithfulness"],
        threshold=_threshold(faith, where, source),
        relevance_method=methods["answer_relevance"],
        abstention_method=methods["abstention"],
        judge=judge,
    )


def _section(
    data: Mapping[str, Any], name: str, allowed: tuple[str, ...], where: Where
) -> Mapping[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if isinstance(value, str):
        return {"method": value}
    if not isinstance(value, Mapping):
        raise where.error(f"expected a mapping or a method name, found {type_name(value)}", name)
    for key in value:
        if key not in allowed:
            raise _at(value, where, f"unknown key; {_hint(str(key), allowed)}", f"{name}.{key}")
    return value


def _at(section: Mapping[str, Any], where: Where, message: str, key: str) -> InputError:
    """An error on the line of ``key`` inside ``section`` when it is known."""
    inner = key.split(".")[-1]
    if isinstance(section, LineDict) and inner in section.key_lines:
        return InputError(where.source, message, line=section.key_lines[inner], key=key)
    return where.error(message, key)


def _hint(key: str, allowed: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(key, allowed, n=1)
    return (f"did you mean {close[0]!r}? " if close else "") + "allowed: " + ", ".join(allowed)


def _method(section: Mapping[str, Any], name: str, where: Where, source: str) -> str:
    method = section.get("method", "lexical")
    if method not in METHODS:
        raise _at(
            section, where, f"method must be lexical or judge, found {method!r}", f"{name}.method"
        )
    return str(method)


def _threshold(section: Mapping[str, Any], where: Where, source: str) -> float:
    value = section.get("threshold", DEFAULT_THRESHOLD)
    if not is_finite_number(value) or not 0 < value <= 1:
        raise _at(
            section,
            where,
            f"threshold must be a number in (0, 1], found {value!r}",
            "faithfulness.threshold",
        )
    return float(value)


def _judge(value: Any, where: Where, source: str, root: Path) -> JudgeSettings | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise where.error(f"expected a mapping, found {type_name(value)}", "judge")
    for key in value:
        if key not in JUDGE_KEYS:
            raise _at(value, where, f"unknown key; {_hint(str(key), JUDGE_KEYS)}", f"judge.{key}")
    read = _JudgeReader(value, where)
    base_url = read.text("base_url", required=True)
    parsed = urlparse(base_url or "")
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise read.error(f"expected an http(s) URL, found {base_url!r}", "base_url")
    cache = value.get("cache", DEFAULT_CACHE)
    if cache is not False and (not isinstance(cache, str) or not cache.strip()):
        raise read.error("expected a folder path, or false to turn the cache off", "cache")
    return JudgeSettings(
        base_url=base_url or "",
        model=read.text("model", required=True) or "",
        api_key_env=read.text("api_key_env"),
        api_version=read.text("api_version"),
        temperature=read.number("temperature", 0.0, low=0.0, high=2.0),
        seed=read.integer("seed", 0, low=0, optional=True),
        max_tokens=read.integer("max_tokens", 1024, low=16) or 1024,
        json_mode=read.boolean("json_mode", True),
        concurrency=read.integer("concurrency", 4, low=1, high=256) or 4,
        timeout=read.duration("timeout", 60.0),
        max_retries=read.integer("max_retries", 5, low=0, high=20) or 0,
        max_calls=read.integer("max_calls", None, low=0, optional=True),
        cache_dir=None if cache is False else root / str(cache),
        source=source,
    )


class _JudgeReader:
    """Typed reads of ``judge:`` keys, each error on its own line."""

    def __init__(self, section: Mapping[str, Any], where: Where) -> None:
        self.section = section
        self.where = where

    def error(self, message: str, key: str) -> InputError:
        return _at(self.section, self.where, message, f"judge.{key}")

    def text(self, key: str, required: bool = False) -> str | None:
        value = self.section.get(key)
        if value is None:
            if required:
                raise self.error("is required", key)
            return None
        if isinstance(value, datetime.date):  # YAML reads 2024-06-01 as a date
            return value.isoformat()
        if not isinstance(value, str) or not value.strip():
            raise self.error(f"expected a non-empty string, found {type_name(value)}", key)
        return value.strip()

    def number(self, key: str, default: float, low: float, high: float) -> float:
        value = self.section.get(key, default)
        if not is_finite_number(value) or not low <= value <= high:
            raise self.error(f"expected a number from {low:g} to {high:g}, found {value!r}", key)
        return float(value)

    def integer(
        self,
        key: str,
        default: int | None,
        low: int,
        high: int | None = None,
        optional: bool = False,
    ) -> int | None:
        value = self.section.get(key, default)
        if value is None and optional:
            return None
        bad = isinstance(value, bool) or not isinstance(value, int) or value < low
        if bad or (high is not None and value > high):
            span = f"from {low} to {high}" if high is not None else f">= {low}"
            raise self.error(f"expected a whole number {span}, found {value!r}", key)
        return value

    def boolean(self, key: str, default: bool) -> bool:
        value = self.section.get(key, default)
        if not isinstance(value, bool):
            raise self.error(f"expected true or false, found {type_name(value)}", key)
        return value

    def duration(self, key: str, default: float) -> float:
        value = self.section.get(key, default)
        seconds = parse_duration(value)
        if seconds is None:
            raise self.error(f"expected a duration such as 60s or 2m, found {value!r}", key)
        return seconds
