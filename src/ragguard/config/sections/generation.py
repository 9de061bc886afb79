"""Generation settings from ragguard.yml: ``faithfulness:``, ``answer_relevance:``,
``abstention:`` and ``judge:``. Every problem names the file, the line and the key.

```yaml
faithfulness: {method: lexical, strictness: lenient}  # lenient | balanced | strict; or
                                                     # threshold: 0.2; or method: judge
answer_relevance: {method: lexical}                  # or judge
abstention: {method: lexical, auto: true}            # or judge; auto: false, only when listed
judge:
  base_url: https://api.openai.com/v1                # any OpenAI-compatible server
  model: gpt-4o-mini
  api_key_env: OPENAI_API_KEY                        # the variable's name, never the key
  concurrency: 8
```

The types read here (:class:`GenerationSettings`, :class:`JudgeSettings`) are the metrics'
(:mod:`ragguard.metrics.settings`), so that scoring and the judge take them without
importing the config.

A key whose line its mapping does not know (``faithfulness: judgee``, a missing
``base_url``) is reported on the line of its section's key (the reader's ``outer``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

from ragguard.config.reader import Reader
from ragguard.core.errors import InputError, Where
from ragguard.core.sources import is_finite_number, type_name
from ragguard.core.yaml_lines import LineDict
from ragguard.metrics.faithfulness import DEFAULT_THRESHOLD, STRICTNESS_LEVELS
from ragguard.metrics.faithfulness_model import shipped_model
from ragguard.metrics.settings import (
    DEFAULT_CACHE,
    GenerationSettings,
    JudgePrice,
    JudgeSettings,
)

if TYPE_CHECKING:
    from ragguard.config.model import Config

METHODS = ("lexical", "judge")

FAITHFULNESS_KEYS = ("method", "threshold", "strictness")
METHOD_KEYS = ("method",)
ABSTENTION_KEYS = ("method", "auto")
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
    "price",
)
PRICE_KEYS = ("input", "output")


def generation_settings_of(config: Config) -> GenerationSettings:
    """The generation settings of a loaded ragguard.yml
    (:attr:`Config.generation <ragguard.config.model.Config.generation>`), typed from the
    sections :func:`~ragguard.config.load.load_config` already parsed (the file is not read
    again)."""
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
    outer = data.where(source) if isinstance(data, LineDict) else Where(source)
    reader = Reader(source, outer=outer)
    faith = _section(reader, data, "faithfulness", FAITHFULNESS_KEYS)
    relevance = _section(reader, data, "answer_relevance", METHOD_KEYS)
    abstention = _section(reader, data, "abstention", ABSTENTION_KEYS)
    methods = {
        "faithfulness": _method(reader, faith, "faithfulness"),
        "answer_relevance": _method(reader, relevance, "answer_relevance"),
        "abstention": _method(reader, abstention, "abstention"),
    }
    if judge_override:
        methods = dict.fromkeys(methods, "judge")
    judge = _judge(reader, data.get("judge"), Path(source).parent)
    if judge is None and "judge" in methods.values():
        needs = next(name for name, method in methods.items() if method == "judge")
        raise reader.error(
            f"{needs} uses the judge, but there is no judge: section; add "
            "judge: {base_url: ..., model: ..., api_key_env: ...}",
            "judge",
        )
    return GenerationSettings(
        faithfulness_method=methods["faithfulness"],
        threshold=_threshold(reader, faith),
        relevance_method=methods["answer_relevance"],
        abstention_method=methods["abstention"],
        judge=judge,
        abstention_auto=reader.boolean(abstention, "auto", "abstention", True),
    )


def _section(
    reader: Reader, data: Mapping[str, Any], name: str, allowed: tuple[str, ...]
) -> Mapping[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if isinstance(value, str):
        return {"method": value}
    if not isinstance(value, Mapping):
        raise reader.error(f"expected a mapping or a method name, found {type_name(value)}", name)
    reader.known_keys(value, allowed, name)
    return value


def _method(reader: Reader, section: Mapping[str, Any], name: str) -> str:
    method = section.get("method", "lexical")
    if method not in METHODS:
        raise reader.error(
            f"method must be lexical or judge, found {method!r}",
            f"{name}.method",
            section,
            "method",
        )
    return str(method)


def _threshold(reader: Reader, section: Mapping[str, Any]) -> float:
    """The score a claim needs: ``threshold`` as given, else the ``strictness`` level's."""
    if "strictness" in section:
        if "threshold" in section:
            raise reader.error(
                "set strictness or threshold, not both (threshold is the score a claim "
                "needs; strictness picks a measured one): remove one",
                "faithfulness.threshold",
                section,
                "threshold",
            )
        return _strictness(reader, section)
    value = section.get("threshold", DEFAULT_THRESHOLD)
    if not is_finite_number(value) or not 0 < value <= 1:
        raise reader.error(
            f"threshold must be a number in (0, 1], found {value!r}",
            "faithfulness.threshold",
            section,
            "threshold",
        )
    return float(value)


def _strictness(reader: Reader, section: Mapping[str, Any]) -> float:
    value = section["strictness"]
    if not isinstance(value, str) or value not in STRICTNESS_LEVELS:
        raise reader.error(
            f"strictness must be one of {', '.join(STRICTNESS_LEVELS)}, found {value!r}",
            "faithfulness.strictness",
            section,
            "strictness",
        )
    return shipped_model().threshold(value)


def _judge(reader: Reader, value: Any, root: Path) -> JudgeSettings | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise reader.error(f"expected a mapping, found {type_name(value)}", "judge")
    reader.known_keys(value, JUDGE_KEYS, "judge")
    base_url = reader.text(value, "base_url", "judge", required=True)
    parsed = urlparse(base_url or "")
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise reader.error(
            f"expected an http(s) URL, found {base_url!r}", "judge.base_url", value, "base_url"
        )
    cache = value.get("cache", DEFAULT_CACHE)
    if cache is not False and (not isinstance(cache, str) or not cache.strip()):
        raise reader.error(
            "expected a folder path, or false to turn the cache off", "judge.cache", value, "cache"
        )
    return JudgeSettings(
        base_url=base_url or "",
        model=reader.text(value, "model", "judge", required=True) or "",
        api_key_env=reader.text(value, "api_key_env", "judge"),
        api_version=reader.text(value, "api_version", "judge"),
        temperature=reader.number(value, "temperature", "judge", 0.0, low=0.0, high=2.0),
        seed=reader.integer(value, "seed", "judge", 0, low=0, optional=True),
        max_tokens=reader.integer(value, "max_tokens", "judge", 1024, low=16) or 1024,
        json_mode=reader.boolean(value, "json_mode", "judge", True),
        concurrency=reader.integer(value, "concurrency", "judge", 4, low=1, high=256) or 4,
        timeout=reader.duration(value, "timeout", "judge", 60.0, "60s or 2m"),
        max_retries=reader.integer(value, "max_retries", "judge", 5, low=0, high=20) or 0,
        max_calls=reader.integer(value, "max_calls", "judge", None, low=0, optional=True),
        cache_dir=None if cache is False else root / str(cache),
        price=_price(reader, value),
        source=reader.source,
        api_key_line=reader.line(value, "api_key_env", "judge.api_key_env"),
    )


def _price(reader: Reader, judge: Mapping[str, Any]) -> JudgePrice | None:
    """``judge.price``: what a million tokens in (``input``) and out (``output``) cost, both
    required, each a non-negative number."""
    value = judge.get("price")
    if value is None:
        return None
    section = reader.mapping(value, "judge.price", judge, "price")
    reader.known_keys(section, PRICE_KEYS, "judge.price")
    prices = []
    for key in PRICE_KEYS:
        number = section.get(key)
        if not is_finite_number(number) or number < 0:
            found = "nothing" if key not in section else repr(number)
            raise reader.error(
                f"expected a non-negative number (the price of a million {key} tokens, "
                f"e.g. {{input: 0.15, output: 0.60}}), found {found}",
                f"judge.price.{key}",
                section if key in section else judge,
                key if key in section else "price",
            )
        prices.append(float(number))
    return JudgePrice(*prices)
