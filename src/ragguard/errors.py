"""The public name of ragguard's input error (docs/api.md): ``ragguard.errors.InputError``.

It is defined in :mod:`ragguard.core.errors`; this module keeps the documented import path.
"""

from ragguard.core.errors import InputError

__all__ = ["InputError"]
