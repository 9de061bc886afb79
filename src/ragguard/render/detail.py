"""How much of a comparison a markdown report shows, and the levels of detail dropped in turn
to fit a size limit (the comment's 65,536 characters, the job summary's 1 MiB)."""

from __future__ import annotations

from dataclasses import dataclass

# What the comment shows before folding the rest away (docs/compare.md, "The comment").
FAILING_SHOWN = 5
FIXED_SHOWN = 5
DRIFT_SHOWN = 10
TAGS_SHOWN = 8
TAG_COLUMNS = 4
DRAFTS_SHOWN = 10  # drafted questions listed in the comment (the job summary: 100)
CELL_WRAP = 24  # characters of an unbroken run in a table cell before a break is allowed


@dataclass(frozen=True, slots=True)
class Detail:
    """How much of the comparison a markdown report shows.

    ``compact`` is the comment's form: only what moved, the first few failing questions with
    the rest folded and repeated whys grouped. The other fields are the levels dropped, in
    CUT_ORDER, to fit a size limit.
    """

    compact: bool = True
    all_questions: bool = False
    fixed_list: bool = True
    drift_list: bool = True
    max_tags: int | None = TAGS_SHOWN
    max_quotes: int | None = 3
    failing_shown: int = FAILING_SHOWN
    max_failing_with_why: int | None = None
    max_failing_listed: int | None = None
    drafts_shown: int = DRAFTS_SHOWN


FULL = Detail(compact=False, all_questions=True, max_tags=None, max_quotes=None, drafts_shown=100)
CUT_ORDER = (
    Detail(),
    Detail(fixed_list=False, drift_list=False),
    Detail(fixed_list=False, drift_list=False, max_tags=5, max_failing_with_why=200),
    Detail(
        fixed_list=False,
        drift_list=False,
        max_tags=5,
        max_failing_with_why=25,
        max_failing_listed=200,
    ),
    Detail(
        fixed_list=False,
        drift_list=False,
        max_tags=0,
        max_failing_with_why=0,
        max_failing_listed=50,
        drafts_shown=0,
    ),
)
SUMMARY_CUT_ORDER = (
    Detail(compact=False, all_questions=False, max_tags=None),
    *CUT_ORDER,
)
