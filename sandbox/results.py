"""What a scripted player gets back: the bot's answer to an interaction, and modals it opened."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from sandbox.models import JSON, CallbackType, Interaction, Message

if TYPE_CHECKING:
    from sandbox.players import ScriptedPlayer
    from sandbox.state import SandboxState

DEFAULT_TIMEOUT = 5.0


def walk_components(components: Iterable[JSON]) -> Iterator[JSON]:
    """Every component in a tree of rows, containers, sections and labels."""
    for component in components:
        yield component
        yield from walk_components(component.get("components") or [])
        for key in ("component", "accessory"):
            child = component.get(key)
            if isinstance(child, dict):
                yield from walk_components([child])


class Modal:
    """A modal the bot opened for a player."""

    def __init__(self, data: JSON, opened_by: Interaction) -> None:
        self.data = data
        self.opened_by = opened_by

    @property
    def custom_id(self) -> str:
        return str(self.data["custom_id"])

    @property
    def title(self) -> str:
        return str(self.data["title"])

    def inputs(self) -> list[tuple[str | None, JSON]]:
        """(label, component) for every field the player can fill."""
        out: list[tuple[str | None, JSON]] = []
        for top in self.data.get("components") or []:
            if top.get("type") == 18 and isinstance(top.get("component"), dict):
                out.append((top.get("label"), top["component"]))
            elif top.get("type") == 1:
                out.extend((c.get("label"), c) for c in top.get("components") or [])
        return [(label, c) for label, c in out if c.get("custom_id")]


class InteractionResult:
    """What the bot answered to one interaction; properties read the live state."""

    def __init__(self, player: ScriptedPlayer, interaction: Interaction) -> None:
        self.player = player
        self.interaction = interaction

    @property
    def _state(self) -> SandboxState:
        return self.player.state

    @property
    def _channels(self) -> tuple[int]:
        # The response, its edits and its follow-ups all live in the interaction's channel.
        return (self.interaction.channel_id,)

    @property
    def response_type(self) -> CallbackType | None:
        return self.interaction.callback_type

    @property
    def deferred(self) -> bool:
        return self.response_type in (
            CallbackType.DEFERRED_CHANNEL_MESSAGE,
            CallbackType.DEFERRED_UPDATE_MESSAGE,
        )

    @property
    def ephemeral(self) -> bool:
        return self.interaction.ephemeral

    @property
    def message(self) -> Message | None:
        """The original response (or the updated component message), None when deleted."""
        mid = self.interaction.original_message_id
        msg = self._state.messages.get(mid) if mid is not None else None
        return None if msg is None or msg.deleted else msg

    @property
    def followups(self) -> list[Message]:
        found = (self._state.messages[i] for i in self.interaction.followup_ids)
        return [m for m in found if not m.deleted and m.id != self.interaction.original_message_id]

    @property
    def modal(self) -> Modal | None:
        data = self.interaction.modal
        return Modal(data, self.interaction) if data is not None else None

    @property
    def choices(self) -> list[JSON]:
        return list(self.interaction.choices or [])

    async def wait_done(self, timeout: float = DEFAULT_TIMEOUT) -> Message:  # noqa: ASYNC109
        """Wait until the response is no longer "thinking" and return it."""

        def ready() -> Message | None:
            msg = self.message
            return msg if msg is not None and not msg.loading else None

        result: Message = await self._state.wait_for(
            ready, timeout, "the interaction response", channels=self._channels
        )
        return result

    async def wait_edit(self, timeout: float = DEFAULT_TIMEOUT) -> Message:  # noqa: ASYNC109
        """Wait until the response (or the clicked message) has been edited by the bot."""

        def edited() -> Message | None:
            msg = self.message
            return msg if msg is not None and msg.edited_timestamp is not None else None

        result: Message = await self._state.wait_for(
            edited, timeout, "an edit of the response", channels=self._channels
        )
        return result

    async def wait_followups(
        self,
        count: int = 1,
        timeout: float = DEFAULT_TIMEOUT,  # noqa: ASYNC109
    ) -> list[Message]:
        def enough() -> list[Message] | None:
            found = self.followups
            return found if len(found) >= count else None

        result: list[Message] = await self._state.wait_for(
            enough, timeout, f"{count} follow-up message(s)", channels=self._channels
        )
        return result
