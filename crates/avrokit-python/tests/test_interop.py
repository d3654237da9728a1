"""Every file of the interop corpus reads back as fastavro reads it (values and Python types),
and as the corpus's expected Avro JSON says; every malformed file raises AvroError."""

import json
import math

import fastavro
import pytest

import avrokit
from conftest import INTEROP, MALFORMED, RESOLUTION, same

FILES = sorted(INTEROP.rglob("*.avro"))
BAD = sorted(MALFORMED.glob("*.avro"))
CASES = sorted(p for p in RESOLUTION.iterdir() if (p / "input.avro").exists())


def ids(paths):
    return [str(p.relative_to(p.parents[1])) for p in paths]


def test_the_corpus_is_there():
    assert len(FILES) > 100, f"interop corpus missing under {INTEROP}"
    assert len(BAD) > 10


def fastavro_records(path):
    with open(path, "rb") as fo:
        return list(fastavro.reader(fo))


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_reads_as_fastavro_does(path):
    try:
        expected = fastavro_records(path)
    except Exception as e:  # fastavro cannot read it: the expected-JSON test covers it
        pytest.skip(f"fastavro cannot read this file: {type(e).__name__}: {e}")
    with open(path, "rb") as fo:
        got = list(avrokit.reader(fo))
    same(got, expected)
    # Every input kind gives the same records.
    same(list(avrokit.reader(str(path))), expected)
    same(list(avrokit.reader(path.read_bytes())), expected)


PRIMITIVE_BRANCHES = {"int", "long", "float", "double", "string", "bytes", "boolean"}


def normalize(v):
    """Expected-JSON values compare as numbers: 1 and 1.0 alike, NaN equal to NaN, floats to
    float precision. A union's primitive branch name is dropped: Python values cannot tell an
    int from a long, or a float from a double (the fastavro test checks those values)."""
    if isinstance(v, dict) and len(v) == 1 and next(iter(v)) in PRIMITIVE_BRANCHES:
        return normalize(next(iter(v.values())))
    if isinstance(v, dict):
        return {k: normalize(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normalize(x) for x in v]
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        if isinstance(v, float) and math.isnan(v):
            return "NaN"
        return float(f"{float(v):.6g}")
    return v


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_reads_as_the_expected_json_says(path):
    expected_path = path.with_suffix(".jsonl")
    if not expected_path.exists():
        pytest.skip("no expected JSON")
    expected = [json.loads(line) for line in expected_path.read_text().splitlines() if line.strip()]
    # Named branches come back as (name, value), so that encoding them again is unambiguous
    # (a dict alone could be a record or a map).
    r = avrokit.reader(str(path), return_named_type=True)
    schema = r.writer_schema
    got = [json.loads(avrokit._avrokit.json_encode(avrokit._compiled(schema), rec)) for rec in r]
    assert len(got) == len(expected)
    for i, (g, e) in enumerate(zip(got, expected)):
        assert normalize(g) == normalize(e), f"record {i}"


@pytest.mark.parametrize("path", BAD, ids=ids(BAD))
def test_malformed_files_raise_avro_error(path):
    with pytest.raises(avrokit.AvroError) as err:
        with open(path, "rb") as fo:
            for _ in avrokit.reader(fo):
                pass
    assert isinstance(err.value, ValueError)
    assert str(err.value)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_resolution_matches_the_expected_json(case):
    reader_schema = json.loads((case / "reader.avsc").read_text())
    if (case / "expected.error").exists():
        with pytest.raises(avrokit.AvroError):
            list(avrokit.reader(str(case / "input.avro"), reader_schema))
        return
    expected = [json.loads(l) for l in (case / "expected.jsonl").read_text().splitlines() if l.strip()]
    compiled = avrokit._compiled(reader_schema)
    got = [json.loads(avrokit._avrokit.json_encode(compiled, rec))
           for rec in avrokit.reader(str(case / "input.avro"), reader_schema, return_named_type=True)]
    assert [normalize(g) for g in got] == [normalize(e) for e in expected]


@pytest.mark.parametrize("path", FILES[::7], ids=ids(FILES[::7]))
def test_block_reader_gives_the_files_blocks(path):
    meta_path = path.with_suffix("").with_suffix(".meta.json")
    if not meta_path.exists():
        pytest.skip("no metadata")
    meta = json.loads(meta_path.read_text())
    blocks = list(avrokit.block_reader(str(path)))
    counts = [b.num_records for b in blocks]
    if "block_counts" in meta:
        assert counts == meta["block_counts"]
    offsets = [b.offset for b in blocks]
    assert offsets == sorted(offsets)
    same([r for b in blocks for r in b], list(avrokit.reader(str(path))))
