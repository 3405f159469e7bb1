"""Pillow drawings of player views: boards, turn overlays, spell cards, tables, replays.

Everything here draws a PlayerView (a side's or the public one), never a GameState, so hidden
information cannot reach an image. Fonts come from data/assets, so output is the same on every
machine.
"""

from render.board import board_image, render_board
from render.card import render_card
from render.replay import REPLAY_THEME, render_replay
from render.sheet import render_order_sheet
from render.tables import ScheduleRow, StandingRow, render_schedule, render_standings
from render.theme import DEFAULT_THEME, Theme

__all__ = [
    "DEFAULT_THEME",
    "REPLAY_THEME",
    "ScheduleRow",
    "StandingRow",
    "Theme",
    "board_image",
    "render_board",
    "render_card",
    "render_order_sheet",
    "render_replay",
    "render_schedule",
    "render_standings",
]
