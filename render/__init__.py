"""Pillow drawings of player views: boards, turn overlays, spell cards, tables, replays."""
