"""The search behind lexical faithfulness: which piece of context shares the most with a
statement.

The pieces (the context's sentences, its clauses) are numbered; :class:`Postings` maps a stem
to the positions of the pieces holding it and, on first use, to the same positions as the bits
of one integer. An evidence window is a run of up to three sentences: the positions from which
a run holds a stem are the stem's bits or-ed with themselves shifted (:func:`spread`), and
:func:`heaviest_run` searches the runs as it searches single pieces. :func:`heaviest` splits the positions by the statement's stems, the
heaviest first: the pieces holding a stem go one way, the others the other, and a group that
can no longer reach the best total found so far is dropped. Pieces that hold the same stems
of the statement stay together in one integer however many there are, so a long context that
repeats its passages costs little more than one that does not, and a stem that every
remaining piece holds adds its weight without a split. The bit operations run in C; the
Python loop runs once per group, not once per piece.

The totals of the groups left are then summed again in the statement's own order of stems,
so the scores are the same floats, bit for bit, as adding each piece's weights one by one.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

Key = TypeVar("Key", bound=Hashable)

# Totals summed in another order differ by a few units in the last place; a group within this
# share of the best total is summed again exactly before the best is chosen.
_SLACK = 1e-9
# bits_of writes one byte per position, not per eight, for sets over 1/_DENSE of the positions:
# setting a byte costs about a quarter of or-ing a bit into one (measured, CPython 3.11).
_DENSE = 40


class Postings(dict[Key, tuple[int, ...]]):
    """Key (a stem) -> positions of the pieces holding it, in order (a dict: its lookups run
    in C); and, on first use, the same positions as the bits of an int."""

    def __init__(self, positions: dict[Key, tuple[int, ...]], size: int) -> None:
        super().__init__(positions)
        self._size = size
        self._bits: dict[Key, int] = {}
        self._runs: dict[tuple[Key, int], int] = {}

    @property
    def size(self) -> int:
        """How many pieces are numbered (positions run from 0 to size - 1)."""
        return self._size

    def bits(self, key: Key) -> int:
        """The positions holding ``key`` as the set bits of an int (0 when none)."""
        found = self._bits.get(key)
        if found is None:
            found = self._bits[key] = bits_of(self.get(key, ()), self._size)
        return found

    def runs(self, key: Key, length: int) -> int:
        """The positions from which a run of ``length`` consecutive positions holds ``key``,
        as the set bits of an int."""
        found = self._runs.get((key, length))
        if found is None:
            found = self._runs[key, length] = spread(self.bits(key), length)
        return found


def postings(sets: Sequence[frozenset[Key]]) -> Postings[Key]:
    """Key -> positions of the sets holding it: a statement is compared with the pieces of
    context that share a word with it, not with every piece (long contexts stay fast)."""
    found: dict[Key, list[int]] = {}
    for index, keys in enumerate(sets):
        for key in keys:
            found.setdefault(key, []).append(index)
    return Postings({key: tuple(indexes) for key, indexes in found.items()}, len(sets))


def merged_postings(
    parts: Sequence[tuple[int, Mapping[Key, Sequence[int]]]], size: int
) -> Postings[Key]:
    """The postings of consecutive runs of sets, each run's own postings given with the
    position of its first set (in order): equal to :func:`postings` of all the sets."""
    numbers = list(range(size))  # one int per position, shared by every key's list
    found: dict[Key, list[int]] = {}
    for start, holding in parts:
        for key, positions in holding.items():
            found.setdefault(key, []).extend(
                map(numbers.__getitem__, map(start.__add__, positions))
            )
    return Postings({key: tuple(indexes) for key, indexes in found.items()}, size)


def bits_of(positions: Collection[int], size: int) -> int:
    """Positions (each below ``size``) as the set bits of an int. Many positions are written
    as the digits of a binary number (one byte each, parsed in C); a few as the bits of bytes,
    whose zeroed buffer is eight times smaller."""
    if len(positions) * _DENSE > size:
        digits = bytearray(b"0") * (size + 1)  # the extra leading "0" keeps size 0 parsable
        for position in positions:
            digits[size - position] = 49  # "1"; the lowest position is the last digit
        return int(digits, 2)
    packed = bytearray((size + 7) // 8)
    for position in positions:
        packed[position >> 3] |= 1 << (position & 7)
    return int.from_bytes(packed, "little")


def bits_of_ranges(ranges: Iterable[tuple[int, int]], size: int) -> int:
    """The positions of (start, stop) ranges (each within ``size``) as the set bits of an
    int: written as the digits of a binary number, a range at a time."""
    digits = bytearray(b"0") * (size + 1)
    for start, stop in ranges:
        digits[size - stop + 1 : size - start + 1] = b"1" * (stop - start)
    return int(digits, 2)


def spread(bits: int, length: int) -> int:
    """The positions from which a run of ``length`` consecutive positions holds a set bit
    of ``bits``."""
    found = bits
    for shift in range(1, length):
        found |= bits >> shift
    return found


def lowest(positions: int) -> int:
    """The first position of a non-empty set of bits."""
    return (positions & -positions).bit_length() - 1


def heaviest(masks: Sequence[int], weights: Sequence[float], among: int) -> list[tuple[int, int]]:
    """The groups of positions of ``among`` that hold the heaviest share of the items.

    Item ``i`` weighs ``weights[i]`` and is held by the positions set in ``masks[i]``; a
    position's total is the weight of the items it holds. Returned: (items held as bits,
    positions holding exactly those items among ``among``) for every group whose total may be
    the best (within a rounding slack: the caller sums the candidates again in its own order).
    Positions holding no item are never returned; no group when none holds any.
    """
    order = sorted(
        (item for item, mask in enumerate(masks) if mask & among), key=lambda i: -weights[i]
    )
    remaining = [0.0] * (len(order) + 1)
    for depth in range(len(order) - 1, -1, -1):
        remaining[depth] = remaining[depth + 1] + weights[order[depth]]
    slack = _SLACK * remaining[0]
    best = 0.0
    groups: list[tuple[float, int, int]] = []
    leaf = len(order)
    stack = [(0, among, 0.0, 0)]
    while stack:
        depth, positions, total, held = stack.pop()
        if total + remaining[depth] < best - slack:
            continue
        if depth == leaf:
            if held:
                groups.append((total, held, positions))
            continue
        item = order[depth]
        holding = positions & masks[item]
        lacking = positions ^ holding
        if lacking:
            stack.append((depth + 1, lacking, total, held))
        if holding:
            with_item = total + weights[item]
            best = max(best, with_item)
            stack.append((depth + 1, holding, with_item, held | 1 << item))
    return [(held, positions) for total, held, positions in groups if total >= best - slack]


def heaviest_run(
    wanted: Sequence[str],
    weights: Mapping[str, float],
    postings: Postings[str],
    among: int,
    longest: int,
) -> tuple[int, int, float]:
    """(start, length, weight) of the run of 1 to ``longest`` consecutive positions, starting
    at a position of ``among`` (the set bits of an int), that holds the heaviest share of
    ``wanted``; ties go to the first start, then to the shortest run. (-1, 0, 0.0) when no
    such run holds any.

    A run holds what its positions hold, so the longest run from a start holds the most:
    the heaviest start is searched with the runs of ``longest``, and the shortest run from it
    that weighs as much is then found. A run's weight is the sum of the weights of the
    ``wanted`` stems it holds, added in the order of ``wanted``."""
    runs = [postings.runs(stemmed, longest) for stemmed in wanted]
    start, top = _first_heaviest(wanted, weights, runs, among)
    if start < 0:
        return -1, 0, 0.0
    for length in range(1, longest):
        run = (1 << length) - 1
        total = sum(weights[s] for s in wanted if postings.bits(s) >> start & run)
        if total == top:
            return start, length, top
    return start, longest, top


def _first_heaviest(
    wanted: Sequence[str], weights: Mapping[str, float], masks: Sequence[int], among: int
) -> tuple[int, float]:
    """(position, weight) of the position of ``among`` whose items (``masks[i]``: the
    positions holding ``wanted[i]``) weigh the most, summed in the order of ``wanted``; ties
    go to the first. (-1, 0.0) when no position of ``among`` holds any."""
    best, top = -1, 0.0
    for held, positions in heaviest(masks, [weights[s] for s in wanted], among):
        total = sum(weights[stemmed] for item, stemmed in enumerate(wanted) if held >> item & 1)
        index = lowest(positions)
        if total > top or (total == top and index < best):
            best, top = index, total
    return best, top
