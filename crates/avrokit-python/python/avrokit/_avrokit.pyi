"""Type stubs of avrokit's Rust extension module (see the package docs for the API).

Every ``fo`` that reads or writes a container file (``Reader``, ``write_container``,
``ContainerWriter``, ``is_avro``, ``read_arrow``, ``ArrowStream``, ``write_arrow``) may also
be an object store URL (``s3://bucket/key``, ``gs://``, ``az://``, ``http(s)://``,
``file://``) when ``OBJECT_STORE`` is true.
"""

from typing import Any, Dict, Iterable, List, Optional, Tuple

#: Whether this build reads and writes object store URLs (the ``object-store`` feature).
OBJECT_STORE: bool

class AvroError(ValueError):
    offset: Optional[int]
    path: str

class Schema:
    def __init__(self, json: str) -> None: ...
    @staticmethod
    def parse_many(jsons: List[str]) -> List["Schema"]: ...
    def to_json(self) -> str: ...
    def canonical_form(self) -> str: ...
    def fingerprint(self, algorithm: str = "CRC-64-AVRO") -> bytes: ...
    def named_types(self) -> List[str]: ...
    def min_size(self) -> int: ...

class Reader:
    writer_schema_json: str
    codec: str
    metadata: Dict[str, bytes]
    reader_schema_json: Optional[str]
    def __init__(
        self,
        fo: Any,
        reader_schema: Optional[Schema] = None,
        return_record_name: bool = False,
        return_record_name_override: bool = False,
        return_named_type: bool = False,
        return_named_type_override: bool = False,
        handle_unicode_errors: str = "strict",
    ) -> None: ...
    def __iter__(self) -> "Reader": ...
    def __next__(self) -> Any: ...
    def next_block(self) -> Optional[Tuple[List[Any], int, int, int]]: ...

def write_container(
    fo: Any,
    schema: Schema,
    records: Iterable[Any],
    codec: str = "null",
    codec_compression_level: Optional[int] = None,
    sync_interval: int = 16000,
    metadata: Optional[Dict[str, Any]] = None,
    sync_marker: Optional[bytes] = None,
    append: bool = False,
    strict: bool = False,
    strict_allow_default: bool = False,
    disable_tuple_notation: bool = False,
) -> int: ...
def check_compatibility(reader: Schema, writer: Schema) -> Tuple[bool, List[Tuple[str, str, str]]]: ...
def encode_datum(
    schema: Schema,
    datum: Any,
    strict: bool = False,
    strict_allow_default: bool = False,
    disable_tuple_notation: bool = False,
) -> bytes: ...
def schemaless_writer(
    fo: Any,
    schema: Any,
    record: Any,
    *,
    strict: bool = False,
    strict_allow_default: bool = False,
    disable_tuple_notation: bool = False,
) -> None: ...
def schemaless_reader(
    fo: Any,
    writer_schema: Any,
    reader_schema: Any = None,
    return_record_name: bool = False,
    return_record_name_override: bool = False,
    handle_unicode_errors: str = "strict",
    return_named_type: bool = False,
    return_named_type_override: bool = False,
) -> Any: ...
def json_decode(text: str, writer_schema: Schema, reader_schema: Optional[Schema] = None) -> Any: ...
def json_encode(
    schema: Schema,
    datum: Any,
    strict: bool = False,
    strict_allow_default: bool = False,
    disable_tuple_notation: bool = False,
) -> str: ...
def validate(datum: Any, schema: Schema, strict: bool = False, disable_tuple_notation: bool = False) -> bool: ...
def is_avro(fo: Any) -> bool: ...

class ContainerWriter:
    def __init__(
        self,
        fo: Any,
        schema: Schema,
        codec: str = "null",
        codec_compression_level: Optional[int] = None,
        sync_interval: int = 16000,
        metadata: Optional[Dict[str, Any]] = None,
        sync_marker: Optional[bytes] = None,
        append: bool = False,
        strict: bool = False,
        strict_allow_default: bool = False,
        disable_tuple_notation: bool = False,
    ) -> None: ...
    def write(self, record: Any) -> None: ...
    def flush(self) -> None: ...
    def close(self, failed: bool = False) -> None: ...

def parse_idl(
    text: Optional[str] = None,
    path: Optional[str] = None,
    import_dirs: List[str] = ...,
    base_dir: Optional[str] = None,
) -> Tuple[Optional[str], Optional[str], List[str], List[str]]: ...

# Arrow (pyarrow objects are typed Any: pyarrow is needed only by the functions that make them).

def read_arrow(
    fo: Any,
    columns: Optional[List[str]] = None,
    reader_schema: Optional[Schema] = None,
    batch_size: int = 8192,
    threads: Optional[int] = None,
    utf8_view: bool = False,
) -> Any: ...

class ArrowStream:
    writer_schema_json: str
    reader_schema_json: str
    codec: str
    def __init__(
        self,
        fo: Any,
        columns: Optional[List[str]] = None,
        reader_schema: Optional[Schema] = None,
        batch_size: int = 8192,
        threads: Optional[int] = None,
        utf8_view: bool = False,
    ) -> None: ...
    @property
    def schema(self) -> Any: ...
    def __iter__(self) -> "ArrowStream": ...
    def __next__(self) -> Any: ...
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def close(self) -> None: ...

def write_arrow(
    data: Any,
    fo: Any,
    schema: Optional[Schema] = None,
    codec: str = "null",
    codec_compression_level: Optional[int] = None,
    sync_interval: int = 16000,
    metadata: Optional[Dict[str, Any]] = None,
    sync_marker: Optional[bytes] = None,
) -> int: ...
