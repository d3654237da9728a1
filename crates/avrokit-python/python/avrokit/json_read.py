"""fastavro.json_read's names."""

from . import json_reader  # noqa: F401
