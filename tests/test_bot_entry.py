from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import bot
from sandbox import Sandbox

ROOT = Path(__file__).resolve().parent.parent


def run_bot(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    # The entry point reads .env from the project; an empty HOME-like environment keeps the
    # developer's own settings out of the test.
    return subprocess.run(
        [sys.executable, "-c", "import bot, sys; sys.exit(bot.main())"],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", **env},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_malformed_setting_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    result = run_bot({"SANCTUM_TEST_GUILD_ID": "abc"}, tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "Configuration error: SANCTUM_TEST_GUILD_ID must be a whole number, got 'abc'"
    ]
    assert "Traceback" not in result.stderr


def test_bot_declares_no_privileged_intents() -> None:
    intents = bot.bot_intents()
    assert not intents.message_content
    assert not intents.members
    assert not intents.presences


def test_without_a_token_the_bot_plays_a_demo_in_the_sandbox(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "sandbox"
    monkeypatch.setattr(bot, "SANDBOX_DIR", out)
    monkeypatch.setenv("SANCTUM_SANDBOX_TURNS", "2")
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.setattr("settings.PROJECT_ROOT", tmp_path)
    assert bot.main() == 0
    printed = capsys.readouterr().out
    assert "starts in sandbox mode" in printed
    assert "== thread 'Match #1: Alice vs Bob' in #matches ==" in printed
    assert "Match #1 · turn 2 resolved" in printed or "Match #1 is over" in printed
    images = sorted(p.name for p in out.iterdir() if p.suffix in (".png", ".gif"))
    assert images[:2] == ["001-board.png", "002-turn-1.png"]
    # Each player's order sheets of the first turns: the embed printed, the image saved.
    for name in ("Alice", "Bob"):
        assert f"== DM with {name}: the order sheets of the first turns ==" in printed
        sheets = sorted(p.name for p in (out / f"dm-{name.lower()}").iterdir())
        assert sheets == ["001-turn-1-sheet.png", "002-turn-2-sheet.png"]
    assert "[embed] Match #1 · turn 1 · you are" in printed


SERVE = """
import asyncio, sys
import discord.gateway, discord.http
import bot
from sandbox import Sandbox
from settings import Settings

base, gateway, token, guild, db = sys.argv[1:]
discord.http.Route.BASE = base
old = discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = type(old)(gateway)
settings = Settings(None, f"sqlite:///{db}", "INFO", int(guild), 24.0, None, 1)
bot.configure_logging("INFO")
asyncio.run(bot.run_bot(bot.MatchBot(settings, guild_ready_timeout=0.05), token))
"""


async def test_sigterm_stops_the_bot_cleanly(tmp_path: Path) -> None:
    async with Sandbox(bot_name="Sanctum Host") as sandbox:
        guild = sandbox.create_guild("Sanctum")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            SERVE,
            sandbox.api_base,
            sandbox.gateway_url,
            sandbox.token,
            str(guild.id),
            str(tmp_path / "bot.db"),
            cwd=ROOT,
            stderr=asyncio.subprocess.PIPE,
        )
        try:
            await sandbox.wait_for(
                lambda: sandbox.bot_connected and bool(sandbox.commands(guild)), timeout=30
            )
            process.send_signal(signal.SIGTERM)
            _out, err = await asyncio.wait_for(process.communicate(), 30)
        finally:
            if process.returncode is None:
                process.kill()
    log = err.decode()
    assert process.returncode == 0
    assert "shutting down" in log and "Traceback" not in log


def test_an_unreachable_database_ends_with_one_line_naming_it(tmp_path: Path) -> None:
    result = run_bot(
        {
            "DISCORD_TOKEN": "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDe.abcdefghijklmnopqrstuvwxyz0123",
            # Port 9 (discard) has no PostgreSQL: the connection is refused.
            "SANCTUM_DATABASE_URL": "postgresql://sanctum:secret@127.0.0.1:9/sanctum",
        },
        tmp_path,
    )
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(
        "Start-up error: cannot open the database postgresql://sanctum:***@127.0.0.1:9/sanctum: "
    )
    assert "secret" not in result.stderr


def test_a_database_file_that_cannot_be_made_ends_with_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    result = run_bot(
        {
            "DISCORD_TOKEN": "MTIzNDU2Nzg5MDEyMzQ1Njc4.GabcDe.abcdefghijklmnopqrstuvwxyz0123",
            "SANCTUM_DATABASE_URL": f"sqlite:///{blocker}/sanctum.db",
        },
        tmp_path,
    )
    assert result.returncode == 1
    assert result.stderr.strip().splitlines()[0].startswith("Start-up error: cannot open the")
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
