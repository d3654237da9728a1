"""Schema tools: parse_schema, canonical form and fingerprints (the corpus table), the
compatibility report, validate."""

import io
import json

import fastavro
import pytest

import avrokit
from conftest import DATA

FORMS = json.loads((DATA / "schemas" / "canonical-forms.json").read_text())


@pytest.mark.parametrize("case", FORMS, ids=[str(i) for i in range(len(FORMS))])
def test_canonical_form_and_fingerprints(case):
    s = case["schema"]
    assert avrokit.to_parsing_canonical_form(s) == case["canonical"]
    assert avrokit.fingerprint(s) == case["crc64_avro_hex_le"]
    assert avrokit.fingerprint(s, "MD5") == case["md5"]
    assert avrokit.fingerprint(s, "SHA-256") == case["sha256"]
    try:
        canonical = fastavro.schema.to_parsing_canonical_form(fastavro.parse_schema(s))
    except Exception:  # a schema fastavro rejects
        return
    assert avrokit.fingerprint(s) == fastavro.schema.fingerprint(canonical, "CRC-64-AVRO")


def test_parse_schema_gives_full_names_and_named_schemas_chain():
    named = {}
    a = avrokit.parse_schema({"type": "record", "name": "A", "namespace": "n",
                              "fields": [{"name": "x", "type": "int"}]}, named)
    assert a["name"] == "n.A" and "n.A" in named
    b = avrokit.parse_schema({"type": "record", "name": "B", "namespace": "n",
                              "fields": [{"name": "a", "type": "n.A"}]}, named)
    buf = avrokit._avrokit.encode_datum(avrokit._compiled(b), {"a": {"x": 3}})
    assert buf == b"\x06"
    assert avrokit.parse_schema(a) is a
    with pytest.raises(avrokit.AvroError, match="Missing|unknown|not defined"):
        avrokit.parse_schema({"type": "record", "name": "C", "fields": [{"name": "a", "type": "Missing"}]})


def test_compatibility_report():
    v1 = {"type": "record", "name": "U", "fields": [{"name": "id", "type": "int"}]}
    v2 = {"type": "record", "name": "U", "fields": [
        {"name": "id", "type": "long"}, {"name": "email", "type": "string", "default": ""}]}
    ok = avrokit.check_compatibility(v2, v1)  # v2 reads v1's data
    assert ok.compatible and ok.incompatibilities == []
    bad = avrokit.check_compatibility(v1, v2)  # v1 cannot read v2's longs
    assert not bad.compatible
    assert [(i.kind, i.path) for i in bad.incompatibilities] == [("TYPE_MISMATCH", "U.id")]
    v3 = dict(v2, fields=[v2["fields"][0], {"name": "email", "type": "string"}])
    missing = avrokit.check_compatibility(v3, v1)
    assert not missing.compatible and "email" in missing.incompatibilities[0].path


def test_validate_follows_fastavro():
    schema = {"type": "record", "name": "R", "fields": [
        {"name": "i", "type": "int"}, {"name": "u", "type": ["null", "string"]}]}
    cases = [{"i": 1, "u": None}, {"i": 1, "u": "s"}, {"i": "x", "u": None}, {"i": 2**40},
             {"i": True, "u": None}, {"u": "s"}, [], None]
    for c in cases:
        expected = fastavro.validate(c, fastavro.parse_schema(schema), raise_errors=False)
        assert avrokit.validate(c, schema, raise_errors=False) == expected, c
    with pytest.raises(avrokit.ValidationError):
        avrokit.validate({"i": "x"}, schema)
    assert isinstance(avrokit.ValidationError("x"), ValueError)


IDL = """
@namespace("demo")
protocol Shop {
  /** A thing for sale. */
  record Item { string name; long cents = 0; union { null, string } note = null; }
  enum Kind { A, B }
  Item lookup(string name);
}
"""


def test_idl_to_protocol():
    p = avrokit.idl_to_protocol(IDL)
    assert p["protocol"] == "Shop" and p["namespace"] == "demo"
    assert [t["name"] for t in p["types"]] == ["Item", "Kind"]
    assert p["types"][0]["doc"] == "A thing for sale."
    assert "lookup" in p["messages"]
    names = [s["name"] for s in avrokit.idl_named_schemas(IDL)]
    assert names == ["demo.Item", "demo.Kind"]
    with pytest.raises(avrokit.AvroError, match="no main schema"):
        avrokit.idl_to_schema(IDL)


def test_idl_to_schema_with_imports(tmp_path):
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "common.avdl").write_text(
        'namespace demo; record Money { long cents; string currency = "EUR"; }')
    main = tmp_path / "main.avdl"
    main.write_text('namespace demo;\nschema Order;\nimport idl "common.avdl";\n'
                    'record Order { long id; Money total; array<string> tags = []; }')
    with pytest.raises(avrokit.AvroError, match="common.avdl"):
        avrokit.idl_to_schema(main)
    schema = avrokit.idl_to_schema(main, import_dirs=[tmp_path / "lib"])
    assert schema["name"] == "demo.Order"
    assert [f["name"] for f in schema["fields"]] == ["id", "total", "tags"]
    # The result is a parsed schema: the writer takes it.
    buf = io.BytesIO()
    avrokit.writer(buf, schema, [{"id": 1, "total": {"cents": 5, "currency": "EUR"}, "tags": []}])
    assert list(avrokit.reader(io.BytesIO(buf.getvalue())))[0]["total"]["cents"] == 5
    assert avrokit.idl_to_schema(str(main), import_dirs=[str(tmp_path / "lib")]) == schema


def test_idl_errors_name_the_line_and_column():
    with pytest.raises(avrokit.AvroError) as err:
        avrokit.idl_to_protocol("protocol P {\n  record R { strin x; }\n}")
    assert ":2:" in str(err.value)
    with pytest.raises(TypeError):
        avrokit.idl_to_protocol(42)
    with pytest.raises(avrokit.AvroError, match="no-such.avdl"):
        avrokit.idl_to_protocol("no-such.avdl")
