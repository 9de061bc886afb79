"""The one reader of ragguard.yml: every parse of its text happens here.

* :func:`load_config`: a suite's whole file, validated and typed as a
  :class:`~ragguard.config.model.Config` (``run``, ``compare``, ``power``, ``baseline``,
  ``ragguard ci``, the Python API);
* :func:`load_generation_config`: a file read for its generation sections alone, not
  validated as a whole suite (``score``, ``calibrate``, ``api.score``);
* :class:`ConfigFile`: a file parsed at most once however many times it is asked for
  (``ragguard ci`` masks the judge's key before it knows whether it will evaluate);
* :func:`target_document`: the target branch's copy, given as bytes (the trusted gate);
* :func:`local_config`: ``./ragguard.yml`` when there is one (``compare``, ``power``,
  ``api.compare``).

Every problem is an :class:`InputError` naming the file, the key and its line. Paths are
relative to the folder holding ragguard.yml (the repository root, usually).

Every command imports this module at start-up (for :data:`DEFAULT_CONFIG_NAME`), so the
YAML parser and the section readers are imported when a file is read, not before.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragguard.core.errors import InputError

if TYPE_CHECKING:
    from ragguard.config.model import Config
    from ragguard.config.reader import Reader
    from ragguard.config.sections.gate import GateRules
    from ragguard.core.yaml_lines import LineDict

DEFAULT_CONFIG_NAME = "ragguard.yml"

OWN_KEYS = ("suite", "testset", "corpus", "system", "metrics", "evidence")
SECTION_KEYS = (
    "gate",
    "faithfulness",
    "judge",
    "answer_relevance",
    "abstention",
    "baseline",
    "comment",
)
TOP_LEVEL_KEYS = OWN_KEYS + SECTION_KEYS
# sections whose value must be a mapping; the generation ones may also be a method name
MAPPING_SECTIONS = ("gate", "judge", "baseline", "comment")
METHOD_SECTIONS = ("faithfulness", "answer_relevance", "abstention")
NOT_FOUND = "config file not found; create one with `ragguard init` or pass -c PATH"


class ConfigFile:
    """A ragguard.yml that is parsed at most once: the first :meth:`document` reads it, and
    every later one gets the same value, or the same error, without reading it again."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._parsed: tuple[Any, InputError | None] | None = None

    def document(self) -> Any:
        """The file's YAML, parsed with line numbers; InputError if it cannot be read."""
        if self._parsed is None:
            self._parsed = _parse(self.path)
        document, problem = self._parsed
        if problem is not None:
            raise problem
        return document


def _parse(path: Path) -> tuple[Any, InputError | None]:
    """The parsed file, or the error reading it gave (kept to be raised where it is used)."""
    if not path.exists():
        return None, InputError(path, NOT_FOUND)
    try:
        return _read(path), None
    except InputError as exc:
        return None, exc


def _read(path: str | Path) -> Any:
    """The file's YAML, parsed with line numbers."""
    from ragguard.core.sources import read_text
    from ragguard.core.yaml_lines import parse_yaml

    return parse_yaml(read_text(path, what="config file"), path)


def load_config(path: str | Path | ConfigFile) -> Config:
    """Read and validate a ragguard.yml (or a :class:`ConfigFile` already read)."""
    file = path if isinstance(path, ConfigFile) else ConfigFile(Path(path))
    return config_from_mapping(file.document(), file.path)


def config_from_mapping(data: Any, path: Path) -> Config:
    """The :class:`Config` of a parsed ragguard.yml (``data``), read from ``path``."""
    from ragguard.config.model import Config, check_repeatable
    from ragguard.config.reader import Reader, top_key
    from ragguard.config.sections.suite import (
        corpus_paths,
        existing_path,
        metric_specs,
        min_coverage_of,
        suite_name,
    )
    from ragguard.config.sections.system import system_config
    from ragguard.core.sources import type_name
    from ragguard.core.yaml_lines import LineDict

    if not isinstance(data, LineDict):
        raise InputError(path, f"expected a mapping of settings, found {type_name(data)}", line=1)
    reader = Reader(path, allowed="allowed keys")
    for key in data:
        if key not in TOP_LEVEL_KEYS:
            message = reader.unknown(key, TOP_LEVEL_KEYS)
            raise reader.error(message, str(key), data, top_key(str(key)))
    root = path.resolve().parent
    if "system" not in data:
        raise reader.error(
            "missing; say how to run your system, e.g. `system: {python: app.rag:answer}`",
            "system",
            data,
            "system",
        )
    corpus, documents = corpus_paths(reader, data, root)
    config = Config(
        path=path,
        root=root,
        suite=suite_name(reader, data, root),
        testset=existing_path(reader, data, "testset", root, required=True),  # type: ignore[arg-type]
        corpus=corpus,
        system=system_config(reader, data, root),
        metrics=metric_specs(reader, data),
        sections=_sections(reader, data),
        min_coverage=min_coverage_of(data, path),
        documents=documents,
    )
    return check_repeatable(config)


def _sections(reader: Reader, data: LineDict) -> LineDict:
    """The sections as parsed, once each has the shape its section reads (errors need the
    line of the section's key, which only the top-level mapping knows, so it is kept)."""
    from ragguard.core.sources import type_name
    from ragguard.core.yaml_lines import LineDict

    for key in (*MAPPING_SECTIONS, *METHOD_SECTIONS):
        value = data.get(key)
        if value is None or isinstance(value, LineDict):
            continue
        if key in METHOD_SECTIONS and isinstance(value, str):
            continue
        expected = "a mapping or a method name" if key in METHOD_SECTIONS else "a mapping"
        raise reader.error(f"expected {expected}, found {type_name(value)}", key, data, key)
    sections = LineDict({key: data[key] for key in SECTION_KEYS if key in data})
    sections.line = data.line
    sections.key_lines = {key: line for key, line in data.key_lines.items() if key in sections}
    return sections


def load_generation_config(path: str | Path | None) -> tuple[Any, str]:
    """The parsed ragguard.yml (line numbers kept) and its path, or (None, "ragguard.yml").

    For the commands whose ``--config`` need only hold generation sections (``score``,
    ``calibrate``), so it is not validated as a whole suite by :func:`load_config`; type
    them with :func:`~ragguard.config.sections.generation.generation_settings`.
    """
    if path is None:
        return None, DEFAULT_CONFIG_NAME
    return _read(path), str(path)


def target_document(content: bytes, where: str) -> LineDict:
    """The target branch's ragguard.yml (``content``) parsed; ``where`` names it in errors.

    Only its sections are read (the trusted gate's ``gate:``, ``baseline:`` and
    ``comment:``), typed by the same section readers as the local file's.
    """
    from ragguard.core.yaml_lines import LineDict, parse_yaml

    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(where, "is not UTF-8 text; fix the target branch's copy") from None
    data = parse_yaml(text, where)
    if data is None:
        return LineDict()
    if not isinstance(data, LineDict):
        raise InputError(where, "expected a mapping at the top; fix the target branch's copy")
    return data


def local_config() -> Path | None:
    """``./ragguard.yml`` when there is one: the gate rules ``run`` and CI use, so that
    ``compare``, ``power`` and ``api.compare`` give the same verdicts without ``-c``."""
    path = Path(DEFAULT_CONFIG_NAME)
    return path if path.is_file() else None


def load_gate_rules(config_path: str | Path | None) -> GateRules:
    """The gate rules of a ragguard.yml (through :func:`load_config`), or the defaults."""
    from ragguard.config.sections.gate import default_gate_rules

    if config_path is None:
        return default_gate_rules()
    return load_config(config_path).gate
