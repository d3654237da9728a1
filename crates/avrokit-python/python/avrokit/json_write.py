"""fastavro.json_write's names."""

from . import json_writer  # noqa: F401
