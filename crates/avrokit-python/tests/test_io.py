"""Inputs and outputs: short reads, non-binary files, big files streamed in bounded memory,
and hostile bytes that must fail cleanly."""

import io
import os
import random

import fastavro
import pytest

import avrokit
from conftest import INTEROP

SCHEMA = {"type": "record", "name": "S", "fields": [
    {"name": "id", "type": "long"}, {"name": "text", "type": "string"},
    {"name": "tags", "type": {"type": "array", "items": "string"}}]}


class ShortReads(io.RawIOBase):
    """A file object whose read() returns at most 3 bytes at a time."""

    def __init__(self, data):
        self._b = io.BytesIO(data)

    def readable(self):
        return True

    def read(self, n=-1):
        return self._b.read(min(3, n) if n >= 0 else 3)


def records(n, width=30):
    return ({"id": i, "text": f"{i:08d}" * (width // 8), "tags": ["a", "bc"][: i % 3]} for i in range(n))


@pytest.mark.parametrize("codec", ["null", "deflate", "snappy"])
def test_short_reads(codec):
    buf = io.BytesIO()
    avrokit.writer(buf, SCHEMA, records(500), codec=codec, sync_interval=1000)
    got = list(avrokit.reader(ShortReads(buf.getvalue())))
    assert got == list(records(500))


def test_schemaless_reader_leaves_the_file_after_each_datum():
    buf = io.BytesIO()
    for r in records(100):
        avrokit.schemaless_writer(buf, SCHEMA, r)
    raw = buf.getvalue()

    class Seekable(io.BytesIO):
        pass

    for fo in (io.BytesIO(raw), Seekable(raw)):
        assert [avrokit.schemaless_reader(fo, SCHEMA) for _ in range(100)] == list(records(100))
        assert fo.read() == b""


def test_text_file_object_is_an_error(tmp_path):
    p = tmp_path / "f.avro"
    avrokit.writer(str(p), SCHEMA, records(3))
    with open(p, "r", encoding="latin-1") as fo:
        with pytest.raises(avrokit.AvroError, match="binary"):
            list(avrokit.reader(fo))


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc")
def test_large_files_stream_in_bounded_memory(tmp_path):
    path = tmp_path / "big.avro"
    n = 400_000  # about 60 MB of records
    avrokit.writer(str(path), SCHEMA, records(n, width=120), codec="deflate")
    assert path.stat().st_size > 1_000_000
    before = rss_kib()
    count = 0
    last = None
    for r in avrokit.reader(str(path)):
        count += 1
        last = r
    grown_mib = (rss_kib() - before) / 1024
    assert count == n and last["id"] == n - 1
    assert grown_mib < 30, f"reading grew the process by {grown_mib:.0f} MiB"


def test_hostile_bytes_fail_cleanly():
    """Bit flips and truncations of real files raise AvroError (or read), never crash/hang."""
    rng = random.Random(11)
    files = sorted(INTEROP.rglob("*.avro"))[:40]
    for path in files:
        data = bytearray(path.read_bytes())
        for _ in range(25):
            mutated = bytearray(data)
            if rng.random() < 0.5 and len(mutated) > 1:
                del mutated[rng.randrange(len(mutated)):]
            else:
                for _ in range(rng.randint(1, 4)):
                    mutated[rng.randrange(len(mutated))] ^= 1 << rng.randrange(8)
            try:
                for _ in avrokit.reader(bytes(mutated)):
                    pass
            except avrokit.AvroError:
                pass


def test_is_avro(tmp_path):
    p = tmp_path / "f.avro"
    avrokit.writer(str(p), SCHEMA, records(1))
    assert avrokit.is_avro(str(p)) and fastavro.is_avro(str(p))
    assert not avrokit.is_avro(io.BytesIO(b"nope"))


def test_threads_share_a_reader_and_read_files_side_by_side(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "t.avro"
    avrokit.writer(str(path), SCHEMA, records(20_000), codec="deflate", sync_interval=4000)
    shared = avrokit.reader(str(path))

    def drain(_):
        return [r["id"] for r in shared]

    with ThreadPoolExecutor(4) as pool:
        parts = list(pool.map(drain, range(4)))
    ids = sorted(i for p in parts for i in p)
    assert ids == list(range(20_000))

    def whole(_):
        return sum(1 for _ in avrokit.reader(str(path)))

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(whole, range(4))) == [20_000] * 4


def test_reentering_a_reader_is_an_error_not_a_deadlock():
    buf = io.BytesIO()
    avrokit.writer(buf, SCHEMA, records(10))
    data = buf.getvalue()
    holder = {}

    class Sneaky(io.RawIOBase):
        def __init__(self):
            self._b = io.BytesIO(data)
            self.armed = False

        def readable(self):
            return True

        def read(self, n=-1):
            if self.armed:
                self.armed = False
                next(holder["r"])
            return self._b.read(n)

    fo = Sneaky()
    r = avrokit.reader(fo)
    holder["r"] = r
    fo.armed = True
    with pytest.raises((RuntimeError, avrokit.AvroError)):
        list(r)


def test_a_str_with_a_scheme_is_a_url_never_a_file_name(tmp_path, monkeypatch):
    # `nope://x.avro` is also the relative path `nope:/x.avro`: a file there must not be
    # what is read or overwritten, with or without the object-store feature.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "nope:").mkdir()
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(SCHEMA), [{"id": 1, "text": "", "tags": []}])
    (tmp_path / "nope:" / "x.avro").write_bytes(buf.getvalue())
    url = "nope://x.avro"
    calls = [
        avrokit.reader, avrokit.block_reader, avrokit.is_avro,
        lambda u: avrokit.writer(u, SCHEMA, []),
    ]
    for call in calls:
        with pytest.raises(avrokit.AvroError) as e:
            call(url)
        msg = str(e.value)
        assert msg.startswith(url + ": "), msg
        if avrokit.OBJECT_STORE:
            assert "unknown URL scheme" in msg, msg
        else:
            assert "without the `object-store` feature" in msg, msg
    assert (tmp_path / "nope:" / "x.avro").read_bytes() == buf.getvalue()
