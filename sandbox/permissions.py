"""Permissions as Discord computes them, and the refusals it answers when one is missing.

A member's permissions in a channel: @everyone's and their roles' permissions (everything with
Administrator or as the owner), then the channel's overwrites for @everyone, for their roles
(allows and denies combined) and for the member, in that order. A thread takes its parent's
overwrites; sending there needs Send Messages in Threads instead of Send Messages, and a private
thread is visible to its members and to those with Manage Threads. Without View Channel nothing
else counts; without Send Messages a channel's Embed Links and Attach Files do not either.
"""

from __future__ import annotations

from sandbox.errors import ApiError
from sandbox.models import ALL_PERMISSIONS, Channel, ChannelType, Guild, Overwrite, Permission

# The permissions docs/operations.md asks for in the invite URL (permissions=309237763072):
# the sandbox gives its bot a role with exactly these, so the suite tests what a server grants.
INVITE_PERMISSIONS = (
    Permission.VIEW_CHANNEL
    | Permission.READ_MESSAGE_HISTORY
    | Permission.SEND_MESSAGES
    | Permission.SEND_MESSAGES_IN_THREADS
    | Permission.CREATE_PUBLIC_THREADS
    | Permission.EMBED_LINKS
    | Permission.ATTACH_FILES
)


def missing_access() -> ApiError:
    return ApiError(403, 50001, "Missing Access")


def missing_permissions() -> ApiError:
    return ApiError(403, 50013, "Missing Permissions")


def channel_permissions(
    guild: Guild, channel: Channel, user_id: int, overwrites: list[Overwrite]
) -> int:
    """``user_id``'s permissions in ``channel`` (a thread passes its parent's overwrites)."""
    base = guild.permissions_of(user_id)
    if base & Permission.ADMINISTRATOR or base == ALL_PERMISSIONS:
        return ALL_PERMISSIONS
    member = guild.members.get(user_id)
    if member is None:
        return 0
    value = base
    by_target = {o.target_id: o for o in overwrites}
    everyone = by_target.get(guild.id)
    if everyone is not None:
        value = (value & ~everyone.deny) | everyone.allow
    allow = deny = 0
    for role_id in member.role_ids:
        found = by_target.get(role_id)
        if found is not None and found.kind == 0:
            allow |= found.allow
            deny |= found.deny
    value = (value & ~deny) | allow
    own = by_target.get(user_id)
    if own is not None and own.kind == 1:
        value = (value & ~own.deny) | own.allow
    if not value & Permission.VIEW_CHANNEL:
        return 0
    send = Permission.SEND_MESSAGES_IN_THREADS if channel.is_thread else Permission.SEND_MESSAGES
    if not value & send:
        value &= ~(Permission.EMBED_LINKS | Permission.ATTACH_FILES)
    if channel.type is ChannelType.PRIVATE_THREAD and not (
        user_id in channel.member_ids or value & Permission.MANAGE_THREADS
    ):
        return 0
    return value


def require(permissions: int, *needed: Permission) -> None:
    """Raise Discord's refusal unless ``permissions`` hold every one of ``needed``."""
    if not permissions & Permission.VIEW_CHANNEL:
        raise missing_access()
    for permission in needed:
        if not permissions & permission:
            raise missing_permissions()
