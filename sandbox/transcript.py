"""Readable transcripts of channels, threads and DMs, and saving the images posted there."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

from sandbox.models import JSON, Channel, ChannelType, Message
from sandbox.results import walk_components
from sandbox.server import Sandbox
from sandbox.snowflake import snowflake_time

_IMAGE_SUFFIXES = frozenset({".png", ".gif", ".jpg", ".jpeg", ".webp"})
_MARKUP = re.compile(r"<(@!?|#)(\d+)>")
_TIMESTAMP = re.compile(r"<t:(-?\d+)(?::[tTdDfFR])?>")


def readable(sandbox: Sandbox, text: str) -> str:
    """Show user and channel mentions by name and timestamps as times, as the Discord client
    does (in UTC here)."""
    state = sandbox.state

    def name(match: re.Match[str]) -> str:
        kind, raw = match.group(1), int(match.group(2))
        if kind == "#":
            channel = state.channels.get(raw)
            return f"#{channel.name}" if channel is not None else match.group(0)
        user = state.users.get(raw)
        return f"@{user.name}" if user is not None else match.group(0)

    def when(match: re.Match[str]) -> str:
        moment = datetime.fromtimestamp(int(match.group(1)), tz=UTC)
        return moment.strftime("%Y-%m-%d %H:%M UTC")

    return _TIMESTAMP.sub(when, _MARKUP.sub(name, text))


def _short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def channel_title(sandbox: Sandbox, channel: Channel) -> str:
    state = sandbox.state
    if channel.type is ChannelType.DM:
        return f"DM with {state.users[channel.recipient_id or 0].name}"
    if channel.is_thread:
        parent = state.channels.get(channel.parent_id or 0)
        kind = "private thread" if channel.type is ChannelType.PRIVATE_THREAD else "thread"
        return f"{kind} '{channel.name}' in #{parent.name if parent else '?'}"
    return f"#{channel.name}"


def _embed_lines(sandbox: Sandbox, embed: JSON) -> list[str]:
    """The embed in full: a turn's log reads as the players read it."""
    text = readable(sandbox, str(embed.get("description") or "")).splitlines() or [""]
    head = " — ".join(part for part in (embed.get("title"), text[0]) if part)
    lines = [f"[embed] {head}".rstrip()]
    lines.extend(f"    {line}" for line in text[1:] if line.strip())
    for field in embed.get("fields") or []:
        value = readable(sandbox, str(field.get("value")))
        lines.append(f"    {field.get('name')}: {_short(value, 80)}")
    footer = (embed.get("footer") or {}).get("text")
    if footer:
        lines.append(f"    ({_short(str(footer), 80)})")
    image = (embed.get("image") or {}).get("url")
    if image:
        lines.append(f"    image: {image}")
    return lines


def _component_line(components: list[JSON]) -> str | None:
    parts: list[str] = []
    for component in walk_components(components):
        kind = component.get("type")
        if kind == 2:
            label = component.get("label") or component.get("custom_id") or "button"
            disabled = " (disabled)" if component.get("disabled") else ""
            parts.append(f"[{label}]{disabled}")
        elif kind in (3, 5, 6, 7, 8):
            placeholder = component.get("placeholder") or component.get("custom_id")
            count = len(component.get("options") or [])
            parts.append(f"<select {placeholder}{f' ({count} options)' if count else ''}>")
        elif kind == 10:
            parts.append(_short(str(component.get("content", "")), 80))
    return " ".join(parts) if parts else None


def render_message(sandbox: Sandbox, message: Message) -> list[str]:
    state = sandbox.state
    author = state.users[message.author_id]
    stamp = snowflake_time(message.id).strftime("%H:%M:%S")
    tags = []
    if author.bot:
        tags.append("bot")
    if message.ephemeral_for is not None:
        tags.append(f"only {state.users[message.ephemeral_for].name} sees this")
    if message.edited_timestamp is not None:
        tags.append("edited")
    tag = f" ({', '.join(tags)})" if tags else ""
    if message.interaction is not None and message.interaction.name:
        user = state.users[message.interaction.user_id].name
        tag += f" ↳ {user} used /{message.interaction.name}"
    body = "(thinking…)" if message.loading else readable(sandbox, message.content)
    lines = [f"[{stamp}] {author.name}{tag}: {body}".rstrip()]
    for embed in message.embeds:
        lines.extend("    " + line for line in _embed_lines(sandbox, embed))
    for attachment in message.attachments:
        lines.append(f"    [file] {attachment.filename} ({attachment.size:,} bytes)")
    components = _component_line(message.components)
    if components:
        lines.append(f"    {components}")
    if message.thread_id is not None:
        thread = state.channels.get(message.thread_id)
        if thread is not None:
            lines.append(f"    [thread] {thread.name}")
    return lines


def render_transcript(sandbox: Sandbox, channel: Channel, *, viewer: int | None = None) -> str:
    """The channel as text, as ``viewer`` (a user id) sees it, or everything when None."""
    state = sandbox.state
    messages = (
        state.channel_history(channel.id)
        if viewer is None
        else state.visible_messages(viewer, channel)
    )
    lines = [f"== {channel_title(sandbox, channel)} =="]
    for message in messages:
        lines.extend(render_message(sandbox, message))
    return "\n".join(lines) + "\n"


def save_images(
    sandbox: Sandbox, channel: Channel, directory: Path, *, viewer: int | None = None
) -> list[Path]:
    """Write every image attached in ``channel`` to ``directory``, in posting order."""
    state = sandbox.state
    messages = (
        state.channel_history(channel.id)
        if viewer is None
        else state.visible_messages(viewer, channel)
    )
    directory.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for message in messages:
        for attachment in message.attachments:
            is_image = (attachment.content_type or "").startswith("image/") or (
                Path(attachment.filename).suffix.lower() in _IMAGE_SUFFIXES
            )
            if not is_image:
                continue
            path = directory / f"{len(written) + 1:03d}-{attachment.filename}"
            path.write_bytes(attachment.data)
            written.append(path)
    return written


def render_all(sandbox: Sandbox, *, viewer: int | None = None) -> str:
    """Every channel, thread and DM with messages, each as a transcript, in creation order."""
    state = sandbox.state
    parts = []
    for channel in sorted(state.channels.values(), key=lambda c: c.id):
        if viewer is not None and not state.can_view_channel(viewer, channel):
            continue
        if state.channel_history(channel.id):
            parts.append(render_transcript(sandbox, channel, viewer=viewer))
    return "\n".join(parts)
