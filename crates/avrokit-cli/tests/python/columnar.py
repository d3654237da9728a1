"""pyarrow against avrokit's columnar commands (driven by tests/python_columnar.rs).

  columnar.py read SCHEMA.avsc ORIGINAL.avro FILE.parquet|FILE.arrow ...
      Reads each Parquet or Arrow IPC file that `avrokit toparquet`/`toarrow` wrote from
      ORIGINAL.avro with pyarrow, and compares every value of every column it holds with
      fastavro's reading of ORIGINAL.avro. Logical types are compared as their underlying
      Avro values (fastavro reads with them stripped; pyarrow's temporal columns are cast to
      integers), so that values outside Python's datetime range compare too.
  columnar.py write FILE.parquet
      Writes a Parquet file of many Arrow types with pyarrow.
  columnar.py check FILE.parquet FILE.avro
      Compares the Avro file `avrokit fromparquet` made of FILE.parquet, read by fastavro with
      its logical types, with pyarrow's reading of FILE.parquet.

Prints one OK line per file; exits 1 on the first mismatch.
"""

import datetime
import decimal
import json
import math
import sys
import uuid

import fastavro
import pyarrow as pa
import pyarrow.ipc
import pyarrow.parquet as pq


def fail(msg):
    print("MISMATCH " + msg)
    sys.exit(1)


def strip_logical(s):
    if isinstance(s, list):
        return [strip_logical(b) for b in s]
    if isinstance(s, dict):
        return {k: strip_logical(v) for k, v in s.items() if k != "logicalType"}
    return s


def same(a, b):
    """Equality with NaN equal to NaN, dicts and lists compared deeply."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def pa_plain(v, t):
    """A pyarrow Python value of Arrow type `t` in fastavro's shape: maps as dicts."""
    if v is None:
        return None
    if pa.types.is_map(t):
        return {k: pa_plain(x, t.item_type) for k, x in v}
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return [pa_plain(e, t.value_type) for e in v]
    if pa.types.is_struct(t):
        return {t.field(i).name: pa_plain(v[t.field(i).name], t.field(i).type) for i in range(t.num_fields)}
    if pa.types.is_union(t):
        # The value is the branch's: find a branch it fits (maps are the only reshaping).
        for i in range(t.num_fields):
            if pa.types.is_map(t.field(i).type) and isinstance(v, list):
                return pa_plain(v, t.field(i).type)
        return v
    return v


def unscaled(b):
    return int.from_bytes(b, "big", signed=True)


def logical_of(t):
    """The logical type of a field type (through a nullable union), or None."""
    if isinstance(t, list):
        inner = [b for b in t if b != "null"]
        return logical_of(inner[0]) if len(inner) == 1 else None
    return t.get("logicalType") if isinstance(t, dict) else None


def column_values(col, logical):
    """The Python values of a pyarrow column, as fastavro reads the stripped Avro."""
    t = col.type
    if pa.types.is_timestamp(t) or pa.types.is_time64(t):
        return col.cast(pa.int64()).to_pylist()
    if pa.types.is_date32(t) or pa.types.is_time32(t):
        return col.cast(pa.int32()).to_pylist()
    values = col.to_pylist()
    if logical == "decimal":
        return [None if v is None else int(v.scaleb(-v.as_tuple().exponent)) for v in values]
    if logical == "duration":
        # Avro's months and days are unsigned 32-bit, Arrow's signed: the same bits.
        return [
            None if v is None else (v.months % 2**32, v.days % 2**32, v.nanoseconds)
            for v in values
        ]
    if logical == "uuid":
        return [None if v is None else uuid.UUID(bytes=v) for v in values]
    return [pa_plain(v, t) for v in values]


def avro_values(values, logical):
    """fastavro's stripped values of one field, in the form column_values gives."""
    if logical == "decimal":
        return [None if v is None else unscaled(v) for v in values]
    if logical == "duration":
        out = []
        for v in values:
            m, d, ms = (int.from_bytes(v[i : i + 4], "little") for i in (0, 4, 8))
            out.append((m, d, ms * 1_000_000))
        return out
    if logical == "uuid":
        return [
            None if v is None else (uuid.UUID(v) if isinstance(v, str) else uuid.UUID(bytes=v))
            for v in values
        ]
    return values


def read_columnar(path):
    if path.endswith(".parquet"):
        return pq.read_table(path)
    with pa.memory_map(path) as source:
        return pa.ipc.open_file(source).read_all()


def read_mode(schema_path, original, files):
    schema = json.load(open(schema_path))
    types = {f["name"]: f["type"] for f in schema["fields"]}
    import fastavro.read

    # fastavro applies the writer's logical types even through a stripped reader schema
    # unless its table of logical readers is empty (this mode needs none).
    fastavro.read.LOGICAL_READERS.clear()
    with open(original, "rb") as f:
        records = list(fastavro.reader(f, reader_schema=strip_logical(schema)))
    for path in files:
        table = read_columnar(path)
        if table.num_rows != len(records):
            fail(f"{path}: {table.num_rows} rows, fastavro read {len(records)}")
        if table.num_columns < 10:
            fail(f"{path}: only {table.num_columns} columns")
        for name in table.column_names:
            logical = logical_of(types[name])
            got = column_values(table.column(name), logical)
            want = avro_values([r[name] for r in records], logical)
            for i, (g, w) in enumerate(zip(got, want)):
                if not same(g, w):
                    fail(f"{path}: column {name} row {i}: pyarrow {g!r}, fastavro {w!r}")
        print(f"OK read {path} {table.num_rows} rows {table.num_columns} columns")


def write_mode(path):
    n = 1000
    utc = datetime.timezone.utc
    table = pa.table(
        {
            "id": pa.array(range(n), pa.int64()),
            "small": pa.array([i % 100 - 50 for i in range(n)], pa.int8()),
            "flag": pa.array([i % 3 == 0 for i in range(n)]),
            "name": pa.array([None if i % 7 == 0 else f"name-{i}-\u00e9\u4e2d" for i in range(n)]),
            "score": pa.array([i * 0.25 for i in range(n)], pa.float64()),
            "ratio": pa.array([i / 8 for i in range(n)], pa.float32()),
            "blob": pa.array([bytes([i % 256]) * (i % 5) for i in range(n)], pa.binary()),
            "tags": pa.array([[f"t{j}" for j in range(i % 4)] for i in range(n)]),
            "point": pa.array(
                [{"x": i, "y": None if i % 5 == 0 else -i * 1.5} for i in range(n)],
                pa.struct([("x", pa.int32()), ("y", pa.float64())]),
            ),
            "attrs": pa.array(
                [[(f"k{j}", i * j) for j in range(i % 3)] for i in range(n)],
                pa.map_(pa.string(), pa.int64()),
            ),
            "day": pa.array([datetime.date(2020, 1, 1) + datetime.timedelta(days=i) for i in range(n)]),
            "at": pa.array(
                [datetime.datetime(2024, 5, 6, 7, 8, 9, i, tzinfo=utc) for i in range(n)],
                pa.timestamp("us", tz="UTC"),
            ),
            "local": pa.array(
                [datetime.datetime(1999, 12, 31, 23, 59, i % 60) for i in range(n)],
                pa.timestamp("ms"),
            ),
            "price": pa.array(
                [decimal.Decimal(i * 37 - 5000).scaleb(-2) for i in range(n)], pa.decimal128(12, 2)
            ),
            "clock": pa.array([datetime.time(i % 24, i % 60, 0, i) for i in range(n)], pa.time64("us")),
        }
    )
    pq.write_table(table, path, row_group_size=300, compression="zstd")
    print(f"OK write {path} {table.num_rows} rows {table.num_columns} columns")


def check_mode(parquet, avro):
    table = pq.read_table(parquet)
    with open(avro, "rb") as f:
        records = list(fastavro.reader(f))
    if len(records) != table.num_rows:
        fail(f"{avro}: {len(records)} records, the Parquet file has {table.num_rows} rows")
    for name in table.column_names:
        got = [r[name] for r in records]
        t = table.column(name).type
        want = [pa_plain(v, t) for v in table.column(name).to_pylist()]
        for i, (g, w) in enumerate(zip(got, want)):
            if isinstance(w, float) and isinstance(g, float) and table.column(name).type == pa.float32():
                ok = g == w
            else:
                ok = same(g, w)
            if not ok:
                fail(f"{avro}: column {name} row {i}: fastavro {g!r}, pyarrow {w!r}")
    print(f"OK check {avro} {len(records)} records {table.num_columns} columns")


if __name__ == "__main__":
    mode = sys.argv[1]
    if mode == "read":
        read_mode(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif mode == "write":
        write_mode(sys.argv[2])
    elif mode == "check":
        check_mode(sys.argv[2], sys.argv[3])
    else:
        fail(f"unknown mode {mode}")
