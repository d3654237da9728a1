"""fastavro.write's names (``from avrokit.write import Writer, writer``)."""

from . import Writer, schemaless_writer, writer  # noqa: F401
