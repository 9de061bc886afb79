"""Drafting questions from a corpus (``ragguard testset draft``, docs/testset-drafting.md):
the pure parts. What a draft is (:mod:`.model`), the documents chosen by ``--docs``
(:mod:`.sources`, read by :mod:`ragguard.testset.documents` as every command reads them), passages sampled across documents (:mod:`.passages`), the judge's prompts
and replies (:mod:`.prompts`, :mod:`.replies`), the checks a draft must pass (:mod:`.checks`),
offline extractive drafts (:mod:`.offline`) and the YAML written (:mod:`.writing`)."""
