"""Reads container files written by `avrokit` with a Python Avro library and compares every
record with what `avrokit tojson` printed for the same file.

Usage: read_back.py LIB SCHEMA.avsc CODEC:FILE.avro:FILE.jsonl ...
LIB is `fastavro` or `avro` (the official package). Codecs the library cannot read here
(a missing optional module, or none at all: avro-py has no xz) are skipped with a SKIP line.

Records are read with the writer schema stripped of logical types, so that both libraries
return the underlying values (bytes, ints, strings) that Avro JSON shows. Exit status 1 on
the first mismatch.
"""

import io
import json
import math
import struct
import sys

PRIMITIVES = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"}


def strip_logical(s):
    if isinstance(s, list):
        return [strip_logical(b) for b in s]
    if isinstance(s, dict):
        return {k: strip_logical(v) for k, v in s.items() if k != "logicalType"}
    return s


def fullname(name, ns):
    if "." in name or not ns:
        return name
    return ns + "." + name


def register(s, ns, names):
    """Fills `names` (fullname -> (schema, namespace of its children))."""
    if isinstance(s, list):
        for b in s:
            register(b, ns, names)
    elif isinstance(s, dict):
        t = s["type"]
        if t in ("record", "error", "enum", "fixed"):
            full = fullname(s["name"], s.get("namespace", ns))
            child_ns = full.rpartition(".")[0]
            names[full] = (s, child_ns)
            for f in s.get("fields", []):
                register(f["type"], child_ns, names)
        elif t == "array":
            register(s["items"], ns, names)
        elif t == "map":
            register(s["values"], ns, names)
        elif isinstance(t, (dict, list)):
            register(t, ns, names)


def resolve(s, ns, names):
    """A named reference to its definition; returns (schema, namespace)."""
    while isinstance(s, str) and s not in PRIMITIVES:
        s, ns = names[fullname(s, ns)] if fullname(s, ns) in names else names[s]
    if isinstance(s, dict) and s["type"] in ("record", "error", "enum", "fixed"):
        full = fullname(s["name"], s.get("namespace", ns))
        return s, full.rpartition(".")[0]
    if isinstance(s, dict) and isinstance(s["type"], (str, dict, list)) and s["type"] not in (
        "array",
        "map",
    ):
        return resolve(s["type"], ns, names)
    return s, ns


def branch_name(b, ns, names):
    s, _ = resolve(b, ns, names)
    if isinstance(s, str):
        return s
    if s["type"] in ("record", "error", "enum", "fixed"):
        return fullname(s["name"], s.get("namespace", ns))
    return s["type"]


def number(j):
    return float(j) if isinstance(j, str) else j  # "NaN", "Infinity", "-Infinity"


def f32(x):
    if math.isnan(x) or math.isinf(x):
        return x
    return struct.unpack("<f", struct.pack("<f", x))[0]


def same_float(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


def eq(s, j, v, ns, names, path):
    s, ns = resolve(s, ns, names)
    if isinstance(s, list):
        if j is None:
            return v is None or fail(path, j, v)
        ((k, inner),) = j.items()
        for b in s:
            if branch_name(b, ns, names) == k:
                return eq(b, inner, v, ns, names, path + "<" + k + ">")
        return fail(path, j, v, "no branch " + k)
    t = s if isinstance(s, str) else s["type"]
    ok = True
    if t == "null":
        ok = j is None and v is None
    elif t in ("boolean", "int", "long", "string", "enum"):
        ok = j == v and type(v) is not float
    elif t == "float":
        ok = same_float(f32(number(j)), f32(v))
    elif t == "double":
        ok = same_float(number(j), v)
    elif t in ("bytes", "fixed"):
        ok = j.encode("latin-1") == bytes(v)
    elif t == "array":
        ok = len(j) == len(v) and all(
            eq(s["items"], a, b, ns, names, "%s[%d]" % (path, i))
            for i, (a, b) in enumerate(zip(j, v))
        )
    elif t == "map":
        ok = sorted(j) == sorted(v) and all(
            eq(s["values"], j[k], v[k], ns, names, "%s[%r]" % (path, k)) for k in j
        )
    elif t in ("record", "error"):
        ok = all(
            eq(f["type"], j[f["name"]], v[f["name"]], ns, names, path + "." + f["name"])
            for f in s["fields"]
        )
        return ok
    else:
        return fail(path, j, v, "unknown type " + repr(t))
    return ok or fail(path, j, v)


def fail(path, j, v, why="differs"):
    print("MISMATCH at %s: %s: avrokit %r, python %r" % (path or "<root>", why, j, v))
    return False


def fastavro_read(data, reader_schema):
    import fastavro
    import fastavro.read

    # Logical types are converted by the writer schema's annotations whatever the reader
    # schema says: turn the conversions off (the compiled and the pure-Python reader share
    # this table).
    fastavro.read.LOGICAL_READERS.clear()
    return list(fastavro.reader(io.BytesIO(data), reader_schema=reader_schema))


def avro_read(data, reader_schema):
    import avro.datafile
    import avro.io
    import avro.schema

    rs = avro.schema.parse(json.dumps(reader_schema))
    with avro.datafile.DataFileReader(io.BytesIO(data), avro.io.DatumReader(readers_schema=rs)) as r:
        # avro-py converts logical types by the writer schema: swap in the file's own schema
        # without its annotations.
        embedded = json.loads(r.meta["avro.schema"].decode("utf-8"))
        r.datum_reader.writers_schema = avro.schema.parse(json.dumps(strip_logical(embedded)))
        return list(r)


def supported(lib, codec):
    """None when `lib` reads `codec` here, else why not."""
    if lib == "avro":
        import avro.codecs

        known = getattr(avro.codecs, "KNOWN_CODECS", {})
        return None if codec in known else "not in avro.codecs.KNOWN_CODECS (missing module or codec)"
    import fastavro

    buf = io.BytesIO()
    try:
        fastavro.writer(buf, {"type": "long"}, [1], codec=codec)
        fastavro_read(buf.getvalue(), {"type": "long"})
    except Exception as e:  # a missing optional module (cramjam, zstandard) or codec
        return "%s: %s" % (type(e).__name__, e)
    return None


def main():
    lib, schema_path, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    read = fastavro_read if lib == "fastavro" else avro_read
    schema = json.load(open(schema_path))
    reader_schema = strip_logical(schema)
    names = {}
    register(reader_schema, "", names)
    for spec in files:
        codec, avro_path, jsonl_path = spec.split(":", 2)
        why = supported(lib, codec)
        if why:
            print("SKIP %s %s: %s" % (lib, codec, why))
            continue
        records = read(open(avro_path, "rb").read(), reader_schema)
        expected = [json.loads(l) for l in open(jsonl_path, encoding="utf-8").read().split("\n") if l]
        if len(records) != len(expected):
            print("MISMATCH %s: %d records, avrokit printed %d" % (avro_path, len(records), len(expected)))
            sys.exit(1)
        for i, (j, v) in enumerate(zip(expected, records)):
            if not eq(reader_schema, j, v, "", names, "record %d" % i):
                print("in %s read by %s" % (avro_path, lib))
                sys.exit(1)
        print("OK %s %s %s: %d records" % (lib, codec, avro_path, len(records)))


if __name__ == "__main__":
    main()
