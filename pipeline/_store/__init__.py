"""Entities and the normalized store: values normalized by a schema into
records, results kept by request key and identity, and read back.

| module | holds |
|---|---|
| ``entity`` | ``Entity``: a typed, read-only record with a primary key |
| ``batch`` | what one response normalizes to |
| ``columns`` | a list of flat entities normalized column by column |
| ``store`` | normalizing by schema, the ``Store``, reading back |
| ``retention`` | what the store keeps: expiry and a byte bound |
| ``models`` | pydantic models, dataclasses and TypedDicts as schemas |
| ``model_records`` | models that declare a primary key, kept as records |
| ``unparsed`` | a JSON list of entities read straight from its bytes |

May import: _base.
"""
