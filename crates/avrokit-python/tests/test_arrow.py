"""read_arrow, arrow_reader and write_arrow: against fastavro's records turned into Arrow by
pyarrow, on the interop corpus and on generated data of every type and codec; projections,
batch sizes, threads, streaming, polars, round trips, hostile input."""

import datetime
import decimal
import io
import json
import math
import random
import uuid

import fastavro
import pyarrow as pa
import pytest

import avrokit
from conftest import INTEROP, MALFORMED, same

FILES = sorted(INTEROP.rglob("*.avro"))
BAD = sorted(MALFORMED.glob("*.avro"))
CODECS = ["null", "deflate", "snappy", "zstandard", "bzip2", "xz"]
UTC = datetime.timezone.utc


def ids(paths):
    return [str(p.relative_to(p.parents[1])) for p in paths]


# --- fastavro's records as the Arrow the mapping gives -------------------------------------


def plain(t):
    """`t` with dictionaries (Avro enums) as their value type: pyarrow builds a dictionary of
    the symbols it meets, the mapping one of every symbol, and the values are what count."""
    if pa.types.is_dictionary(t):
        return t.value_type
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(plain(t.value_type)))
    if pa.types.is_map(t):
        return pa.map_(t.key_field, t.item_field.with_type(plain(t.item_type)))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(plain(t.field(i).type)) for i in range(t.num_fields)])
    return t


def plain_schema(schema):
    return pa.schema([f.with_type(plain(f.type)) for f in schema], metadata=schema.metadata)


def has_union(t):
    if pa.types.is_union(t):
        return True
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return has_union(t.value_type)
    if pa.types.is_map(t):
        return has_union(t.item_type)
    if pa.types.is_struct(t):
        return any(has_union(t.field(i).type) for i in range(t.num_fields))
    return False


def prep(v, t):
    """A fastavro value as pyarrow's from_pylist takes it for the Arrow type `t`."""
    if v is None:
        return None
    if pa.types.is_struct(t):
        return {t.field(i).name: prep(v.get(t.field(i).name), t.field(i).type) for i in range(t.num_fields)}
    if pa.types.is_list(t):
        return [prep(x, t.value_type) for x in v]
    if pa.types.is_map(t):
        return [(k, prep(x, t.item_type)) for k, x in v.items()]
    if pa.types.is_fixed_size_binary(t) and isinstance(v, uuid.UUID):
        return v.bytes
    if pa.types.is_fixed_size_binary(t) and isinstance(v, str):
        return uuid.UUID(v).bytes
    if t == pa.month_day_nano_interval():
        months, days, millis = (int.from_bytes(v[i:i + 4], "little") for i in (0, 4, 8))
        signed = [x - (1 << 32) if x >= 1 << 31 else x for x in (months, days)]
        return pa.scalar((signed[0], signed[1], millis * 1_000_000), type=t).as_py()
    return v


def is_record(schema):
    """Whether the Avro schema kept in an Arrow schema's metadata is a record."""
    avro = json.loads(schema.metadata[b"avro.schema"])
    return isinstance(avro, dict) and avro.get("type") == "record"


def pythonic(v):
    """Arrow's and fastavro's Python values alike: maps (Arrow's (key, value) pairs) as dicts,
    UUIDs as their 16 bytes (Arrow's form). An empty map is [] on both sides."""
    if isinstance(v, dict) and not v:
        return []
    if isinstance(v, list) and v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
        return {k: pythonic(x) for k, x in v}
    if isinstance(v, list):
        return [pythonic(x) for x in v]
    if isinstance(v, dict):
        return {k: pythonic(x) for k, x in v.items()}
    if isinstance(v, uuid.UUID):
        return v.bytes
    return v


def expected_table(records, schema):
    """pyarrow's Table of fastavro's `records`, with the Arrow schema `schema` (dictionaries as
    their values)."""
    schema = plain_schema(schema)
    if isinstance(records, dict):
        records = [records]
    if not is_record(schema):
        # A file whose schema is not a record: one column named "value".
        rows = [{"value": prep(r, schema.field(0).type)} for r in records]
    else:
        rows = [{f.name: prep(r.get(f.name), f.type) for f in schema} for r in records]
    return pa.Table.from_pylist(rows, schema=schema)


def decoded(table):
    """`table` with dictionary columns as their values (see `plain`)."""
    for i, f in enumerate(table.schema):
        t = plain(f.type)
        if t != f.type:
            table = table.set_column(i, f.with_type(t), table.column(i).cast(t))
    return table


def same_table(got, expected):
    """Equal schemas and values (NaN equal to NaN, which Arrow's `equals` does not count)."""
    assert got.schema.equals(expected.schema), f"{got.schema}\n!=\n{expected.schema}"
    assert got.num_rows == expected.num_rows
    if not got.equals(expected):
        same(got.to_pylist(), expected.to_pylist())


def equal_tables(got, expected):
    same_table(decoded(got), expected)


def fastavro_records(path):
    with open(path, "rb") as fo:
        return list(fastavro.reader(fo))


def test_the_corpus_is_there():
    assert len(FILES) > 100, f"interop corpus missing under {INTEROP}"
    assert len(BAD) > 10


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_corpus_reads_as_pyarrow_makes_fastavros_records(path):
    try:
        records = fastavro_records(path)
    except Exception as e:  # fastavro cannot read it: test_interop covers the file
        pytest.skip(f"fastavro cannot read this file: {type(e).__name__}")
    try:
        got = avrokit.read_arrow(str(path))
    except avrokit.AvroError as e:
        # The mapping has no Arrow form for recursive records; nothing else may fail.
        assert "recursive" in str(e).lower(), str(e)
        pytest.skip("a recursive record has no Arrow type")
    assert got.num_rows == len(records)
    # Dense unions: pyarrow's from_pylist cannot build one, so their values are compared (the
    # branch's Python value); the other columns go through from_pylist.
    unions = [f.name for f in got.schema if has_union(f.type)]
    for name in unions:
        column = [r.get(name) for r in records] if is_record(got.schema) else records
        same(pythonic(got.column(name).to_pylist()), pythonic(column), name)
    rest = got.drop_columns(unions)
    if rest.num_columns:  # (from_pylist cannot make rows of no columns)
        equal_tables(rest, expected_table(records, rest.schema))
    # Bytes and file objects read the same.
    same_table(avrokit.read_arrow(path.read_bytes()), got)
    with open(path, "rb") as fo:
        same_table(avrokit.read_arrow(fo), got)


# --- generated data of every type, for every codec ------------------------------------------

SCHEMA = {"type": "record", "name": "All", "namespace": "t", "fields": [
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "f", "type": "float"},
    {"name": "d", "type": "double"},
    {"name": "b", "type": "boolean"},
    {"name": "s", "type": "string"},
    {"name": "by", "type": "bytes"},
    {"name": "u", "type": ["null", "string"]},
    {"name": "e", "type": {"type": "enum", "name": "Suit", "symbols": ["SPADES", "HEARTS", "CLUBS"]}},
    {"name": "a", "type": {"type": "array", "items": "long"}},
    {"name": "m", "type": {"type": "map", "values": "int"}},
    {"name": "n", "type": {"type": "record", "name": "Inner", "fields": [
        {"name": "id", "type": "long"}, {"name": "label", "type": ["null", "string"]}]}},
    {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
    {"name": "dt", "type": {"type": "int", "logicalType": "date"}},
    {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}},
    {"name": "tu", "type": {"type": "long", "logicalType": "timestamp-micros"}},
    {"name": "tm", "type": {"type": "int", "logicalType": "time-millis"}},
    {"name": "tmu", "type": {"type": "long", "logicalType": "time-micros"}},
    {"name": "dec", "type": {"type": "bytes", "logicalType": "decimal", "precision": 10, "scale": 2}},
    {"name": "id", "type": {"type": "string", "logicalType": "uuid"}},
]}

# The Arrow schema the mapping gives SCHEMA (crates/avrokit-arrow/README.md), written out.
ARROW = pa.schema([
    pa.field("i", pa.int32(), nullable=False),
    pa.field("l", pa.int64(), nullable=False),
    pa.field("f", pa.float32(), nullable=False),
    pa.field("d", pa.float64(), nullable=False),
    pa.field("b", pa.bool_(), nullable=False),
    pa.field("s", pa.string(), nullable=False),
    pa.field("by", pa.binary(), nullable=False),
    pa.field("u", pa.string()),
    pa.field("e", pa.dictionary(pa.int32(), pa.string()), nullable=False),
    pa.field("a", pa.list_(pa.field("item", pa.int64(), nullable=False)), nullable=False),
    pa.field("m", pa.map_(pa.field("key", pa.string(), nullable=False),
                          pa.field("value", pa.int32(), nullable=False)), nullable=False),
    pa.field("n", pa.struct([pa.field("id", pa.int64(), nullable=False),
                             pa.field("label", pa.string())]), nullable=False),
    pa.field("fx", pa.binary(4), nullable=False),
    pa.field("dt", pa.date32(), nullable=False),
    pa.field("ts", pa.timestamp("ms", tz="+00:00"), nullable=False),
    pa.field("tu", pa.timestamp("us", tz="+00:00"), nullable=False),
    pa.field("tm", pa.time32("ms"), nullable=False),
    pa.field("tmu", pa.time64("us"), nullable=False),
    pa.field("dec", pa.decimal128(10, 2), nullable=False),
    pa.field("id", pa.binary(16), nullable=False),
])


def generated(n, seed=7):
    rng = random.Random(seed)
    word = lambda k: "".join(rng.choice("abcdefghijklmnopqrstuvwxyzé€") for _ in range(rng.randint(0, k)))
    epoch = datetime.datetime(1970, 1, 1, tzinfo=UTC)
    out = []
    for i in range(n):
        out.append({
            "i": rng.randint(-2**31, 2**31 - 1),
            "l": rng.randint(-2**63, 2**63 - 1),
            "f": rng.choice([0.5 * rng.randint(-1000, 1000), math.inf, -0.0]),
            "d": rng.choice([rng.random(), math.nan, -math.inf, 1e300]),
            "b": rng.random() < 0.5,
            "s": word(30),
            "by": bytes(rng.randrange(256) for _ in range(rng.randint(0, 12))),
            "u": word(10) if rng.random() < 0.6 else None,
            "e": rng.choice(["SPADES", "HEARTS", "CLUBS"]),
            "a": [rng.randint(-2**63, 2**63 - 1) for _ in range(rng.randint(0, 4))],
            "m": {f"k{k}": rng.randint(-5, 5) for k in range(rng.randint(0, 3))},
            "n": {"id": i, "label": None if i % 3 == 0 else word(5)},
            "fx": bytes(rng.randrange(256) for _ in range(4)),
            "dt": datetime.date(1970, 1, 1) + datetime.timedelta(days=rng.randint(-20000, 20000)),
            "ts": epoch + datetime.timedelta(milliseconds=rng.randint(-2**40, 2**40)),
            "tu": epoch + datetime.timedelta(microseconds=rng.randint(-2**50, 2**50)),
            "tm": datetime.time(rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), 1000 * rng.randint(0, 999)),
            "tmu": datetime.time(rng.randint(0, 23), rng.randint(0, 59), rng.randint(0, 59), rng.randint(0, 999_999)),
            "dec": decimal.Decimal(rng.randint(-10**9, 10**9)).scaleb(-2),
            "id": uuid.UUID(int=rng.getrandbits(128)),
        })
    return out


def fastavro_file(records, codec="null", schema=SCHEMA, sync_interval=4000):
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(schema), records, codec=codec, sync_interval=sync_interval)
    return buf.getvalue()


RECORDS = generated(3000)


@pytest.fixture(scope="module")
def files():
    return {codec: fastavro_file(RECORDS, codec) for codec in CODECS}


@pytest.mark.parametrize("codec", CODECS)
def test_generated_data_reads_as_pyarrow_makes_it(files, codec):
    got = avrokit.read_arrow(files[codec])
    assert got.schema.equals(ARROW), f"{got.schema}\n!=\n{ARROW}"
    avro = json.loads(got.schema.metadata[b"avro.schema"])
    assert (avro.get("namespace"), avro["name"]) == ("t", "All")
    equal_tables(got, expected_table(RECORDS, got.schema))
    # The enum keeps every symbol in order; the keys are the symbol indexes.
    e = got.column("e").chunk(0)
    assert e.dictionary.to_pylist() == ["SPADES", "HEARTS", "CLUBS"]


def test_columns_select_fields_and_nested_paths(files):
    got = avrokit.read_arrow(files["deflate"], columns=["s", "n.label", "e"])
    # Columns come in the schema's order; a nested path keeps only that field of the record.
    assert got.column_names == ["s", "e", "n"]
    assert got.schema.field("n").type == pa.struct([pa.field("label", pa.string())])
    assert got.column("n").to_pylist() == [{"label": r["n"]["label"]} for r in RECORDS]
    assert got.column("s").to_pylist() == [r["s"] for r in RECORDS]
    assert avrokit.read_arrow(files["null"], columns="l").column_names == ["l"]
    with pytest.raises(avrokit.AvroError, match="nope"):
        avrokit.read_arrow(files["null"], columns=["nope"])
    with pytest.raises(avrokit.AvroError, match="not a record"):
        avrokit.read_arrow(files["null"], columns=["s.x"])


def test_reader_schema_resolves(files):
    reader = {"type": "record", "name": "All", "namespace": "t", "fields": [
        {"name": "i", "type": "long"},  # promoted
        {"name": "extra", "type": "string", "default": "x"},
        {"name": "s", "type": "string"}]}
    got = avrokit.read_arrow(files["snappy"], reader_schema=reader)
    assert got.schema.field("i").type == pa.int64()
    assert got.column("i").to_pylist() == [r["i"] for r in RECORDS]
    assert got.column("extra").to_pylist() == ["x"] * len(RECORDS)
    bad = dict(reader, fields=[{"name": "s", "type": "int"}])
    with pytest.raises(avrokit.AvroError):
        avrokit.read_arrow(files["null"], reader_schema=bad)


@pytest.mark.parametrize("batch_size", [1, 7, 1000, 100_000])
def test_batch_size_bounds_the_chunks(files, batch_size):
    got = avrokit.read_arrow(files["null"], batch_size=batch_size)
    lengths = [len(c) for c in got.column("i").chunks]
    assert sum(lengths) == len(RECORDS)
    assert max(lengths) <= batch_size
    same_table(got, avrokit.read_arrow(files["null"]))
    with pytest.raises(ValueError):
        avrokit.read_arrow(files["null"], batch_size=0)


@pytest.mark.parametrize("codec", ["null", "zstandard"])
def test_any_number_of_threads_gives_the_same_table(files, codec):
    one = avrokit.read_arrow(files[codec], threads=1, batch_size=500)
    two = avrokit.read_arrow(files[codec], threads=2, batch_size=500)
    same_table(one, two)
    same_table(one, avrokit.read_arrow(files[codec], threads=3))
    # The default decodes on every core (at most 8): still the same table, in file order.
    same_table(one, avrokit.read_arrow(files[codec], batch_size=500))
    same_table(one, avrokit.arrow_reader(files[codec], batch_size=500).read_all())
    with pytest.raises(ValueError):
        avrokit.read_arrow(files[codec], threads=0)


def test_utf8_view():
    got = avrokit.read_arrow(fastavro_file(RECORDS[:50]), columns=["s"], utf8_view=True)
    assert got.schema.field("s").type == pa.string_view()
    assert got.column("s").to_pylist() == [r["s"] for r in RECORDS[:50]]


def test_streaming_reader_gives_bounded_batches(files):
    r = avrokit.arrow_reader(files["deflate"], batch_size=256)
    assert isinstance(r, pa.RecordBatchReader)
    assert r.schema.equals(ARROW)
    sizes = []
    for batch in r:
        sizes.append(batch.num_rows)
    assert max(sizes) <= 256 and sum(sizes) == len(RECORDS)
    table = avrokit.read_arrow(files["deflate"], stream=True, threads=2, batch_size=256).read_all()
    same_table(table, avrokit.read_arrow(files["deflate"]))


def test_the_stream_exports_the_arrow_c_stream(files):
    s = avrokit._avrokit.ArrowStream(files["snappy"], None, None, 300)
    first = next(s)
    assert first.num_rows == 300
    rest = pa.RecordBatchReader.from_stream(s).read_all()  # the batches not read yet
    assert rest.num_rows == len(RECORDS) - 300
    with pytest.raises(OSError):
        s.__arrow_c_stream__()  # handed over once
    # An error in the file reaches a C stream consumer as the stream's error, with its message.
    bad = next(p for p in BAD if "enum-index" in p.name)
    with pytest.raises(Exception, match="enum"):
        pa.RecordBatchReader.from_stream(avrokit._avrokit.ArrowStream(str(bad))).read_all()
    closed = avrokit._avrokit.ArrowStream(files["null"])
    closed.close()
    assert list(closed) == []


class ShortReads(io.RawIOBase):
    """A file object whose read() returns at most 5 bytes at a time."""

    def __init__(self, data):
        self._b = io.BytesIO(data)

    def readable(self):
        return True

    def read(self, n=-1):
        return self._b.read(min(5, n) if n >= 0 else 5)


@pytest.mark.parametrize("codec", ["null", "deflate"])
def test_file_objects_with_short_reads(files, codec):
    expected = avrokit.read_arrow(files[codec])
    same_table(avrokit.read_arrow(ShortReads(files[codec])), expected)
    same_table(avrokit.arrow_reader(ShortReads(files[codec]), threads=2).read_all(), expected)


def test_large_file_streams_in_bounded_memory(tmp_path):
    """A file far larger than a batch is read batch by batch: each batch is its size, and the
    reader holds no more than a few of them."""
    path = tmp_path / "big.avro"
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "id", "type": "long"}, {"name": "text", "type": "string"}]}
    n = 200_000
    avrokit.writer(str(path), schema, ({"id": i, "text": f"{i:010d}" * 10} for i in range(n)), codec="deflate")
    pool = pa.default_memory_pool()
    r = avrokit.arrow_reader(str(path), batch_size=4096)
    peak, count, last = 0, 0, -1
    for batch in r:
        count += batch.num_rows
        ids = batch.column("id")
        assert ids[0].as_py() == last + 1
        last = ids[-1].as_py()
        peak = max(peak, batch.nbytes)
        del batch, ids
    assert count == n
    # One batch is ~4096 * 110 bytes; the whole table would be ~22 MB.
    assert peak < 1_000_000
    assert pool.bytes_allocated() < 5_000_000


def test_polars_takes_the_table_and_the_stream(files):
    pl = pytest.importorskip("polars")
    table = avrokit.read_arrow(files["null"], columns=["i", "s", "u", "n"])
    df = pl.from_arrow(table)
    assert df.shape == (len(RECORDS), 4)
    assert df["s"].to_list() == [r["s"] for r in RECORDS]
    assert df["u"].to_list() == [r["u"] for r in RECORDS]
    assert pl.DataFrame(table)["i"].to_list() == [r["i"] for r in RECORDS]
    df2 = pl.from_arrow(avrokit.arrow_reader(files["null"], columns=["i"], batch_size=100))
    assert df2["i"].to_list() == [r["i"] for r in RECORDS]


def main_thread_gap(work):
    """Runs `work` on another thread while this one loops: the longest this thread went
    without running while `work` ran, and how long `work` took. Held for the whole call, the
    GIL would stop this thread for about that long (a gap near the call's length)."""
    import threading
    import time

    span = []

    def run():
        t0 = time.perf_counter()
        work()
        span.extend([t0, time.perf_counter()])

    stamps = []
    th = threading.Thread(target=run)
    th.start()
    while th.is_alive():
        stamps.append(time.perf_counter())
    th.join()
    t0, t1 = span
    inside = [t for t in stamps if t0 <= t <= t1]
    gaps = [b - a for a, b in zip([t0] + inside, inside + [t1])]
    return max(gaps), t1 - t0


def test_the_gil_is_released_while_decoding():
    data = fastavro_file(RECORDS * 10, "deflate")
    gap, took = main_thread_gap(lambda: avrokit.read_arrow(data))
    assert gap < took / 2, f"the main thread stopped for {gap * 1e3:.0f} of {took * 1e3:.0f} ms"
    table = avrokit.read_arrow(data)
    gap, took = main_thread_gap(lambda: avrokit.write_arrow(table, io.BytesIO(), codec="deflate"))
    assert gap < took / 2, f"writing: stopped for {gap * 1e3:.0f} of {took * 1e3:.0f} ms"
    # The check can tell: a call that holds the GIL stops the loop for most of its time.
    shuffled = list(range(500_000))
    random.Random(1).shuffle(shuffled)
    gap, took = main_thread_gap(lambda: sorted(shuffled))
    assert gap > took / 2


# --- write_arrow --------------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
def test_write_arrow_round_trip_reads_back_in_fastavro(files, codec):
    table = avrokit.read_arrow(files["null"])
    buf = io.BytesIO()
    assert avrokit.write_arrow(table, buf, codec=codec) == len(RECORDS)
    back = list(fastavro.reader(io.BytesIO(buf.getvalue())))
    # The batch kept the Avro schema in its metadata: the file has that schema, and the values
    # are the ones fastavro wrote.
    same(back, list(fastavro.reader(io.BytesIO(files["null"]))))
    assert fastavro.reader(io.BytesIO(buf.getvalue())).codec == codec
    same_table(avrokit.read_arrow(buf.getvalue()), table)


def test_write_arrow_derives_a_schema_from_arrow_types(tmp_path):
    table = pa.table({
        "x": pa.array([1, None, 3], pa.int64()),
        "name": pa.array(["a", "b", None]),
        "tags": pa.array([["p"], [], None], pa.list_(pa.string())),
        "at": pa.array([0, 1000, 2000], pa.timestamp("ms", tz="UTC")),
        "small": pa.array([1, 2, 3], pa.int8()),
        "big": pa.array(["é", "x" * 100, ""], pa.large_string()),
    })
    path = tmp_path / "t.avro"
    avrokit.write_arrow(table, str(path), codec="deflate")
    with open(path, "rb") as fo:
        r = fastavro.reader(fo)
        schema = r.writer_schema
        back = list(r)
    assert schema["name"] == "topLevelRecord"
    assert [f["name"] for f in schema["fields"]] == table.column_names
    assert back[0] == {"x": 1, "name": "a", "tags": ["p"], "small": 1, "big": "é",
                       "at": datetime.datetime(1970, 1, 1, tzinfo=UTC)}
    assert back[1]["x"] is None and back[2]["name"] is None and back[2]["tags"] is None


def test_write_arrow_with_a_given_schema_is_checked():
    table = pa.table({"id": pa.array([1, 2], pa.int32()), "s": ["a", "b"]})
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "id", "type": "long"}, {"name": "s", "type": "string"}]}
    buf = io.BytesIO()
    avrokit.write_arrow(table, buf, schema=schema, metadata={"who": "test"})
    r = fastavro.reader(io.BytesIO(buf.getvalue()))
    assert list(r) == [{"id": 1, "s": "a"}, {"id": 2, "s": "b"}]
    assert r.metadata["who"] == "test"
    missing = dict(schema, fields=schema["fields"] + [{"name": "z", "type": "int"}])
    with pytest.raises(avrokit.AvroError, match="z"):
        avrokit.write_arrow(table, io.BytesIO(), schema=missing)
    with pytest.raises(avrokit.AvroError):
        avrokit.write_arrow(pa.table({"id": [None], "s": ["a"]}), io.BytesIO(), schema=schema)


def test_write_arrow_takes_batches_readers_and_polars(files):
    table = avrokit.read_arrow(files["null"], columns=["i", "s", "u"])
    expected = [{"i": r["i"], "s": r["s"], "u": r["u"]} for r in RECORDS]
    assert table.num_rows == len(RECORDS) and len(table.to_batches()) == 1
    for data in (table.to_batches()[0], table.to_reader(max_chunksize=100)):
        buf = io.BytesIO()
        avrokit.write_arrow(data, buf)
        assert list(fastavro.reader(io.BytesIO(buf.getvalue()))) == expected
    pl = pytest.importorskip("polars")
    df = pl.from_arrow(table)
    buf = io.BytesIO()
    assert avrokit.write_arrow(df, buf, codec="snappy") == len(RECORDS)
    assert list(fastavro.reader(io.BytesIO(buf.getvalue()))) == expected
    # A selection of read columns no longer fits the file's schema: one is derived.
    buf = io.BytesIO()
    avrokit.write_arrow(table.select(["s"]), buf)
    assert list(fastavro.reader(io.BytesIO(buf.getvalue())))[:2] == [{"s": r["s"]} for r in RECORDS[:2]]


def test_write_arrow_of_a_type_with_no_avro_form():
    with pytest.raises(avrokit.AvroError, match="no Avro"):
        avrokit.write_arrow(pa.table({"x": pa.array([1], pa.uint64())}), io.BytesIO())
    with pytest.raises(TypeError):
        avrokit.write_arrow([{"x": 1}], io.BytesIO())


# --- hostile input ------------------------------------------------------------------------


@pytest.mark.parametrize("path", BAD, ids=ids(BAD))
def test_malformed_files_raise_avro_error(path):
    for kind in ("path", "bytes", "stream"):
        with pytest.raises(avrokit.AvroError) as err:
            if kind == "path":
                avrokit.read_arrow(str(path))
            elif kind == "bytes":
                avrokit.read_arrow(path.read_bytes(), threads=2)
            else:
                avrokit.arrow_reader(str(path), batch_size=1).read_all()
        assert isinstance(err.value, ValueError)
        assert str(err.value)


def test_errors_carry_offset_and_path():
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "x", "type": "long"},
        {"name": "e", "type": {"type": "enum", "name": "E", "symbols": ["A"]}}]}
    buf = io.BytesIO()
    fastavro.writer(buf, schema, [{"x": 1, "e": "A"}])
    raw = bytearray(buf.getvalue())
    # The block's data is the last bytes before the 16-byte sync marker: x=1 (02), e=0 (00).
    at = len(raw) - 16 - 1
    assert raw[at] == 0
    raw[at] = 0x7e  # enum index 63: out of range, at a known place
    with pytest.raises(avrokit.AvroError) as err:
        avrokit.read_arrow(bytes(raw))
    assert err.value.offset is not None
    assert "e" in err.value.path
    assert "record 0" in str(err.value)


def test_truncated_files_raise_avro_error(files):
    data = files["deflate"]
    for cut in (0, 3, 50, len(data) // 2, len(data) - 1):
        with pytest.raises(avrokit.AvroError):
            avrokit.read_arrow(data[:cut])


def test_file_object_errors_are_chained():
    class Failing(io.RawIOBase):
        def readable(self):
            return True

        def read(self, n=-1):
            raise OSError("disk on fire")

    with pytest.raises(avrokit.AvroError) as err:
        avrokit.read_arrow(Failing())
    assert isinstance(err.value.__cause__, OSError)
