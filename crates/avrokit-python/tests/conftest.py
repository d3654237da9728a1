"""Shared helpers: where the corpus is, and value comparison that also compares types."""

import math
import pathlib

import pytest

DATA = pathlib.Path(__file__).resolve().parents[2] / "avrokit" / "tests" / "data"
INTEROP = DATA / "interop" / "data"
MALFORMED = DATA / "interop" / "malformed"
RESOLUTION = DATA / "resolution" / "cases"


def same(a, b, path="$"):
    """Asserts that `a` and `b` are equal values of the same Python types, all the way down."""
    assert type(a) is type(b), f"{path}: {type(a).__name__} != {type(b).__name__} ({a!r} vs {b!r})"
    if isinstance(a, dict):
        assert list(a.keys()) == list(b.keys()), f"{path}: keys {list(a)} != {list(b)}"
        for k in a:
            same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b), f"{path}: length {len(a)} != {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and math.isnan(a):
        assert math.isnan(b), f"{path}: {a!r} != {b!r}"
    else:
        assert a == b, f"{path}: {a!r} != {b!r}"
        if hasattr(a, "tzinfo"):
            assert a.tzinfo == b.tzinfo, f"{path}: tzinfo {a.tzinfo!r} != {b.tzinfo!r}"


@pytest.fixture
def corpus_files():
    return sorted(INTEROP.rglob("*.avro"))
