from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
    import bot

    intents = bot.bot_intents()
    assert not intents.message_content
    assert not intents.members
    assert not intents.presences
