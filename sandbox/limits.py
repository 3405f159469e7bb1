"""Discord's message limits, enforced so that a bot which overflows them fails here first."""

from __future__ import annotations

import copy
from typing import Any

from sandbox.errors import ApiError, field_error, invalid_form, merge_errors
from sandbox.models import JSON, MessageFlag

CONTENT_LIMIT = 2000
EMBEDS_LIMIT = 10
EMBED_TOTAL_LIMIT = 6000
EMBED_FIELDS_LIMIT = 25
ACTION_ROWS_LIMIT = 5
ROW_WIDTH_LIMIT = 5
SELECT_OPTIONS_LIMIT = 25
CUSTOM_ID_LIMIT = 100
BUTTON_LABEL_LIMIT = 80
# Discord's reference ("Uploading Files"): the limit applies to each file of a request, and is
# 10 MiB by default (more with Nitro or a server's boosts); a larger file is refused with 413
# and code 40005. Interactions carry it as `attachment_size_limit`.
DEFAULT_ATTACHMENT_LIMIT = 10 * 1024 * 1024
FILES_LIMIT = 10
AUTOCOMPLETE_CHOICES_LIMIT = 25

_EMBED_TEXT_LIMITS: dict[tuple[str, ...], int] = {
    ("title",): 256,
    ("description",): 4096,
    ("footer", "text"): 2048,
    ("author", "name"): 256,
}
_SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
# What an action row of a message may hold: a button or a select menu (text inputs are for
# modals only).
_ROW_CHILD_TYPES = (2, 3, 5, 6, 7, 8)
_LINK_STYLE = 5
_PREMIUM_STYLE = 6


def _too_long(path: list[str | int], limit: int) -> dict[str, Any]:
    return field_error(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def _embed_errors(index: int, embed: dict[str, Any]) -> tuple[dict[str, Any], int]:
    errors: dict[str, Any] = {}
    total = 0
    for path, limit in _EMBED_TEXT_LIMITS.items():
        node: Any = embed
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, str):
            total += len(node)
            if len(node) > limit:
                merge_errors(errors, _too_long(["embeds", index, *path], limit))
    fields = embed.get("fields") or []
    if len(fields) > EMBED_FIELDS_LIMIT:
        merge_errors(errors, _too_long(["embeds", index, "fields"], EMBED_FIELDS_LIMIT))
    for f_index, item in enumerate(fields):
        name, value = str(item.get("name", "")), str(item.get("value", ""))
        total += len(name) + len(value)
        if not name or len(name) > 256:
            merge_errors(errors, _too_long(["embeds", index, "fields", f_index, "name"], 256))
        if not value or len(value) > 1024:
            merge_errors(errors, _too_long(["embeds", index, "fields", f_index, "value"], 1024))
    return errors, total


def _required(path: list[str | int]) -> dict[str, Any]:
    return field_error(path, "BASE_TYPE_REQUIRED", "This field is required")


def _type_choices(path: list[str | int], allowed: tuple[int, ...]) -> dict[str, Any]:
    return field_error(
        [*path, "type"],
        "UNION_TYPE_CHOICES",
        f'Value of field "type" must be one of {allowed}.',
    )


def _child_errors(path: list[str | int], child: dict[str, Any]) -> dict[str, Any]:
    """What Discord requires of a button or a select menu in an action row."""
    errors: dict[str, Any] = {}
    kind = child.get("type")
    if kind not in _ROW_CHILD_TYPES:
        return _type_choices(path, _ROW_CHILD_TYPES)
    if kind == 2:
        style = child.get("style")
        if style is None:
            merge_errors(errors, _required([*path, "style"]))
        elif style == _LINK_STYLE and not child.get("url"):
            merge_errors(errors, _required([*path, "url"]))
        elif style not in (_LINK_STYLE, _PREMIUM_STYLE) and not child.get("custom_id"):
            merge_errors(errors, _required([*path, "custom_id"]))
    else:
        if not child.get("custom_id"):
            merge_errors(errors, _required([*path, "custom_id"]))
        if kind == 3 and not child.get("options"):
            merge_errors(errors, _required([*path, "options"]))
    return errors


def _component_errors(components: list[dict[str, Any]], v2: bool) -> dict[str, Any]:
    errors: dict[str, Any] = {}
    if v2 and components:
        # Layout components (containers, sections, galleries...) are not modelled here; a bot
        # that starts using them must first teach the sandbox how Discord answers them.
        return field_error(
            ["flags"], "SANDBOX_UNSUPPORTED", "The sandbox does not model Components V2."
        )
    if len(components) > ACTION_ROWS_LIMIT:
        merge_errors(errors, _too_long(["components"], ACTION_ROWS_LIMIT))
    for r_index, row in enumerate(components):
        if row.get("type") != 1:
            merge_errors(errors, _type_choices(["components", r_index], (1,)))
            continue
        children = row.get("components") or []
        if len(children) > ROW_WIDTH_LIMIT or (
            any(c.get("type") in _SELECT_TYPES for c in children) and len(children) > 1
        ):
            merge_errors(
                errors,
                field_error(
                    ["components", r_index, "components"],
                    "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                    "The specified component exceeds the maximum width",
                ),
            )
        for c_index, child in enumerate(children):
            path: list[str | int] = ["components", r_index, "components", c_index]
            merge_errors(errors, _child_errors(path, child))
            custom_id = child.get("custom_id")
            if custom_id is not None and len(str(custom_id)) > CUSTOM_ID_LIMIT:
                merge_errors(errors, _too_long([*path, "custom_id"], CUSTOM_ID_LIMIT))
            label = child.get("label")
            if label is not None and len(str(label)) > BUTTON_LABEL_LIMIT:
                merge_errors(errors, _too_long([*path, "label"], BUTTON_LABEL_LIMIT))
            options = child.get("options")
            if options is not None and len(options) > SELECT_OPTIONS_LIMIT:
                merge_errors(errors, _too_long([*path, "options"], SELECT_OPTIONS_LIMIT))
    return errors


def validate_message(
    body: dict[str, Any],
    file_sizes: list[int],
    *,
    attachment_limit: int,
    require_body: bool = True,
) -> None:
    """Raise the ApiError Discord would answer for this message body, if any."""
    errors: dict[str, Any] = {}
    content = body.get("content")
    if isinstance(content, str) and len(content) > CONTENT_LIMIT:
        merge_errors(errors, _too_long(["content"], CONTENT_LIMIT))
    embeds = body.get("embeds") or []
    if len(embeds) > EMBEDS_LIMIT:
        merge_errors(errors, _too_long(["embeds"], EMBEDS_LIMIT))
    total = 0
    for index, embed in enumerate(embeds):
        embed_errors, size = _embed_errors(index, embed)
        merge_errors(errors, embed_errors)
        total += size
    if total > EMBED_TOTAL_LIMIT:
        merge_errors(
            errors,
            field_error(["embeds"], "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size"),
        )
    v2 = bool(int(body.get("flags") or 0) & MessageFlag.IS_COMPONENTS_V2)
    merge_errors(errors, _component_errors(body.get("components") or [], v2))
    if len(file_sizes) > FILES_LIMIT:
        merge_errors(errors, _too_long(["files"], FILES_LIMIT))
    if errors:
        raise invalid_form(errors)
    if any(size > attachment_limit for size in file_sizes):
        raise ApiError(413, 40005, "Request entity too large")
    has_payload = bool(
        content or embeds or body.get("components") or file_sizes or body.get("attachments")
    )
    if require_body and not has_payload and not body.get("poll") and not body.get("sticker_ids"):
        raise ApiError(400, 50006, "Cannot send an empty message")


def validate_choices(choices: list[dict[str, Any]]) -> None:
    if len(choices) > AUTOCOMPLETE_CHOICES_LIMIT:
        raise invalid_form(_too_long(["data", "choices"], AUTOCOMPLETE_CHOICES_LIMIT))
    for index, choice in enumerate(choices):
        name = str(choice.get("name", ""))
        if not 1 <= len(name) <= 100:
            raise invalid_form(_too_long(["data", "choices", index, "name"], 100))


def numbered(components: list[JSON]) -> list[JSON]:
    """The components as Discord stores them: each with an ``id``, numbered in order from 1 where
    the bot gave none (ids the bot chose are kept and skipped)."""
    copies = copy.deepcopy(components)
    taken: set[int] = set()
    found: list[JSON] = []

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, dict) and "type" in node:
            found.append(node)
            if isinstance(node.get("id"), int):
                taken.add(node["id"])
            for key in ("components", "accessory", "component"):
                walk(node.get(key))

    walk(copies)
    next_id = 1
    for node in found:
        if not isinstance(node.get("id"), int):
            while next_id in taken:
                next_id += 1
            node["id"] = next_id
            taken.add(next_id)
    return copies
