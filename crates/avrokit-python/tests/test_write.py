"""fastavro reads back everything avrokit writes (every codec, every type), avrokit reads what
fastavro writes, and the union branch guessing picks fastavro's branch."""

import datetime
import decimal
import io
import random
import uuid

import fastavro
import pytest

import avrokit
from conftest import same

UTC = datetime.timezone.utc

ALL_TYPES = {
    "type": "record", "name": "All", "namespace": "t",
    "fields": [
        {"name": "n", "type": "null"},
        {"name": "b", "type": "boolean"},
        {"name": "i", "type": "int"},
        {"name": "l", "type": "long"},
        {"name": "f", "type": "float"},
        {"name": "d", "type": "double"},
        {"name": "by", "type": "bytes"},
        {"name": "s", "type": "string"},
        {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
        {"name": "e", "type": {"type": "enum", "name": "Suit", "symbols": ["S", "H", "D", "C"]}},
        {"name": "a", "type": {"type": "array", "items": "long"}},
        {"name": "m", "type": {"type": "map", "values": ["null", "string"]}},
        {"name": "u", "type": ["null", "int", "string", "t.F4"]},
        {"name": "rec", "type": {"type": "record", "name": "Inner", "fields": [
            {"name": "x", "type": "int"}, {"name": "next", "type": ["null", "Inner"]}]}},
        {"name": "date", "type": {"type": "int", "logicalType": "date"}},
        {"name": "tms", "type": {"type": "int", "logicalType": "time-millis"}},
        {"name": "tus", "type": {"type": "long", "logicalType": "time-micros"}},
        {"name": "tsm", "type": {"type": "long", "logicalType": "timestamp-millis"}},
        {"name": "tsu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
        {"name": "ltsm", "type": {"type": "long", "logicalType": "local-timestamp-millis"}},
        {"name": "ltsu", "type": {"type": "long", "logicalType": "local-timestamp-micros"}},
        {"name": "decb", "type": {"type": "bytes", "logicalType": "decimal", "precision": 12, "scale": 3}},
        {"name": "decf", "type": {"type": "fixed", "name": "D8", "size": 8, "logicalType": "decimal",
                                  "precision": 15, "scale": 2}},
        {"name": "uid", "type": {"type": "string", "logicalType": "uuid"}},
        {"name": "withdef", "type": "string", "default": "dflt"},
    ],
}


def record(rng, i):
    f32 = float(__import__("struct").unpack("<f", __import__("struct").pack("<f", rng.uniform(-1e6, 1e6)))[0])
    return {
        "n": None,
        "b": rng.random() < 0.5,
        "i": rng.randint(-2**31, 2**31 - 1),
        "l": rng.randint(-2**63, 2**63 - 1),
        "f": f32,
        "d": rng.uniform(-1e300, 1e300),
        "by": bytes(rng.randrange(256) for _ in range(rng.randrange(20))),
        "s": "".join(rng.choice("abcé€😀") for _ in range(rng.randrange(30))),
        "fx": bytes(rng.randrange(256) for _ in range(4)),
        "e": rng.choice(["S", "H", "D", "C"]),
        "a": [rng.randint(-2**40, 2**40) for _ in range(rng.randrange(5))],
        "m": {f"k{j}": (None if j % 2 else f"v{j}") for j in range(rng.randrange(4))},
        "u": [None, rng.randint(-5, 5), "str", b"abcd"][i % 4],
        "rec": {"x": i, "next": {"x": -i, "next": None} if i % 2 else None},
        "date": datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-700000, 2900000)),
        "tms": datetime.time(rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.randrange(1000) * 1000),
        "tus": datetime.time(rng.randrange(24), rng.randrange(60), rng.randrange(60), rng.randrange(10**6)),
        "tsm": datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(milliseconds=rng.randint(-2**40, 2**40)),
        "tsu": datetime.datetime(1970, 1, 1, tzinfo=UTC) + datetime.timedelta(microseconds=rng.randint(-2**50, 2**50)),
        "ltsm": datetime.datetime(1970, 1, 1) + datetime.timedelta(milliseconds=rng.randint(-2**40, 2**40)),
        "ltsu": datetime.datetime(1970, 1, 1) + datetime.timedelta(microseconds=rng.randint(-2**50, 2**50)),
        "decb": decimal.Decimal(rng.randint(-10**12 + 1, 10**12 - 1)).scaleb(-3),
        "decf": decimal.Decimal(rng.randint(-10**15 + 1, 10**15 - 1)).scaleb(-2),
        "uid": uuid.UUID(int=rng.getrandbits(128)),
        "withdef": "x" * (i % 3),
    }


RECORDS = [record(random.Random(7), i) for i in range(300)]
CODECS = ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"]


@pytest.mark.parametrize("codec", CODECS)
def test_fastavro_reads_what_avrokit_writes(codec):
    buf = io.BytesIO()
    avrokit.writer(buf, avrokit.parse_schema(ALL_TYPES), RECORDS, codec=codec, sync_interval=2000)
    buf.seek(0)
    r = fastavro.reader(buf)
    assert r.codec == codec
    same(list(r), RECORDS)


@pytest.mark.parametrize("codec", CODECS)
def test_avrokit_reads_what_fastavro_writes(codec):
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(ALL_TYPES), RECORDS, codec=codec, sync_interval=2000)
    buf.seek(0)
    same(list(avrokit.reader(buf)), RECORDS)


def test_same_datum_bytes_as_fastavro():
    for rec in RECORDS[:50]:
        a, f = io.BytesIO(), io.BytesIO()
        avrokit.schemaless_writer(a, ALL_TYPES, rec)
        fastavro.schemaless_writer(f, fastavro.parse_schema(ALL_TYPES), rec)
        assert a.getvalue() == f.getvalue()
        same(avrokit.schemaless_reader(io.BytesIO(a.getvalue()), ALL_TYPES),
             fastavro.schemaless_reader(io.BytesIO(a.getvalue()), fastavro.parse_schema(ALL_TYPES)))


def test_missing_field_takes_its_default_and_missing_nullable_is_null():
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "a", "type": "string", "default": "zz"},
        {"name": "b", "type": ["null", "int"]},
        {"name": "c", "type": "int"}]}
    a = io.BytesIO()
    avrokit.schemaless_writer(a, schema, {"c": 3})
    assert fastavro.schemaless_reader(io.BytesIO(a.getvalue()), fastavro.parse_schema(schema)) == {"a": "zz", "b": None, "c": 3}
    with pytest.raises(avrokit.AvroError, match="no value and no default for c"):
        avrokit.schemaless_writer(io.BytesIO(), schema, {"a": "x"})


UNION_CASES = [
    (["null", "string", "int"], [None, "s", 5]),
    (["int", "long", "float", "double"], [1, 2**40, 1.5]),
    (["float", "long", "double"], [1.5, 3]),
    (["string", "bytes"], ["s", b"b"]),
    ([{"type": "record", "name": "A", "fields": [{"name": "x", "type": "int"}]},
      {"type": "record", "name": "B", "fields": [{"name": "x", "type": "int"}, {"name": "y", "type": ["null", "int"], "default": None}]}],
     [{"x": 1}, {"x": 1, "y": 2}, ("B", {"x": 3, "y": None}), ("A", {"x": 4})]),
    ([{"type": "record", "name": "A", "fields": [{"name": "x", "type": "int"}]},
      {"type": "map", "values": "int"}], [{"x": 1}, {"z": 2}]),
    ([{"type": "enum", "name": "E", "symbols": ["X", "Y"]}, "string"], ["X", "Z"]),
    (["null", {"type": "long", "logicalType": "timestamp-millis"}, "string"],
     [datetime.datetime(2020, 1, 1, tzinfo=UTC), "x", None]),
    ([{"type": "array", "items": "int"}, {"type": "map", "values": "int"}], [[1, 2], {"a": 1}, []]),
    (["boolean", "int"], [True, 0, False]),
]


@pytest.mark.parametrize("schema,values", UNION_CASES)
def test_union_branch_guessing_matches_fastavro(schema, values):
    parsed = fastavro.parse_schema(schema)
    for v in values:
        a, f = io.BytesIO(), io.BytesIO()
        avrokit.schemaless_writer(a, schema, v)
        fastavro.schemaless_writer(f, parsed, v)
        assert a.getvalue() == f.getvalue(), v


def test_return_record_name_options_match_fastavro():
    schema = ["null",
              {"type": "record", "name": "A", "namespace": "n", "fields": [{"name": "x", "type": "int"}]},
              {"type": "record", "name": "B", "namespace": "n", "fields": [{"name": "y", "type": "string"}]},
              {"type": "enum", "name": "E", "namespace": "n", "symbols": ["P"]}]
    values = [None, {"x": 1}, {"y": "s"}, "P"]
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), values)
    for opts in [{}, {"return_record_name": True}, {"return_record_name": True, "return_record_name_override": True},
                 {"return_named_type": True}, {"return_named_type": True, "return_named_type_override": True}]:
        buf.seek(0)
        expected = list(fastavro.reader(buf, **opts))
        buf.seek(0)
        same(list(avrokit.reader(buf, **opts)), expected)


def test_generators_as_input_and_appending():
    schema = avrokit.parse_schema({"type": "record", "name": "P", "fields": [{"name": "k", "type": "long"}]})
    buf = io.BytesIO()
    avrokit.writer(buf, schema, ({"k": i} for i in range(1000)), codec="deflate", sync_interval=100)
    # fastavro's append: the file object at its end, readable ('a+b'); the schema is ignored.
    avrokit.writer(buf, None, ({"k": i} for i in range(1000, 1500)))
    buf.seek(0)
    assert [r["k"] for r in fastavro.reader(buf)] == list(range(1500))
    fbuf = io.BytesIO()
    fastavro.writer(fbuf, fastavro.parse_schema(dict(schema)), [{"k": 1}], codec="snappy")
    avrokit.writer(fbuf, schema, [{"k": 2}])
    fbuf.seek(0)
    r = fastavro.reader(fbuf)
    assert r.codec == "snappy" and [x["k"] for x in r] == [1, 2]


def test_append_to_a_file_opened_a_plus_b(tmp_path):
    schema = {"type": "record", "name": "P", "fields": [{"name": "k", "type": "string"}]}
    path = tmp_path / "f.avro"
    with open(path, "wb") as fo:
        avrokit.writer(fo, schema, [{"k": "a"}], metadata={"who": "me"})
    with open(path, "a+b") as fo:
        avrokit.writer(fo, None, [{"k": "b"}])
    with open(path, "rb") as fo:
        r = fastavro.reader(fo)
        assert r.metadata["who"] == "me"
        assert [x["k"] for x in r] == ["a", "b"]


def test_a_bad_record_keeps_the_records_before_it():
    schema = {"type": "record", "name": "P", "fields": [{"name": "k", "type": "int"}]}
    buf = io.BytesIO()
    with pytest.raises(avrokit.AvroError) as err:
        avrokit.writer(buf, schema, [{"k": 1}, {"k": 2}, {"k": "three"}, {"k": 4}])
    assert "record 2" in str(err.value) and ".k" in str(err.value)
    buf.seek(0)
    assert [r["k"] for r in fastavro.reader(buf)] == [1, 2]


def test_errors_carry_offset_and_path():
    schema = {"type": "record", "name": "P", "fields": [{"name": "xs", "type": {"type": "array", "items": "string"}}]}
    data = b"\x04\x02a\x10bc"  # the second string claims 8 bytes, 2 are left
    with pytest.raises(avrokit.AvroError) as err:
        avrokit.schemaless_reader(io.BytesIO(data), schema)
    assert err.value.path == ".xs[1]"
    assert err.value.offset is not None
    assert "byte offset" in str(err.value)


def test_incremental_writer():
    schema = {"type": "record", "name": "P", "fields": [{"name": "k", "type": "long"}]}
    buf = io.BytesIO()
    w = avrokit.Writer(buf, schema, codec="deflate")
    for i in range(10):
        w.write({"k": i})
    w.flush()
    buf.seek(0)
    assert [r["k"] for r in fastavro.reader(buf)] == list(range(10))
    buf.seek(0, 2)
    with avrokit.Writer(buf, None) as w2:  # appends: buf is at its end, readable
        w2.write({"k": 10})
    buf.seek(0)
    assert [r["k"] for r in fastavro.reader(buf)] == list(range(11))


JSON_SCHEMA = {"type": "record", "name": "J", "namespace": "t", "fields": [
    {"name": "i", "type": "int"}, {"name": "s", "type": "string"}, {"name": "by", "type": "bytes"},
    {"name": "u", "type": ["null", "string", "long"]}, {"name": "a", "type": {"type": "array", "items": "double"}},
    {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A", "B"]}}]}
JSON_RECORDS = [{"i": i, "s": f"s{i}é", "by": bytes([i, 255 - i]), "u": [None, "x", 2**40][i % 3],
                 "a": [0.5 * i], "e": "AB"[i % 2]} for i in range(20)]


def test_json_writer_and_reader_agree_with_fastavro():
    out = io.StringIO()
    avrokit.json_writer(out, JSON_SCHEMA, JSON_RECORDS)
    text = out.getvalue()
    assert len(text.splitlines()) == len(JSON_RECORDS)
    same(list(fastavro.json_reader(io.StringIO(text), fastavro.parse_schema(JSON_SCHEMA))), JSON_RECORDS)
    theirs = io.StringIO()
    fastavro.json_writer(theirs, fastavro.parse_schema(JSON_SCHEMA), JSON_RECORDS)
    same(list(avrokit.json_reader(io.StringIO(theirs.getvalue()), JSON_SCHEMA)), JSON_RECORDS)
