"""#31: a stored baseline cut short or damaged (on the data branch, in an artifact) is a
one-line error naming where it is stored and what to do, never a traceback; the head's
results are on disk before it is fetched."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest
from fake_github import FakeGitHub, Repo
from test_ci_glue import (
    SUITE,
    collaborators,
    open_pull,
    pull_event,
    save_main_baseline,
    settings_for,
)

from ragguard.ci.glue import run_ci
from ragguard.compare.baseline import STORE_AGAIN
from ragguard.core.errors import InputError
from ragguard.github.artifactstore import artifact_name


def _refused(fake: FakeGitHub, repo: Repo, suite: Path, number: int, **kw: object) -> InputError:
    settings = settings_for(fake, suite, "pull_request", pull_event(repo, number), **kw)
    with pytest.raises(InputError) as raised:
        run_ci(settings, collaborators(settings, []))
    assert (suite / "ragguard-results" / "results.json").is_file()  # written before the fetch
    assert STORE_AGAIN in str(raised.value) and "\n" not in str(raised.value)
    return raised.value


@pytest.mark.parametrize(
    ("damage", "fragment"),
    [
        (lambda data: data[: len(data) // 2], "stored baseline is not JSON"),
        (lambda data: b"\xff" + data[1:], "not UTF-8 (byte 0xff)"),
        (lambda data: data.replace(b'"saved_at"', b'"saved"', 1), "saved_at: missing"),
        (lambda data: data.replace(b'"testset"', b'"tests"', 1), ": testset: missing"),
    ],
    ids=["cut-in-half", "not-utf8", "no-provenance", "results-incomplete"],
)
def test_a_damaged_baseline_on_the_data_branch_is_named_with_its_branch_and_path(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, damage, fragment: str
) -> None:
    save_main_baseline(fake, fake_repo, suite)
    base = fake_repo.refs["heads/main"]
    path = f"main/{SUITE}/{base}.json"  # the merge base's, which a pull request prefers
    stored = fake.file_at(fake_repo, "ragguard-data", path)
    assert stored is not None
    fake.commit(fake_repo, "ragguard-data", {path: damage(stored)})
    number = open_pull(fake, fake_repo)
    error = _refused(fake, fake_repo, suite, number)
    assert str(error).startswith(f"ragguard-data:{path}")
    assert fragment in str(error)


def _zipped(member: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, data)
    return buffer.getvalue()


@pytest.mark.parametrize(
    ("artifact", "fragment"),
    [
        (
            lambda data: _zipped("results.json", data[: len(data) // 2]),
            "stored baseline is not JSON",
        ),
        (lambda data: _zipped("results.json", b"\xff" + data[1:]), "not UTF-8 (byte 0xff)"),
        (lambda data: _zipped("results.json", data)[:-30], "not a readable zip"),
        (lambda data: _zipped("other.json", data), "no results.json in the artifact"),
    ],
    ids=["results-cut-in-half", "results-not-utf8", "zip-cut-short", "no-results-member"],
)
def test_a_damaged_baseline_artifact_is_named_with_the_artifact(
    fake: FakeGitHub, fake_repo: Repo, suite: Path, artifact, fragment: str
) -> None:
    save_main_baseline(fake, fake_repo, suite)  # its results.json is the artifact's
    results = (suite / "ragguard-results" / "results.json").read_bytes()
    made = fake.add_artifact(
        fake_repo, fake.add_run(fake_repo), artifact_name(SUITE), artifact(results)
    )
    number = open_pull(fake, fake_repo)
    error = _refused(fake, fake_repo, suite, number, baseline_store="artifact")
    assert str(error).startswith(f"artifact {artifact_name(SUITE)} ({made.id})")
    assert fragment in str(error)
