"""Entities and the normalized store: values normalized by a schema into
records, results kept per identity and request key, and read back.

| module | holds |
|---|---|
| ``entity`` | ``Entity``: a typed, read-only record with a primary key |
| ``models`` | pydantic models, dataclasses and TypedDicts as schemas (and as records, when they declare a primary key) |
| ``columns`` | a list of flat entities made into records column by column |
| ``schemas`` | each kind of schema as a plan: normalize, read back, find references; the ``Batch`` one response makes |
| ``deferred_parse`` | ``Unparsed``: a JSON list of entities read from its bytes straight into records |
| ``store`` | the ``Store``: records and results per identity, merged and read back |
| ``write_order`` | which write wins against a read in flight |
| ``retention`` | what the store keeps: expiry, and a byte bound |

May import: _base.
"""
