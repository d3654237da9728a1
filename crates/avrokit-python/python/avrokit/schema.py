"""fastavro.schema's names: parse_schema, to_parsing_canonical_form, fingerprint."""

from typing import Any

from . import SchemaParseException, parse_schema, to_parsing_canonical_form  # noqa: F401
from . import fingerprint as _fingerprint


def fingerprint(parsing_canonical_form: Any, algorithm: str) -> str:
    """The fingerprint (hex) of a canonical form, as fastavro.schema.fingerprint gives it."""
    return _fingerprint(parsing_canonical_form, algorithm)
