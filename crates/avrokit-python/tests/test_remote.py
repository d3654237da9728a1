"""`fo` as an object store URL (`s3://bucket/key`), against moto's S3 server on 127.0.0.1.

The server is started by this module (`python -m moto.server`, PyPI's `moto[server]`) and
stopped at its end; the store is configured as users configure it, from `AWS_*` environment
variables. Without moto the tests skip, unless `CI` is set: then they fail, so that CI never
passes without having run them (as the Rust tests of avrokit-object-store do).
"""

import io
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
import uuid

import pytest

import avrokit
from avrokit import _avrokit

from conftest import same

fastavro = pytest.importorskip("fastavro")

if not _avrokit.OBJECT_STORE:
    pytest.skip("this build has no object-store feature", allow_module_level=True)

SCHEMA = {
    "type": "record",
    "name": "Event",
    "fields": [
        {"name": "id", "type": "long"},
        {"name": "name", "type": "string"},
        {"name": "tag", "type": ["null", "string"]},
        {"name": "score", "type": "double"},
        {"name": "blob", "type": "bytes"},
    ],
}


def records(n, blob=b"\x00\x01"):
    return [
        {"id": i, "name": f"event {i}", "tag": None if i % 3 else f"t{i}", "score": i / 7,
         "blob": blob}
        for i in range(n)
    ]


def avro_bytes(recs, codec="null", sync_interval=4000):
    buf = io.BytesIO()
    fastavro.writer(buf, fastavro.parse_schema(SCHEMA), recs, codec=codec,
                    sync_interval=sync_interval)
    return buf.getvalue()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Moto:
    """moto's S3 server in a child process, and plain HTTP requests to it (moto checks no
    signatures unless told to)."""

    def __init__(self, env=None):
        self.port = free_port()
        self.endpoint = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=dict(os.environ, **(env or {})))
        deadline = time.monotonic() + 60
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"moto's server exited: {self.proc.stderr.read().decode()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("moto's server did not listen within 60 s")
                time.sleep(0.1)

    def stop(self):
        self.proc.kill()
        self.proc.wait()

    def request(self, method, target, data=None):
        # urllib labels a body form data by default, and moto's server then parses (and, for a
        # binary body of some KiB, hangs on) it instead of storing it.
        headers = {} if data is None else {"Content-Type": "application/octet-stream"}
        req = urllib.request.Request(self.endpoint + target, data=data, method=method,
                                     headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()

    def bucket(self):
        name = f"py-{uuid.uuid4().hex[:12]}"
        status, body = self.request("PUT", f"/{name}")
        assert status == 200, body
        return name

    def put(self, bucket, key, data):
        status, body = self.request("PUT", f"/{bucket}/{key}", data)
        assert status == 200, body

    def get(self, bucket, key):
        """The object's bytes, or None when there is none."""
        status, body = self.request("GET", f"/{bucket}/{key}")
        if status == 404:
            return None
        assert status == 200, body
        return body

    def uploads_in_progress(self, bucket):
        status, body = self.request("GET", f"/{bucket}?uploads")
        assert status == 200, body
        return body.count(b"<UploadId>")


def start_moto(env=None):
    try:
        import moto.server  # noqa: F401
    except ImportError as e:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"moto's server is not installed ({e}): pip install 'moto[server]'")
    return Moto(env)


@pytest.fixture(scope="module")
def server():
    m = start_moto()
    yield m
    m.stop()


def use(monkeypatch, endpoint, key="test"):
    """The environment object_store's S3 builder reads (as the CLI's users set it)."""
    for k in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT", "AWS_DEFAULT_REGION"):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.setenv("AWS_ENDPOINT_URL", endpoint)
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", key)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", key)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ALLOW_HTTP", "true")


@pytest.fixture
def s3(server, monkeypatch):
    use(monkeypatch, server.endpoint)
    return server


@pytest.mark.parametrize("codec", ["null", "deflate", "zstandard"])
def test_reader_and_block_reader_read_an_object_as_fastavro_reads_its_bytes(s3, codec):
    b = s3.bucket()
    data = avro_bytes(records(3000), codec)
    s3.put(b, "in/events.avro", data)
    url = f"s3://{b}/in/events.avro"

    r = avrokit.reader(url)
    expected = list(fastavro.reader(io.BytesIO(data)))
    same(list(r), expected)
    assert r.codec == codec
    assert r.writer_schema["name"] == "Event"
    assert r.metadata["avro.codec"] == codec

    blocks = list(avrokit.block_reader(url))
    assert len(blocks) > 1
    same([rec for blk in blocks for rec in blk], expected)
    assert sum(blk.num_records for blk in blocks) == 3000

    assert avrokit.is_avro(url)


def test_read_arrow_and_arrow_reader_read_an_object_as_its_bytes(s3):
    b = s3.bucket()
    data = avro_bytes(records(5000), "deflate")
    s3.put(b, "t.avro", data)
    url = f"s3://{b}/t.avro"
    local = avrokit.read_arrow(data)
    assert avrokit.read_arrow(url).equals(local)
    assert avrokit.read_arrow(url, threads=2, batch_size=1000).equals(local)
    assert avrokit.read_arrow(url, columns=["id", "tag"]).equals(local.select(["id", "tag"]))
    import pyarrow

    # On one thread the batches are cut at exactly batch_size rows; on several (the default)
    # each is whole blocks, so no longer than batch_size.
    batches = list(avrokit.arrow_reader(url, batch_size=700, threads=1))
    assert max(len(x) for x in batches) == 700
    assert pyarrow.Table.from_batches(batches).equals(local.combine_chunks())
    batches = list(avrokit.arrow_reader(url, batch_size=700))
    assert max(len(x) for x in batches) <= 700
    assert pyarrow.Table.from_batches(batches).equals(local.combine_chunks())
    polars = pytest.importorskip("polars")
    df = polars.from_arrow(avrokit.arrow_reader(url))
    assert df.height == 5000


@pytest.mark.parametrize("codec", ["null", "snappy", "zstandard"])
def test_writer_uploads_an_object_fastavro_reads(s3, codec):
    b = s3.bucket()
    url = f"s3://{b}/out/w.avro"
    recs = records(4000)
    avrokit.writer(url, avrokit.parse_schema(SCHEMA), iter(recs), codec=codec,
                   metadata={"who": "test"})
    data = s3.get(b, "out/w.avro")
    assert data is not None
    r = fastavro.reader(io.BytesIO(data))
    assert r.metadata["who"] == "test"
    same(list(r), recs)
    assert s3.uploads_in_progress(b) == 0


def test_a_write_of_several_parts_reads_back(s3):
    # More than two 8 MiB parts, so that parts upload while records are still encoded.
    b = s3.bucket()
    url = f"s3://{b}/big.avro"
    blob = bytes(range(256)) * 40
    n = 2200
    avrokit.writer(url, SCHEMA, (r for r in records(n, blob)), sync_interval=1 << 20)
    data = s3.get(b, "big.avro")
    assert len(data) > 20 << 20
    assert sum(1 for _ in avrokit.reader(url)) == n
    assert avrokit.read_arrow(url).num_rows == n
    same(list(fastavro.reader(io.BytesIO(data)))[-1], records(n, blob)[-1])


def test_incremental_writer_commits_on_close_and_aborts_on_an_exception(s3):
    b = s3.bucket()
    with avrokit.Writer(f"s3://{b}/inc.avro", avrokit.parse_schema(SCHEMA), codec="deflate") as w:
        for r in records(10):
            w.write(r)
        w.flush()
        assert s3.get(b, "inc.avro") is None  # not visible before it is finished
    same(list(fastavro.reader(io.BytesIO(s3.get(b, "inc.avro")))), records(10))

    with pytest.raises(RuntimeError):
        with avrokit.Writer(f"s3://{b}/failed.avro", SCHEMA) as w:
            w.write(records(1)[0])
            raise RuntimeError("stop")
    assert s3.get(b, "failed.avro") is None
    assert s3.uploads_in_progress(b) == 0

    w = avrokit.Writer(f"s3://{b}/dropped.avro", SCHEMA)
    w.write(records(1)[0])
    del w  # never closed: aborted
    assert s3.get(b, "dropped.avro") is None
    assert s3.uploads_in_progress(b) == 0


def test_a_failed_write_leaves_no_object_and_no_upload(s3):
    b = s3.bucket()
    bad = records(5000) + [{"id": "not a long"}]
    with pytest.raises(avrokit.AvroError, match=r"record 5000"):
        avrokit.writer(f"s3://{b}/bad.avro", SCHEMA, bad, sync_interval=1000)
    assert s3.get(b, "bad.avro") is None
    assert s3.uploads_in_progress(b) == 0

    def failing():
        yield from records(100)
        raise KeyError("the generator failed")

    with pytest.raises(KeyError):
        avrokit.writer(f"s3://{b}/gen.avro", SCHEMA, failing())
    assert s3.get(b, "gen.avro") is None
    assert s3.uploads_in_progress(b) == 0


def test_write_arrow_uploads_and_aborts(s3):
    import pyarrow

    b = s3.bucket()
    table = avrokit.read_arrow(avro_bytes(records(3000)))
    assert avrokit.write_arrow(table, f"s3://{b}/t.avro", codec="zstandard") == 3000
    assert avrokit.read_arrow(f"s3://{b}/t.avro").equals(table)
    same(list(fastavro.reader(io.BytesIO(s3.get(b, "t.avro")))), records(3000))

    # A null in a field the schema says is not nullable: nothing appears.
    nulls = pyarrow.table({"x": pyarrow.array([1, None, 3], pyarrow.int64())})
    schema = {"type": "record", "name": "R", "fields": [{"name": "x", "type": "long"}]}
    with pytest.raises(avrokit.AvroError):
        avrokit.write_arrow(nulls, f"s3://{b}/nulls.avro", schema=schema)
    assert s3.get(b, "nulls.avro") is None
    assert s3.uploads_in_progress(b) == 0


def test_a_missing_object_or_bucket_is_an_avro_error_naming_the_url(s3):
    b = s3.bucket()
    url = f"s3://{b}/missing.avro"
    for call in (avrokit.reader, avrokit.block_reader, avrokit.read_arrow, avrokit.arrow_reader):
        with pytest.raises(avrokit.AvroError) as e:
            call(url)
        msg = str(e.value)
        assert msg.startswith(url + ": ") and "not found" in msg.lower(), msg
    assert not avrokit.is_avro(url)
    with pytest.raises(avrokit.AvroError, match="no-such-bucket"):
        avrokit.reader("s3://no-such-bucket-avrokit/x.avro")
    with pytest.raises(avrokit.AvroError, match="no-such-bucket"):
        avrokit.writer("s3://no-such-bucket-avrokit/x.avro", SCHEMA, records(3))


def test_an_object_that_is_not_avro(s3):
    b = s3.bucket()
    s3.put(b, "text.txt", b"hello, world")
    url = f"s3://{b}/text.txt"
    assert not avrokit.is_avro(url)
    with pytest.raises(avrokit.AvroError, match="magic"):
        avrokit.reader(url)
    with pytest.raises(avrokit.AvroError):
        avrokit.read_arrow(url)


def test_bad_credentials_are_an_avro_error(monkeypatch):
    # A server that checks credentials (moto's IAM enforcement from the first request on):
    # the key "test" is not one it knows.
    m = start_moto({"INITIAL_NO_AUTH_ACTION_COUNT": "0"})
    try:
        use(monkeypatch, m.endpoint)
        url = "s3://bucket/key.avro"
        with pytest.raises(avrokit.AvroError) as e:
            avrokit.reader(url)
        assert str(e.value).startswith(url) and "403" in str(e.value), str(e.value)
        with pytest.raises(avrokit.AvroError) as e:
            avrokit.read_arrow(url)
        assert "403" in str(e.value)
        with pytest.raises(avrokit.AvroError) as e:
            avrokit.writer(url, SCHEMA, records(3))
        assert "InvalidAccessKeyId" in str(e.value) or "403" in str(e.value), str(e.value)
    finally:
        m.stop()


def test_urls_in_the_local_file_store(tmp_path):
    # `file://` URLs go through the same object store code, without a server.
    url = (tmp_path / "f.avro").as_uri()
    avrokit.writer(url, SCHEMA, records(100), codec="deflate")
    same(list(avrokit.reader(url)), records(100))
    assert avrokit.read_arrow(url).num_rows == 100
    assert avrokit.is_avro(url)
    same(list(fastavro.reader(open(tmp_path / "f.avro", "rb"))), records(100))


def test_the_gil_is_released_while_waiting_for_the_store(monkeypatch):
    # The server runs in this process, on a Python thread: every request it answers needs
    # the GIL, so a read or write that held it while waiting for an answer would get none
    # (and fail on the request timeout). A second thread also counts the turns it gets while
    # the big reads and writes run.
    pytest.importorskip("moto")
    from moto.server import ThreadedMotoServer

    port = free_port()
    srv = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    srv.start()
    try:
        use(monkeypatch, f"http://127.0.0.1:{port}")
        req = urllib.request.Request(f"http://127.0.0.1:{port}/inproc", method="PUT")
        urllib.request.urlopen(req, timeout=30).close()
        url = "s3://inproc/x.avro"
        ticks = []
        stop = threading.Event()

        def tick():
            while not stop.is_set():
                ticks.append(1)
                time.sleep(0.001)

        turns = {}

        def counting(name, call):
            before = len(ticks)
            result = call()
            turns[name] = len(ticks) - before
            return result

        t = threading.Thread(target=tick)
        t.start()
        try:
            counting("writer", lambda: avrokit.writer(url, SCHEMA, records(20000),
                                                      codec="deflate"))
            assert counting("reader", lambda: sum(1 for _ in avrokit.reader(url))) == 20000
            assert counting("read_arrow", lambda: avrokit.read_arrow(url).num_rows) == 20000
            assert avrokit.is_avro(url)
            with avrokit.Writer("s3://inproc/y.avro", SCHEMA) as w:
                w.write(records(1)[0])
        finally:
            stop.set()
            t.join()
        assert all(n > 0 for n in turns.values()), turns
        assert sum(1 for _ in avrokit.reader("s3://inproc/y.avro")) == 1
    finally:
        srv.stop()


@pytest.mark.parametrize("url, says", [
    ("s4://bucket/x.avro", "unknown URL scheme `s4://`"),
    ("file://relative/x.avro", "only an absolute path"),
    ("s3:///x.avro", "needs a bucket"),
])
def test_a_url_that_names_no_store_is_an_avro_error_that_says_why(url, says):
    table = avrokit.read_arrow(avro_bytes(records(2)))
    calls = [
        avrokit.reader, avrokit.block_reader, avrokit.read_arrow, avrokit.arrow_reader,
        avrokit.is_avro,
        lambda u: avrokit.writer(u, SCHEMA, records(2)),
        lambda u: avrokit.Writer(u, SCHEMA),
        lambda u: avrokit.write_arrow(table, u),
    ]
    for call in calls:
        with pytest.raises(avrokit.AvroError) as e:
            call(url)
        msg = str(e.value)
        assert msg.startswith(url + ": ") and says in msg, msg
        assert msg.count(url) == 1, msg  # said once, not once per layer
        assert "s3://bucket/key" in msg, msg  # and the forms that would work


def test_plain_http_urls_read_and_refuse_writes_with_an_avro_error(s3):
    # moto answers unsigned path-style HEADs and GETs (what a plain HTTP server offers) of an
    # object written through its S3 API (not of one PUT unsigned: that one it keeps private).
    b = s3.bucket()
    avrokit.writer(f"s3://{b}/h.avro", SCHEMA, records(500), codec="deflate")
    url = f"{s3.endpoint}/{b}/h.avro"
    same(list(avrokit.reader(url)), records(500))
    assert avrokit.read_arrow(url).num_rows == 500
    assert avrokit.is_avro(url)
    with pytest.raises(avrokit.AvroError) as e:
        avrokit.writer(f"{s3.endpoint}/{b}/w.avro", SCHEMA, records(3))
    assert str(e.value).startswith(f"{s3.endpoint}/{b}/w.avro: "), str(e.value)
    assert s3.get(b, "w.avro") is None
