"""fastavro.read's names (``from avrokit.read import reader``)."""

from . import AvroError, Block, block_reader, reader, schemaless_reader, is_avro  # noqa: F401

SchemaResolutionError = AvroError
