"""fastavro.validation's names."""

from . import ValidationError, validate, validate_many  # noqa: F401
