"""avrokit against fastavro, in one process and one run, ratios printed.

Workloads (see /work/shared/perf/WORKLOADS.md and crates/avrokit-perf):
- `-container`: the mixed record of avrokit-perf's container rows (int, long, double, float,
  boolean, string 0..40, bytes 0..16, enum, ["null","string"], array of 0..5 longs, map of 0..3
  ints, nested record), from a seeded generator;
- `avro3451`: the apache-avro benchmark's Small and Big records (AVRO-3451);
- `strings`: a string-heavy record (eight string fields of 5..60 characters).

For each: read a container file into dicts, write dicts to a container file (null and
deflate), and a schemaless one-record-at-a-time loop (a Kafka consumer's and producer's).
Each timing is the best of `--repeat` runs; the ratio is fastavro's time over avrokit's.

Tables (when pyarrow and polars are installed): `avrokit.read_arrow` (its default, a thread
per core, and one thread)
against `polars.read_avro`, the polars-avro plugin's `polars_avro.read_avro` (when installed),
and against fastavro's records made into a table by
`pyarrow.Table.from_pylist` (with the Arrow schema given, as a careful user would); the ratio
is the other's time over avrokit's.

    python bench/bench.py [--records N] [--repeat R] [--quick] [--only rows|arrow]
"""

import argparse
import io
import random
import string
import sys
import time

import fastavro

import avrokit

MIXED = {"type": "record", "name": "Mixed", "namespace": "perf", "fields": [
    {"name": "i", "type": "int"},
    {"name": "l", "type": "long"},
    {"name": "d", "type": "double"},
    {"name": "f", "type": "float"},
    {"name": "b", "type": "boolean"},
    {"name": "s", "type": "string"},
    {"name": "by", "type": "bytes"},
    {"name": "e", "type": {"type": "enum", "name": "Suit", "symbols": ["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]}},
    {"name": "u", "type": ["null", "string"]},
    {"name": "a", "type": {"type": "array", "items": "long"}},
    {"name": "m", "type": {"type": "map", "values": "int"}},
    {"name": "n", "type": {"type": "record", "name": "Inner", "fields": [
        {"name": "id", "type": "long"}, {"name": "label", "type": "string"}]}}]}

SMALL = {"namespace": "test", "type": "record", "name": "Test",
         "fields": [{"type": {"type": "string"}, "name": "field"}]}

BIG = {"namespace": "my.example", "type": "record", "name": "userInfo", "fields": [
    {"default": "NONE", "type": "string", "name": "username"},
    {"default": -1, "type": "int", "name": "age"},
    {"default": "NONE", "type": "string", "name": "phone"},
    {"default": "NONE", "type": "string", "name": "housenum"},
    {"default": {}, "type": {"fields": [
        {"default": "NONE", "type": "string", "name": "street"},
        {"default": "NONE", "type": "string", "name": "city"},
        {"default": "NONE", "type": "string", "name": "state_prov"},
        {"default": "NONE", "type": "string", "name": "country"},
        {"default": "NONE", "type": "string", "name": "zip"}],
        "type": "record", "name": "mailing_address"}, "name": "address"}]}

STRINGS = {"type": "record", "name": "Strings", "fields": [
    {"name": f"s{i}", "type": "string"} for i in range(8)]}


def word(rng, lo, hi):
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(rng.randint(lo, hi)))


def mixed(n):
    rng = random.Random(19781210)
    out = []
    for _ in range(n):
        out.append({
            "i": rng.randint(-2**31, 2**31 - 1),
            "l": rng.randint(-2**63, 2**63 - 1),
            "d": rng.random(),
            "f": 0.5 * rng.randint(0, 1 << 20),
            "b": rng.random() < 0.5,
            "s": word(rng, 0, 40),
            "by": bytes(rng.randrange(256) for _ in range(rng.randint(0, 16))),
            "e": rng.choice(["SPADES", "HEARTS", "DIAMONDS", "CLUBS"]),
            "u": word(rng, 0, 20) if rng.random() < 0.5 else None,
            "a": [rng.randint(-2**63, 2**63 - 1) for _ in range(rng.randint(0, 5))],
            "m": {f"k{k}_{rng.randrange(100)}": rng.randint(-2**31, 2**31 - 1) for k in range(rng.randint(0, 3))},
            "n": {"id": rng.randint(-2**63, 2**63 - 1), "label": word(rng, 0, 10)},
        })
    return out


def small(n):
    return [{"field": "foo"} for _ in range(n)]


def big(n):
    rec = {"username": "username", "age": 10, "phone": "000000000", "housenum": "0000",
           "address": {"street": "street", "city": "city", "state_prov": "state_prov",
                       "country": "country", "zip": "zip"}}
    return [dict(rec, address=dict(rec["address"])) for _ in range(n)]


def strings(n):
    rng = random.Random(5)
    return [{f"s{i}": word(rng, 5, 60) for i in range(8)} for _ in range(n)]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def row(label, n, t_fast, t_ak):
    ratio = t_fast / t_ak
    print(f"{label:<62} {n:>8} {t_fast * 1e3:>10.1f} {t_ak * 1e3:>10.1f} {ratio:>7.2f}x", flush=True)
    return ratio


def run(name, schema, records, repeat, loop_n):
    fs = fastavro.parse_schema(schema)
    ak = avrokit.parse_schema(schema)
    n = len(records)
    ratios = {}
    for codec in ("null", "deflate"):
        def fw():
            b = io.BytesIO()
            fastavro.writer(b, fs, records, codec=codec)
            return b

        def aw():
            b = io.BytesIO()
            avrokit.writer(b, ak, records, codec=codec)
            return b

        data = aw().getvalue()
        assert list(fastavro.reader(io.BytesIO(data))) == records
        ratios[f"write {codec}"] = row(f"{name}: write dicts, {codec}", n, best(fw, repeat), best(aw, repeat))
        ratios[f"read {codec}"] = row(
            f"{name}: read into dicts, {codec}", n,
            best(lambda: list(fastavro.reader(io.BytesIO(data))), repeat),
            best(lambda: list(avrokit.reader(io.BytesIO(data))), repeat))
    one = records[:loop_n]
    encoded = []
    for r in one:
        b = io.BytesIO()
        fastavro.schemaless_writer(b, fs, r)
        encoded.append(b.getvalue())

    def f_enc():
        for r in one:
            b = io.BytesIO()
            fastavro.schemaless_writer(b, fs, r)

    def a_enc():
        for r in one:
            b = io.BytesIO()
            avrokit.schemaless_writer(b, ak, r)

    def f_dec():
        for m in encoded:
            fastavro.schemaless_reader(io.BytesIO(m), fs)

    def a_dec():
        for m in encoded:
            avrokit.schemaless_reader(io.BytesIO(m), ak)

    ratios["schemaless write"] = row(f"{name}: schemaless_writer loop", len(one), best(f_enc, repeat), best(a_enc, repeat))
    ratios["schemaless read"] = row(f"{name}: schemaless_reader loop", len(one), best(f_dec, repeat), best(a_dec, repeat))
    return ratios


def plain_type(pa, t):
    """An Arrow type with dictionaries as their values (from_pylist takes enum symbols)."""
    if pa.types.is_dictionary(t):
        return t.value_type
    if pa.types.is_list(t):
        return pa.list_(t.value_field.with_type(plain_type(pa, t.value_type)))
    if pa.types.is_map(t):
        return pa.map_(t.key_field, t.item_field.with_type(plain_type(pa, t.item_type)))
    if pa.types.is_struct(t):
        return pa.struct([f.with_type(plain_type(pa, f.type)) for f in t])
    return t


def without_defaults(schema):
    if isinstance(schema, list):
        return [without_defaults(s) for s in schema]
    if isinstance(schema, dict):
        return {k: without_defaults(v) for k, v in schema.items() if k != "default"}
    return schema


def run_arrow(name, schema, records, repeat):
    """read_arrow against polars.read_avro and fastavro + pyarrow.Table.from_pylist."""
    import pyarrow as pa
    try:
        import polars as pl
    except ImportError:
        pl = None
    try:
        import polars_avro  # the polars io-plugin (PyPI polars-avro), which reads maps too
    except ImportError:
        polars_avro = None
    ak = avrokit.parse_schema(schema)
    n = len(records)
    ratios = {}
    # polars' reader has no Arrow form for Avro maps (it panics: "not yet implemented: Avro maps
    # are mapped to MapArrays"): it is compared on the records without their map fields. It
    # also fails ("OutOfSpec") on the record default of Avro3451 Big: its file is written with
    # the defaults left out of the schema (the data is the same bytes).
    no_maps = [f["name"] for f in schema["fields"]
               if isinstance(f["type"], dict) and f["type"].get("type") == "map"]
    pl_schema = without_defaults(dict(schema, fields=[f for f in schema["fields"] if f["name"] not in no_maps]))
    pl_records = [{k: v for k, v in r.items() if k not in no_maps} for r in records] if no_maps else records
    pl_label = f" (without map {', '.join(no_maps)})" if no_maps else ""
    for codec in ("null", "deflate"):
        b = io.BytesIO()
        avrokit.writer(b, ak, records, codec=codec)
        data = b.getvalue()
        table = avrokit.read_arrow(data)
        target = pa.schema([f.with_type(plain_type(pa, f.type)) for f in table.schema])
        maps = [f.name for f in target if pa.types.is_map(f.type)]

        def from_pylist():
            recs = list(fastavro.reader(io.BytesIO(data)))
            for m in maps:  # pyarrow builds a map from (key, value) pairs
                for r in recs:
                    r[m] = list(r[m].items())
            return pa.Table.from_pylist(recs, schema=target)

        assert from_pylist().equals(table.cast(target))
        t1 = best(lambda: avrokit.read_arrow(data), repeat)
        if pl is not None and hasattr(pl, "read_avro"):
            b = io.BytesIO()
            avrokit.writer(b, avrokit.parse_schema(pl_schema), pl_records, codec=codec)
            pl_data = b.getvalue()
            assert pl.read_avro(io.BytesIO(pl_data)).height == n
            t_pl = best(lambda: pl.read_avro(io.BytesIO(pl_data)), repeat)
            t_ak = best(lambda: avrokit.read_arrow(pl_data), repeat) if no_maps else t1
            t_ak1 = best(lambda: avrokit.read_arrow(pl_data, threads=1), repeat)
            ratios[f"read_arrow vs polars {codec}"] = row(
                f"{name}: polars.read_avro / read_arrow, {codec}{pl_label}", n, t_pl, t_ak)
            row(f"{name}:   ... read_arrow threads=1, {codec}", n, t_pl, t_ak1)
        if polars_avro is not None:
            assert polars_avro.read_avro(io.BytesIO(data)).height == n
            ratios[f"read_arrow vs polars-avro {codec}"] = row(
                f"{name}: polars_avro.read_avro / read_arrow, {codec}", n,
                best(lambda: polars_avro.read_avro(io.BytesIO(data)), repeat), t1)
        t_fp = best(from_pylist, repeat)
        ratios[f"read_arrow vs from_pylist {codec}"] = row(
            f"{name}: fastavro+from_pylist / read_arrow, {codec}", n, t_fp, t1)
        row(f"{name}:   ... read_arrow threads=1, {codec}", n, t_fp,
            best(lambda: avrokit.read_arrow(data, threads=1), repeat))
    return ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="10x fewer records, 2 runs")
    ap.add_argument("--only", choices=["rows", "arrow"], help="only the row or the table rows")
    args = ap.parse_args()
    n, repeat = args.records, args.repeat
    if args.quick:
        n, repeat = n // 10, 2
    print(f"fastavro {fastavro.__version__}, Python {sys.version.split()[0]}; best of {repeat} runs")
    sets = [
        ("-container Mixed", MIXED, mixed(n)),
        ("Avro3451 Small", SMALL, small(max(n // 10, 1))),
        ("Avro3451 Big", BIG, big(max(n // 10, 1))),
        ("strings", STRINGS, strings(n)),
    ]
    all_ratios = {}
    if args.only != "arrow":
        print(f"{'workload':<62} {'records':>8} {'fastavro ms':>10} {'avrokit ms':>10} {'ratio':>8}")
        for name, schema, recs in sets:
            for k, v in run(name, schema, recs, repeat, min(len(recs), 20_000)).items():
                all_ratios[(name, k)] = v
    if args.only != "rows":
        try:
            import pyarrow
        except ImportError:
            print("tables: pyarrow is not installed; no read_arrow rows")
        else:
            try:
                import polars
                pl_note = f"polars {polars.__version__}" + ("" if hasattr(polars, "read_avro") else " (no read_avro)")
            except ImportError:
                pl_note = "no polars"
            try:
                from importlib.metadata import version
                pl_note += f", polars-avro {version('polars-avro')}"
            except Exception:
                pl_note += ", no polars-avro"
            print(f"tables: pyarrow {pyarrow.__version__}, {pl_note}")
            print(f"{'workload':<62} {'records':>8} {'other ms':>10} {'avrokit ms':>10} {'ratio':>8}")
            # Tables want rows: Avro3451's sets get as many records as the others here.
            for name, schema, recs in sets:
                if name.startswith("Avro3451"):
                    recs = (small if "Small" in name else big)(n)
                for k, v in run_arrow(name, schema, recs, repeat).items():
                    all_ratios[(name, k)] = v
    worst = min(all_ratios.items(), key=lambda kv: kv[1])
    print(f"lowest ratio: {worst[1]:.2f}x ({worst[0][0]}, {worst[0][1]})")


if __name__ == "__main__":
    main()
