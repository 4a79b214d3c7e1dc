"""pydantic's JSON Schema generator as tool schemas use it (private).

Kept apart from ``_schema`` so that building a tool of primitive parameters
never imports pydantic: only the paths that need pydantic (models, rich
annotations, the arguments model) import this module.
"""

from __future__ import annotations

from typing import Any

from pydantic.json_schema import GenerateJsonSchema

__all__ = ("ToolJSONSchema",)


class ToolJSONSchema(GenerateJsonSchema):
    """Pydantic's generator without the titles it derives from field names.
    Defaults that are not JSON (sentinels) are left out of the schema quietly.

    Stdlib dataclasses and TypedDicts validate with the configuration of the
    model that holds them, so inside the arguments model they refuse unknown
    keys in every supported pydantic version; pydantic only says so in the
    schema since 2.13 (TypedDict) and 2.14 (dataclass). The schema states it
    for all versions, so Go refuses those keys before Python sees them."""

    ignored_warning_kinds = {"skipped-choice", "non-serializable-default"}  # noqa: RUF012 - pydantic's API

    def field_title_should_be_set(self, schema: Any) -> bool:
        return False

    def dataclass_schema(self, schema: Any) -> Any:
        return _forbid_extra(schema, super().dataclass_schema(schema))

    def get_decimal_pattern(self, schema: Any) -> str | None:
        # pydantic >= 2.14 leaves the pattern of a Decimal sent as a string
        # out unless asked (2.12 and 2.13 always write one, a look-ahead);
        # with it the model sees the syntax and Go checks it before Python.
        return self.build_decimal_pattern(schema)

    def decimal_schema(self, schema: Any) -> Any:
        # Before 2.12 pydantic writes no pattern for a Decimal sent as a
        # string: the syntax pydantic >= 2.14 states for an unconstrained
        # Decimal keeps the schema the same in every supported version
        # (Python still checks digits and places).
        json_schema = super().decimal_schema(schema)
        for branch in json_schema.get("anyOf", [json_schema]):
            if branch.get("type") == "string" and "pattern" not in branch:
                branch["pattern"] = _DECIMAL_PATTERN
        return json_schema

    def typed_dict_schema(self, schema: Any) -> Any:
        return _forbid_extra(schema, super().typed_dict_schema(schema))


_DECIMAL_PATTERN = r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)$"


def _forbid_extra(core: Any, json_schema: Any) -> Any:
    config = core.get("config") or {}
    forbid = config.get("extra_fields_behavior") == "forbid" or core.get("extra_behavior") == "forbid"
    if forbid and json_schema.get("type") == "object":
        json_schema.setdefault("additionalProperties", False)
    return json_schema
