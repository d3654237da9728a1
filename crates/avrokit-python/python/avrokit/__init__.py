"""Apache Avro for Python on avrokit's Rust core: a faster drop-in for fastavro.

The row API is fastavro's, so switching is a change of import::

    import avrokit as fastavro

    with open("weather.avro", "rb") as fo:
        for record in fastavro.reader(fo):
            ...

- :func:`reader`, :func:`block_reader`: object container files, record by record or block
  by block; ``fo`` is a path, bytes, any binary file object, or an object store URL
  (``s3://bucket/key``, ``gs://``, ``az://``, ``http(s)://``, ``file://``).
- :func:`writer`: writes (or, on a file opened ``a+b``, appends) any iterable of records, to
  a file or a URL (a multipart upload, aborted on failure).
- :func:`schemaless_reader`, :func:`schemaless_writer`: one datum without framing.
- :func:`json_reader`, :func:`json_writer`: Avro's JSON encoding, one datum per line.
- :func:`parse_schema`, :func:`validate`, :func:`validate_many`, :func:`is_avro`.
- Schema tools: :func:`to_parsing_canonical_form`, :func:`fingerprint`,
  :func:`check_compatibility`; Avro IDL with :func:`idl_to_schema`, :func:`idl_to_protocol`,
  :func:`idl_named_schemas`.
- Arrow: :func:`read_arrow` (a ``pyarrow.Table``), :func:`arrow_reader` (a
  ``pyarrow.RecordBatchReader``, for files larger than memory), :func:`write_arrow` (any
  Arrow table, batch or stream: pyarrow, polars...).

Values are the ones fastavro gives and takes (aware UTC ``datetime`` for timestamps,
``date``, ``time``, ``Decimal``, ``UUID``, ``bytes``...). Errors are :class:`AvroError`, a
``ValueError`` whose message names the byte offset and the path of the problem. The README
lists where avrokit deliberately differs from fastavro.
"""

from __future__ import annotations

import io
import json
import os
from collections import OrderedDict
from typing import Any, Dict, Iterable, Iterator, List, NamedTuple, Optional, Union

from . import _avrokit
from ._avrokit import AvroError

#: Whether this build reads and writes object store URLs (``s3://``, ``gs://``, ``az://``,
#: ``http(s)://``, ``file://``): the ``object-store`` feature, on in the default build.
OBJECT_STORE: bool = _avrokit.OBJECT_STORE

__all__ = [
    "AvroError",
    "OBJECT_STORE",
    "ValidationError",
    "SchemaParseException",
    "Block",
    "CompatibilityResult",
    "Writer",
    "arrow_reader",
    "block_reader",
    "check_compatibility",
    "fingerprint",
    "idl_named_schemas",
    "idl_to_protocol",
    "idl_to_schema",
    "is_avro",
    "json_reader",
    "json_writer",
    "parse_schema",
    "read_arrow",
    "reader",
    "schemaless_reader",
    "schemaless_writer",
    "to_parsing_canonical_form",
    "validate",
    "validate_many",
    "write_arrow",
    "writer",
]


class ValidationError(AvroError):
    """A datum that does not fit its schema (raised by :func:`validate`)."""


#: fastavro's name for schema errors; schema errors are :class:`AvroError`\\ s.
SchemaParseException = AvroError

_PARSED = "__avrokit__"


class _ParsedDict(dict):
    """A schema dict as :func:`parse_schema` returns it, carrying the compiled schema."""

    __slots__ = (_PARSED,)


class _ParsedList(list):
    __slots__ = (_PARSED,)


class _ParsedStr(str):
    __slots__ = (_PARSED,)


# Compiled schemas of plain (unparsed) schema objects, by their JSON text: passing the same
# dict to schemaless_reader in a loop compiles it once, not once per call.
_CACHE: "OrderedDict[str, _avrokit.Schema]" = OrderedDict()
_CACHE_SIZE = 128


def _schema_text(schema: Any) -> str:
    if isinstance(schema, str):
        stripped = schema.strip()
        if stripped.startswith(("{", "[", '"')):
            return stripped
        return json.dumps(schema)
    return json.dumps(schema, default=str)


def _compiled(schema: Any, named_schemas: Optional[Dict[str, Any]] = None) -> _avrokit.Schema:
    """The compiled form of any schema argument (parsed, plain dict/list/str, or compiled)."""
    if isinstance(schema, _avrokit.Schema):
        return schema
    c = getattr(schema, _PARSED, None)
    if c is not None:
        return c
    text = _schema_text(schema)
    if not named_schemas:
        c = _CACHE.get(text)
        if c is not None:
            _CACHE.move_to_end(text)
            return c
    c = _parse_text(text, named_schemas)
    if not named_schemas:
        _CACHE[text] = c
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return c


def _parse_text(text: str, named_schemas: Optional[Dict[str, Any]]) -> _avrokit.Schema:
    try:
        return _avrokit.Schema(text)
    except AvroError:
        if not named_schemas:
            raise
    # The schema names types defined by schemas parsed before it: parse them together.
    texts: List[str] = []
    for v in named_schemas.values():
        t = getattr(v, "_avrokit_text", None) or _schema_text(v)
        if t not in texts:
            texts.append(t)
    return _avrokit.Schema.parse_many(texts + [text])[-1]


def parse_schema(
    schema: Any,
    named_schemas: Optional[Dict[str, Any]] = None,
    *,
    expand: bool = False,
    _write_hint: bool = True,
    _force: bool = False,
    _ignore_default_error: bool = False,
) -> Any:
    """Parses and compiles a schema once, for use by every other function.

    ``schema`` is a dict, a list (a union), a type name, or JSON text. ``named_schemas``
    (fastavro's) collects the named types of schemas parsed one after the other, so that a
    later schema may refer to an earlier one's types by name. Returns the schema as a dict (or
    list, or str) with full names, carrying the compiled form: pass it to :func:`reader`,
    :func:`writer` and the rest to skip parsing again.

    Raises :class:`AvroError` for an invalid schema.
    """
    if getattr(schema, _PARSED, None) is not None and not _force:
        return schema
    text = _schema_text(schema)
    compiled = _parse_text(text, named_schemas)
    out = _wrap(json.loads(compiled.to_json()), compiled)
    if named_schemas is not None:
        for name in compiled.named_types():
            named_schemas.setdefault(name, _NamedEntry(text))
    return out


class _NamedEntry(dict):
    """A named_schemas entry: the text of the schema that defines the name."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._avrokit_text = text


_NAMED = ("record", "error", "enum", "fixed")


def _full_names(node: Any, ns: str = "") -> Any:
    """Named types' ``name`` as their full name, as fastavro's parse_schema gives them."""
    if isinstance(node, list):
        return [_full_names(x, ns) for x in node]
    if not isinstance(node, dict):
        return node
    out = dict(node)
    if out.get("type") in _NAMED and isinstance(out.get("name"), str):
        name = out["name"]
        ns = out.get("namespace", ns) or ""
        if "." in name:
            ns = name.rsplit(".", 1)[0]
        elif ns:
            name = f"{ns}.{name}"
        out["name"] = name
    for key in ("fields", "items", "values", "type"):
        if key in out and not isinstance(out[key], str):
            out[key] = _full_names(out[key], ns)
    return out


def _wrap(value: Any, compiled: _avrokit.Schema) -> Any:
    value = _full_names(value)
    if isinstance(value, dict):
        out: Any = _ParsedDict(value)
    elif isinstance(value, list):
        out = _ParsedList(value)
    else:
        out = _ParsedStr(value)
    setattr(out, _PARSED, compiled)
    return out


def _parsed_from_json(text: str) -> Any:
    compiled = _avrokit.Schema(text)
    return _wrap(json.loads(compiled.to_json()), compiled)


class reader:
    """Iterates over the records of an object container file (fastavro's ``reader``).

    ``fo`` is a path, bytes, a binary file object, or an object store URL (see
    :data:`OBJECT_STORE`): ``s3://bucket/key`` (configured from ``AWS_*`` environment
    variables: ``AWS_ENDPOINT_URL``, ``AWS_ACCESS_KEY_ID``, ``AWS_REGION``...),
    ``gs://`` (``GOOGLE_*``), ``az://`` (``AZURE_*``), ``http(s)://``, ``file://``. With
    ``reader_schema``, records are resolved to it (Avro schema resolution). Records are dicts;
    the attributes are ``writer_schema``, ``reader_schema``, ``metadata`` (str values),
    ``codec``.

    Blocks are read and decompressed without holding the GIL (for a URL: a HEAD, then one GET
    streamed ahead of the decoding). Raises :class:`AvroError` on malformed input, and for a
    URL on a missing object or a store that fails (the message starts with the URL).
    """

    def __init__(
        self,
        fo: Any,
        reader_schema: Any = None,
        return_record_name: bool = False,
        return_record_name_override: bool = False,
        handle_unicode_errors: str = "strict",
        return_named_type: bool = False,
        return_named_type_override: bool = False,
    ) -> None:
        self._reader_schema_arg = reader_schema
        compiled = _compiled(reader_schema) if reader_schema is not None else None
        self._r = _avrokit.Reader(
            fo,
            compiled,
            return_record_name,
            return_record_name_override,
            return_named_type,
            return_named_type_override,
            handle_unicode_errors,
        )
        self.metadata: Dict[str, str] = {
            k: v.decode("utf-8", "replace") for k, v in self._r.metadata.items()
        }
        self.codec: str = self._r.codec
        self._writer_schema: Any = None
        self.reader_schema: Any = (
            parse_schema(reader_schema) if reader_schema is not None else None
        )

    @property
    def writer_schema(self) -> Any:
        """The file's schema, parsed (full names)."""
        if self._writer_schema is None:
            self._writer_schema = _parsed_from_json(self._r.writer_schema_json)
        return self._writer_schema

    @property
    def schema(self) -> Any:
        """The file's schema (fastavro's deprecated alias of ``writer_schema``)."""
        return self.writer_schema

    def __iter__(self) -> Iterator[Any]:
        return self._r

    def __next__(self) -> Any:
        return next(self._r)


class Block:
    """One block of a container file: its records, count, codec, offset and stored size."""

    def __init__(self, records: List[Any], num_records: int, codec: str, offset: int, size: int,
                 writer_schema: Any, reader_schema: Any) -> None:
        self._records = records
        self.num_records = num_records
        self.codec = codec
        self.offset = offset
        self.size = size
        self.writer_schema = writer_schema
        self.reader_schema = reader_schema

    def __iter__(self) -> Iterator[Any]:
        return iter(self._records)

    def __len__(self) -> int:
        return self.num_records

    def __str__(self) -> str:
        return (f"Avro block: {self.num_records} records, codec: {self.codec}, "
                f"position {self.offset}+{self.size}")


class block_reader(reader):
    """Iterates over the blocks of a container file (fastavro's ``block_reader``)."""

    def __iter__(self) -> Iterator[Block]:  # type: ignore[override]
        return self

    def __next__(self) -> Block:  # type: ignore[override]
        b = self._r.next_block()
        if b is None:
            raise StopIteration
        records, count, offset, size = b
        return Block(records, count, self.codec, offset, size, self.writer_schema, self.reader_schema)


def writer(
    fo: Any,
    schema: Any,
    records: Iterable[Any],
    codec: str = "null",
    sync_interval: int = 1000 * 16,
    metadata: Optional[Dict[str, str]] = None,
    validator: bool = False,
    sync_marker: Optional[bytes] = None,
    codec_compression_level: Optional[int] = None,
    *,
    strict: bool = False,
    strict_allow_default: bool = False,
    disable_tuple_notation: bool = False,
) -> None:
    """Writes ``records`` (any iterable, generators included) to an object container file.

    ``fo`` is a binary file object, a path, or an object store URL (as for :class:`reader`).
    A file object opened ``a+b`` that already holds a container file is appended to, keeping
    its schema, codec and sync marker (``schema`` is then ignored), as fastavro does. Blocks
    are about ``sync_interval`` bytes before compression, and compress without holding the
    GIL.

    If a record cannot be written, the records before it are still written to a file as
    complete blocks, and :class:`AvroError` is raised naming the record and the path in it.
    A URL is written through a multipart upload: the object appears only once every record
    is written, and any failure aborts the upload (no object, no upload left behind).
    """
    if isinstance(records, dict):
        raise ValueError('"records" argument should be an iterable, not dict')
    append = _appending(fo)
    compiled = _compiled(schema) if (schema is not None or not append) else None
    if compiled is None:
        compiled = _avrokit.Schema('"null"')
    if validator:
        records = _validated(records, compiled, strict, disable_tuple_notation)
    _avrokit.write_container(
        fo,
        compiled,
        records,
        codec,
        codec_compression_level,
        sync_interval,
        metadata,
        sync_marker,
        append,
        strict,
        strict_allow_default,
        disable_tuple_notation,
    )


class Writer:
    """fastavro's incremental writer: ``write(record)`` one at a time; ``flush()`` ends the
    current block and leaves a valid file; ``close()`` (or leaving a ``with`` block) finishes.
    A file object opened ``a+b`` that holds a container file is appended to.

    ``fo`` may be an object store URL: the object appears at ``close()``; leaving a ``with``
    block by an exception, or dropping the writer unclosed, aborts the upload instead."""

    def __init__(
        self,
        fo: Any,
        schema: Any,
        codec: str = "null",
        sync_interval: int = 1000 * 16,
        metadata: Optional[Dict[str, str]] = None,
        validator: bool = False,
        sync_marker: Optional[bytes] = None,
        compression_level: Optional[int] = None,
        options: Optional[Dict[str, bool]] = None,
    ) -> None:
        options = options or {}
        append = _appending(fo)
        self._strict = bool(options.get("strict"))
        self._disable_tuple = bool(options.get("disable_tuple_notation"))
        self._compiled = _compiled(schema) if schema is not None else _avrokit.Schema('"null"')
        self._validator = validator
        self._w = _avrokit.ContainerWriter(
            fo, self._compiled, codec, compression_level, sync_interval, metadata, sync_marker,
            append, self._strict, bool(options.get("strict_allow_default")), self._disable_tuple)

    def write(self, record: Any) -> None:
        """Appends one record (checked first when the writer was made with ``validator``)."""
        if self._validator and not _avrokit.validate(record, self._compiled, self._strict,
                                                     self._disable_tuple):
            raise ValidationError(f"{record!r} does not fit the schema")
        self._w.write(record)

    def write_block(self, block: Iterable[Any]) -> None:
        """Appends every record of ``block``."""
        for record in block:
            self.write(record)

    def flush(self) -> None:
        """Ends the current block, so that a file holds every record written so far (a URL's
        object still appears only at ``close()``)."""
        self._w.flush()

    def close(self) -> None:
        """Writes the last block and finishes the file; a URL's object then appears."""
        self._w.close()

    def __enter__(self) -> "Writer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._w.close(exc[0] is not None)


def _appending(fo: Any) -> bool:
    if isinstance(fo, str) or hasattr(fo, "__fspath__") or not hasattr(fo, "seekable"):
        return False
    if fo.seekable() and fo.tell() != 0:
        if getattr(fo, "name", "") == "<stdout>":
            return False
        if fo.readable():
            return True
        raise ValueError("When appending to an avro file you must use the 'a+' mode, not just 'a'")
    return False


def _validated(records: Iterable[Any], compiled: _avrokit.Schema, strict: bool,
               disable_tuple_notation: bool) -> Iterator[Any]:
    for r in records:
        if not _avrokit.validate(r, compiled, strict, disable_tuple_notation):
            raise ValidationError(f"{r!r} does not fit the schema")
        yield r


schemaless_writer = _avrokit.schemaless_writer
schemaless_reader = _avrokit.schemaless_reader


def json_writer(
    fo: Any,
    schema: Any,
    records: Iterable[Any],
    *,
    write_union_type: bool = True,
    validator: bool = False,
    encoder: Any = None,
    strict: bool = False,
    strict_allow_default: bool = False,
    disable_tuple_notation: bool = False,
) -> None:
    """Writes records in Avro's JSON encoding to a text file object, one per line."""
    compiled = _compiled(schema)
    if isinstance(records, dict):
        raise ValueError('"records" argument should be an iterable, not dict')
    for r in records:
        if validator and not _avrokit.validate(r, compiled, strict, disable_tuple_notation):
            raise ValidationError(f"{r!r} does not fit the schema")
        fo.write(_avrokit.json_encode(compiled, r, strict, strict_allow_default,
                                      disable_tuple_notation))
        fo.write("\n")


def json_reader(fo: Any, schema: Any, reader_schema: Any = None, *, decoder: Any = None) -> Iterator[Any]:
    """Iterates over the records of Avro JSON text (one datum per line), from a text file
    object or a str."""
    w = _compiled(schema)
    r = _compiled(reader_schema) if reader_schema is not None else None
    lines = fo.splitlines() if isinstance(fo, str) else fo
    for line in lines:
        if isinstance(line, bytes):
            line = line.decode("utf-8")
        if line.strip():
            yield _avrokit.json_decode(line, w, r)


def validate(
    datum: Any,
    schema: Any,
    field: str = "",
    raise_errors: bool = True,
    strict: bool = False,
    disable_tuple_notation: bool = False,
) -> bool:
    """Whether ``datum`` fits ``schema`` by fastavro's rules; raises :class:`ValidationError`
    when it does not and ``raise_errors`` is set."""
    ok = _avrokit.validate(datum, _compiled(schema), strict, disable_tuple_notation)
    if not ok and raise_errors:
        where = f" on field {field}" if field else ""
        raise ValidationError(f"{datum!r} does not fit the schema{where}")
    return ok


def validate_many(records: Iterable[Any], schema: Any, raise_errors: bool = True,
                  strict: bool = False, disable_tuple_notation: bool = False) -> bool:
    """:func:`validate` over many records: True when every one fits."""
    compiled = _compiled(schema)
    ok = True
    for i, r in enumerate(records):
        if not _avrokit.validate(r, compiled, strict, disable_tuple_notation):
            if raise_errors:
                raise ValidationError(f"record {i} ({r!r}) does not fit the schema")
            ok = False
    return ok


def is_avro(path_or_buffer: Any) -> bool:
    """Whether a path, object store URL or binary file object starts with the container file
    magic (a missing file or object is not one; a failing store raises :class:`AvroError`)."""
    return _avrokit.is_avro(path_or_buffer)


def to_parsing_canonical_form(schema: Any) -> str:
    """The schema's Parsing Canonical Form (the specification's)."""
    return _compiled(schema).canonical_form()


def fingerprint(schema: Any, algorithm: str = "CRC-64-AVRO") -> str:
    """The fingerprint of the schema's canonical form, as hex: ``CRC-64-AVRO`` (of its
    little-endian bytes, as single-object encoding writes them), ``MD5`` or ``SHA-256``.
    ``schema`` may also be canonical form text."""
    return _compiled(schema).fingerprint(algorithm).hex()


class Incompatibility(NamedTuple):
    """One reason a reader cannot read a writer's data: kind, path and message."""

    kind: str
    path: str
    message: str


class CompatibilityResult(NamedTuple):
    """The result of :func:`check_compatibility`."""

    compatible: bool
    incompatibilities: List[Incompatibility]


def check_compatibility(reader_schema: Any, writer_schema: Any) -> CompatibilityResult:
    """Whether data written with ``writer_schema`` can be read with ``reader_schema``, with
    every incompatibility found (its kind, the path in the schemas, and a message)."""
    ok, found = _avrokit.check_compatibility(_compiled(reader_schema), _compiled(writer_schema))
    return CompatibilityResult(ok, [Incompatibility(*i) for i in found])


# --- Avro IDL -----------------------------------------------------------------------------


def _idl(idl: Any, import_dirs: Iterable[Any]) -> Any:
    dirs = [os.fspath(d) for d in import_dirs]
    if isinstance(idl, bytes):
        idl = idl.decode("utf-8")
    # A str is a path when it names a file (or looks like a file name: a missing one is then
    # reported as missing, not as IDL text that does not parse).
    is_path = hasattr(idl, "__fspath__") or (
        isinstance(idl, str) and "\n" not in idl and "{" not in idl
        and (os.path.isfile(idl) or idl.rstrip().endswith(".avdl")))
    if is_path:
        return _avrokit.parse_idl(path=os.fspath(idl), import_dirs=dirs)
    if not isinstance(idl, str):
        raise TypeError(f"expected IDL text or a path, not {type(idl).__name__}")
    return _avrokit.parse_idl(text=idl, import_dirs=dirs, base_dir=os.getcwd())


def idl_to_protocol(idl: Any, import_dirs: Iterable[Any] = ()) -> Dict[str, Any]:
    """The protocol an Avro IDL file (in protocol syntax) defines, as the dict ``avro-tools
    idl`` writes as ``.avpr`` JSON.

    ``idl`` is the IDL text or a path to a ``.avdl`` file. Imports are looked up relative to
    the importing file (for text: the current directory), then in each of ``import_dirs``.
    Raises :class:`AvroError` naming the file, line and column of the problem.
    """
    protocol, _, _, _ = _idl(idl, import_dirs)
    if protocol is None:
        raise AvroError("the IDL is in schema syntax and defines no protocol "
                        "(see idl_to_schema and idl_named_schemas)")
    return json.loads(protocol)


def idl_to_schema(idl: Any, import_dirs: Iterable[Any] = ()) -> Any:
    """The main schema (``schema T;``) of an Avro IDL file in schema syntax, parsed as by
    :func:`parse_schema` (ready for :func:`writer` and the rest).

    ``idl`` and ``import_dirs`` are as for :func:`idl_to_protocol`. A file that declares no
    main schema (or a protocol) raises :class:`AvroError`: its types are in
    :func:`idl_named_schemas`.
    """
    _, main, _, _ = _idl(idl, import_dirs)
    if main is None:
        raise AvroError("the IDL declares no main schema (`schema T;`); "
                        "idl_named_schemas gives each of its named types")
    return _parsed_from_json(main)


def idl_named_schemas(idl: Any, import_dirs: Iterable[Any] = ()) -> List[Any]:
    """Every named type an Avro IDL file defines or imports, in definition order, each
    parsed as by :func:`parse_schema` (what ``avro-tools idl2schemata`` writes, one ``.avsc``
    each)."""
    _, _, named, _ = _idl(idl, import_dirs)
    return [_parsed_from_json(t) for t in named]


# --- Arrow --------------------------------------------------------------------------------

#: The default number of rows in a batch of :func:`read_arrow` and :func:`arrow_reader`.
DEFAULT_BATCH_SIZE = 8192


def _columns(columns: Any) -> Optional[List[str]]:
    if columns is None:
        return None
    if isinstance(columns, str):
        return [columns]
    return [str(c) for c in columns]


def read_arrow(
    fo: Any,
    columns: Optional[Iterable[str]] = None,
    reader_schema: Any = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    threads: Optional[int] = None,
    *,
    utf8_view: bool = False,
    stream: bool = False,
) -> Any:
    """Reads a whole object container file into a ``pyarrow.Table``.

    ``fo`` is a path, bytes (read in place), a binary file object, or an object store URL
    (as for :class:`reader`: a HEAD, then one GET streamed ahead of the decoding). ``columns`` selects
    fields by name, or by dotted path into nested records (``"user.name"``, through nullable
    unions, array items and map values); the other fields are skipped, never decoded.
    ``reader_schema`` resolves the data to that schema (Avro schema resolution). The table's
    chunks hold at most ``batch_size`` rows. Blocks are decoded on ``threads`` threads, by
    default (``None``) one per core this process may use, at most 8, as pyarrow's readers
    do; ``threads=1`` keeps the work on the calling thread. The table is the same either way. ``utf8_view`` gives strings as ``string_view`` rather than
    ``string``. With ``stream=True`` this is :func:`arrow_reader`.

    The Arrow types are avrokit-arrow's (the README's table: ``enum`` as a dictionary,
    ``uuid`` as 16 bytes, timestamps in their unit with UTC...); the schema's metadata keeps
    the Avro schema under ``avro.schema``. The GIL is released while blocks are read,
    decompressed and decoded. The batches cross by the Arrow C data interface: no copy.

    Raises :class:`AvroError` (with the block, record, byte offset and column) on malformed
    data, a reader schema that does not resolve, or a type with no Arrow form (a recursive
    record, unless projected away).
    """
    if stream:
        return arrow_reader(fo, columns, reader_schema, batch_size, threads, utf8_view=utf8_view)
    compiled = _compiled(reader_schema) if reader_schema is not None else None
    return _avrokit.read_arrow(fo, _columns(columns), compiled, batch_size, threads, utf8_view)


def arrow_reader(
    fo: Any,
    columns: Optional[Iterable[str]] = None,
    reader_schema: Any = None,
    batch_size: int = DEFAULT_BATCH_SIZE,
    threads: Optional[int] = None,
    *,
    utf8_view: bool = False,
) -> Any:
    """Reads an object container file as a ``pyarrow.RecordBatchReader``: batches of at
    most ``batch_size`` rows, decoded as they are asked for, so that files larger than memory
    can be scanned (memory is bounded by a few batches and blocks).

    The arguments are :func:`read_arrow`'s. Each batch is decoded without the GIL.
    ``polars.from_arrow`` and anything else that takes an Arrow C stream take the
    reader (by its ``__arrow_c_stream__``). An error in the file raises :class:`AvroError` from the
    ``read_next_batch`` (or iteration) that meets it.
    """
    import pyarrow

    compiled = _compiled(reader_schema) if reader_schema is not None else None
    batches = _avrokit.ArrowStream(fo, _columns(columns), compiled, batch_size, threads, utf8_view)
    return pyarrow.RecordBatchReader.from_batches(batches.schema, batches)


def write_arrow(
    data: Any,
    fo: Any,
    schema: Any = None,
    codec: str = "null",
    codec_compression_level: Optional[int] = None,
    sync_interval: int = 1000 * 16,
    metadata: Optional[Dict[str, str]] = None,
    sync_marker: Optional[bytes] = None,
) -> int:
    """Writes Arrow data to an object container file; returns the number of records.

    ``data`` is anything that exports the Arrow PyCapsule interface: a ``pyarrow.Table``,
    ``RecordBatch`` or ``RecordBatchReader``, a polars ``DataFrame``...
    (or has ``to_arrow()``). A stream is written batch by batch, in bounded memory. ``fo``
    is a path, a binary file object or an object store URL.

    The Avro schema is ``schema`` when given (checked: every Avro field needs a column whose
    type converts to it); else the one in the Arrow schema's ``avro.schema`` metadata (data
    that :func:`read_arrow` read) when the columns still fit it; else one derived from the
    Arrow types (the root record ``topLevelRecord``, nullable columns as ``["null", T]``).
    ``codec``, ``codec_compression_level``, ``sync_interval``, ``metadata`` and
    ``sync_marker`` are :func:`writer`'s; ``fo`` may be an object store URL, as for
    :func:`writer`. The GIL is released while batches are encoded and blocks compressed (and
    while parts upload).

    Raises :class:`AvroError` for an Arrow type with no Avro form, a schema that does not fit,
    or a value that does not (a null in a non-null field...); what was written to a file
    before a failure is a readable file of complete blocks, and a URL's upload is aborted.
    """
    if not (hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__")):
        if hasattr(data, "to_arrow"):
            data = data.to_arrow()
        else:
            raise TypeError(f"expected Arrow data (an object with __arrow_c_stream__ or "
                            f"__arrow_c_array__), not {type(data).__name__}")
    compiled = _compiled(schema) if schema is not None else None
    return _avrokit.write_arrow(data, fo, compiled, codec, codec_compression_level,
                                sync_interval, metadata, sync_marker)
