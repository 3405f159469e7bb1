"""A routed REST request (parameters, JSON body, uploads) and the JSON answers handlers give."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from aiohttp import BodyPartReader, web

from sandbox.errors import ApiError
from sandbox.models import JSON
from sandbox.state import Upload


@dataclass(slots=True)
class Call:
    """One routed request: its parameters, JSON body and uploaded files."""

    request: web.Request
    params: dict[str, str]
    body: Any
    uploads: list[Upload]

    def json(self) -> JSON:
        return self.body if isinstance(self.body, dict) else {}


@dataclass(frozen=True, slots=True)
class Created:
    """A handler's answer for a new resource: Discord says 201 Created for those."""

    body: JSON


async def read_body(request: web.Request) -> tuple[Any, list[Upload]]:
    """JSON bodies, or multipart with payload_json and files[n] as discord.py sends them."""
    if request.content_type.startswith("multipart/"):
        payload: Any = {}
        files: dict[str, tuple[str, bytes, str | None]] = {}
        reader = await request.multipart()
        while True:
            part = await reader.next()
            if part is None:
                break
            if not isinstance(part, BodyPartReader):
                continue
            raw = await part.read(decode=True)
            if part.name == "payload_json":
                payload = json.loads(raw)
            elif part.name is not None:
                content_type = part.headers.get("Content-Type")
                files[part.name] = (part.filename or part.name, bytes(raw), content_type)
        described: dict[int, JSON] = {}
        for item in payload.get("attachments") or [] if isinstance(payload, dict) else []:
            if "filename" in item:
                described[int(item["id"])] = item
        uploads = []
        for name, (filename, data, content_type) in files.items():
            match = re.fullmatch(r"files\[(\d+)\]", name)
            index = int(match.group(1)) if match else -1
            meta = described.get(index, {})
            uploads.append(
                Upload(
                    filename=str(meta.get("filename") or filename),
                    data=data,
                    description=meta.get("description"),
                    content_type=(
                        content_type
                        if content_type and content_type != "application/octet-stream"
                        else None
                    ),
                )
            )
        return payload, uploads
    raw_text = await request.text()
    if not raw_text:
        return {}, []
    try:
        return json.loads(raw_text), []
    except ValueError:
        raise ApiError(400, 50109, "The request body contains invalid JSON.") from None


def json_response(
    data: Any, *, status: int = 200, headers: dict[str, str] | None = None
) -> web.Response:
    # discord.py only parses bodies whose content-type is exactly "application/json".
    return web.Response(
        body=json.dumps(data).encode(),
        status=status,
        headers={**(headers or {}), "Content-Type": "application/json"},
    )
