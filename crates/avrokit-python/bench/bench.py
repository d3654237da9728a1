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

    python bench/bench.py [--records N] [--repeat R] [--quick]
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
    print(f"{label:<42} {n:>8} {t_fast * 1e3:>10.1f} {t_ak * 1e3:>10.1f} {ratio:>7.2f}x", flush=True)
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


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="10x fewer records, 2 runs")
    args = ap.parse_args()
    n, repeat = args.records, args.repeat
    if args.quick:
        n, repeat = n // 10, 2
    print(f"fastavro {fastavro.__version__}, Python {sys.version.split()[0]}; best of {repeat} runs")
    print(f"{'workload':<42} {'records':>8} {'fastavro ms':>10} {'avrokit ms':>10} {'ratio':>8}")
    all_ratios = {}
    for name, schema, recs in [
        ("-container Mixed", MIXED, mixed(n)),
        ("Avro3451 Small", SMALL, small(max(n // 10, 1))),
        ("Avro3451 Big", BIG, big(max(n // 10, 1))),
        ("strings", STRINGS, strings(n)),
    ]:
        for k, v in run(name, schema, recs, repeat, min(len(recs), 20_000)).items():
            all_ratios[(name, k)] = v
    worst = min(all_ratios.items(), key=lambda kv: kv[1])
    print(f"lowest ratio: {worst[1]:.2f}x ({worst[0][0]}, {worst[0][1]})")


if __name__ == "__main__":
    main()
