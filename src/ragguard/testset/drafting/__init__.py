"""Drafting questions from a corpus (``ragguard testset draft``, docs/testset-drafting.md):
the pure parts. What a draft is (:mod:`.model`), the corpus read as text (:mod:`.sources`,
:mod:`.html_text`), passages sampled across documents (:mod:`.passages`), the judge's prompts
and replies (:mod:`.prompts`, :mod:`.replies`), the checks a draft must pass (:mod:`.checks`),
offline extractive drafts (:mod:`.offline`) and the YAML written (:mod:`.writing`)."""
